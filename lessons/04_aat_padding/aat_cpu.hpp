/// @file
/// @brief Lesson 04's CPU reference: the specification, in a few obvious lines.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "course/parallel.hpp"

namespace course::lesson04 {

/// C = A·Aᵀ for the n x k row-major matrix @p a, in double: C[i][j] = sum over p of
/// A[i][p] * A[j][p]. O(n² k): for small matrices only (the tests check large ones on the GPU).
inline std::vector<double> aat_reference(std::span<const float> a, int n, int k) {
  std::vector<double> c(static_cast<std::size_t>(n) * n);
  // Every element on its own, so threads take chunks of them (about 2^16 products a chunk).
  const auto elements = [&](std::size_t begin, std::size_t end) {
    for (std::size_t e = begin; e < end; ++e) {
      const std::size_t i = e / n, j = e % n;
      double sum = 0.0;
      for (int p = 0; p < k; ++p)
        sum += double(a[i * k + p]) * a[j * k + p];
      c[e] = sum;
    }
  };
  parallel_for(c.size(), elements, std::max<std::size_t>(1, (std::size_t{1} << 16) / (k + 1)));
  return c;
}

/// The error a float computation of C[i][j] may carry, whatever its order of summation:
/// γ_k Σ_p |A[i][p] A[j][p]| with γ_k = k u / (1 - k u), u = 2^-24 (see README, "Tolerance").
inline std::vector<double> aat_error_bound(std::span<const float> a, int n, int k) {
  const double ku = k * 0x1p-24;
  const double gamma = ku / (1.0 - ku);
  std::vector<double> bound(static_cast<std::size_t>(n) * n);
  const auto elements = [&](std::size_t begin, std::size_t end) {
    for (std::size_t e = begin; e < end; ++e) {
      const std::size_t i = e / n, j = e % n;
      double magnitude = 0.0;
      for (int p = 0; p < k; ++p)
        magnitude += std::fabs(double(a[i * k + p]) * a[j * k + p]);
      bound[e] = gamma * magnitude + 1e-30;
    }
  };
  parallel_for(bound.size(), elements, std::max<std::size_t>(1, (std::size_t{1} << 16) / (k + 1)));
  return bound;
}

}  // namespace course::lesson04
