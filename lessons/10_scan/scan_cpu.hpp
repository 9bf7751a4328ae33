/// @file
/// @brief Lesson 10's CPU reference: the specification, in a few obvious lines.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "scan.cuh"

namespace course::lesson10 {

/// The scan of @p in, each section of @p section elements on its own (kWholeInput: one section).
/// Sums wrap modulo 2^32 as the GPU's int additions do (computed in uint32_t, where wrapping is
/// defined), so the result is the same bits whatever order the GPU added in.
inline std::vector<int> scan_reference(std::span<const int> in, ScanKind kind,
                                       std::size_t section) {
  std::vector<int> out(in.size());
  std::uint32_t running = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (i % section == 0)
      running = 0;  // a new section starts from the identity
    const auto x = static_cast<std::uint32_t>(in[i]);
    if (kind == ScanKind::Inclusive)
      running += x;
    out[i] = static_cast<int>(running);
    if (kind == ScanKind::Exclusive)
      running += x;
  }
  return out;
}

/// A float scan's reference: the exact-as-can-be values, and the scale of their rounding error.
struct FloatReference {
  std::vector<double> value;      ///< the scan, accumulated in double
  std::vector<double> magnitude;  ///< the same scan of |x|: the sum of |x_j| over the terms of y_i
};

/// The scan of @p in in double, each section of @p section elements on its own (kWholeInput:
/// one section), with the scan of |in| that bounds its rounding error (README, "Accuracy").
inline FloatReference scan_reference(std::span<const float> in, ScanKind kind,
                                     std::size_t section) {
  FloatReference out{std::vector<double>(in.size()), std::vector<double>(in.size())};
  double running = 0.0, magnitude = 0.0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (i % section == 0)
      running = magnitude = 0.0;
    if (kind == ScanKind::Inclusive) {
      running += in[i];
      magnitude += std::fabs(static_cast<double>(in[i]));
    }
    out.value[i] = running;
    out.magnitude[i] = magnitude;
    if (kind == ScanKind::Exclusive) {
      running += in[i];
      magnitude += std::fabs(static_cast<double>(in[i]));
    }
  }
  return out;
}

/// The most additions that any input passes through on its way into any output of @p variant
/// (n elements, @p block threads), as the README's "Accuracy" section counts them, with room for
/// a student's reasonable variations of each rung. A float sum whose every term passes through at
/// most d roundings is within about d u (u = 2^-24) times the sum of the terms' magnitudes.
inline double rounding_depth(Variant variant, std::size_t n, int block) {
  const double b = std::max(1.0, std::ceil(std::log2(static_cast<double>(block))));
  const double c = kThreePhaseCoarsening;
  switch (variant) {
    case Variant::KoggeStone:
    case Variant::KoggeStoneDoubleBuffer:
      return b;
    case Variant::BrentKung:
      return 2.0 * (b + 1.0);
    case Variant::ThreePhase:
      return c + 2.0 * b;
    case Variant::Hierarchical: {
      // A three_phase and an add-back per level; the levels counted for sections as small as
      // Brent-Kung's (2 block), in case the hierarchy is built on that rung.
      const double levels = std::max(1.0, std::ceil(std::log2(static_cast<double>(n)) / (b + 1.0)));
      return levels * (c + 2.0 * b + 2.0);
    }
    case Variant::SinglePass:
      // A few dozen inside a tile, then up to 8 per tile along the look-back chain (tiles of at
      // least 1024 elements).
      return 64.0 + 8.0 * std::ceil(static_cast<double>(n) / 1024.0);
  }
  return 0.0;
}

/// The error each element of a float scan may have: 2 rounding_depth() 2^-24 times the sum of
/// the magnitudes of its terms (the factor 2 covers the exact constant and the double reference's
/// own rounding). An element whose terms are all zero must be exact.
inline std::vector<double> error_bound(const FloatReference& reference, Variant variant,
                                       std::size_t n, int block) {
  const double scale = 2.0 * rounding_depth(variant, n, block) * 0x1p-24;
  std::vector<double> bound(reference.magnitude.size());
  for (std::size_t i = 0; i < bound.size(); ++i)
    bound[i] = scale * reference.magnitude[i];
  return bound;
}

}  // namespace course::lesson10
