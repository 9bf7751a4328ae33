/// @file
/// @brief Lesson 04's timed work: how the speed tests and the demo time a rung, in one place.
///
/// A Bench holds the device buffers of one shape; trial() describes one rung's timed launch to
/// course::measure() (course/bench.hpp): a fresh A before every launch, cuBLAS's A·Aᵀ of it as
/// the expected C, and every element of every timed C (both triangles) compared with it on the
/// GPU. The tests and the demo both time through it, so the share the demo prints is the share
/// that is graded.
#pragma once

#include <string>

#include "aat.cuh"
#include "course/bench.hpp"
#include "course/buffer.hpp"

namespace course::lesson04::bench {

/// How far a float C = A·Aᵀ with rows of length @p k, computed by one kernel, may lie from
/// cuBLAS's product of the same A, for A uniform in [-1, 1). The derivation is in aat_bench.cpp.
[[nodiscard]] Tolerance product_tolerance(int k);

/// The buffers of one shape (A of n x k) and the trials that time the rungs on them.
class Bench {
 public:
  /// Allocates A, C and the expected C for A of @p n x @p k (within aat()'s limits, both
  /// positive).
  Bench(int n, int k);
  Bench(const Bench&) = delete;  // the trials point into this object
  Bench& operator=(const Bench&) = delete;

  /// The timed launch of @p variant: aat(variant, ...), A uniform in [-1, 1).
  [[nodiscard]] Trial trial(Variant variant);
  /// 2 n^2 k, the floating-point operations counted for every rung.
  [[nodiscard]] double flops() const { return 2.0 * n_ * static_cast<double>(n_) * k_; }
  /// The floating-point operations @p variant really does, for the roofline: 2 n^2 k for the
  /// rungs that compute both triangles, n (n + 1) k (2 k for each of the n (n + 1) / 2 elements
  /// on and above the diagonal) for symmetric and register_tiled, which compute one and mirror
  /// it. The edge tiles' zero padding and the diagonal tiles' lower halves are not counted.
  [[nodiscard]] double flops_done(Variant variant) const {
    const bool one_triangle = variant == Variant::Symmetric || variant == Variant::RegisterTiled;
    return one_triangle ? n_ * (n_ + 1.0) * k_ : flops();
  }
  /// 4 (n k + n^2), the bytes every rung must move between DRAM and the SMs: A read once and C
  /// written once, both triangles (the symmetric rungs write the mirror too). What the L2 serves
  /// again is not counted.
  [[nodiscard]] double bytes() const {
    return 4.0 * (static_cast<double>(n_) * k_ + static_cast<double>(n_) * n_);
  }
  /// C as the last launch left it (device memory, n x n).
  [[nodiscard]] const DeviceBuffer<float>& c() const { return c_; }

 private:
  int n_, k_;
  DeviceBuffer<float> a_, c_, expected_;
};

}  // namespace course::lesson04::bench
