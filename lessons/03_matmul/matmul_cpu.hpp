/// @file
/// @brief Lesson 03's CPU reference: the specification, in a few obvious lines.
///
/// The tests check large products in O(M·N) with course::product::check (cuBLAS as an oracle
/// plus exact samples) rather than with this O(M·N·K) loop; they use it for small shapes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "course/parallel.hpp"

namespace course::lesson03 {

/// C = A · B in double, for row-major A (m × k) and B (k × n), with the sum of the magnitudes
/// of each element's terms, Σ_p |A[i][p] B[p][j]|: the scale of the rounding error a float
/// kernel may make (README, "How exact is exact enough?"). Returns {C, magnitudes}, both m × n
/// row-major. For k = 0, C is all zeros.
inline std::pair<std::vector<double>, std::vector<double>> multiply_reference(
    std::span<const float> a, std::span<const float> b, int m, int n, int k) {
  std::vector<double> c(static_cast<std::size_t>(m) * n), magnitude(c.size());
  // Every element on its own, so threads take chunks of them (about 2^16 products a chunk).
  const auto elements = [&](std::size_t begin, std::size_t end) {
    for (std::size_t e = begin; e < end; ++e) {
      const std::size_t i = e / n, j = e % n;
      double sum = 0.0, size = 0.0;
      for (int p = 0; p < k; ++p) {
        const double term = double(a[i * k + p]) * double(b[static_cast<std::size_t>(p) * n + j]);
        sum += term;
        size += std::fabs(term);
      }
      c[e] = sum;
      magnitude[e] = size;
    }
  };
  parallel_for(c.size(), elements, std::max<std::size_t>(1, (std::size_t{1} << 16) / (k + 1)));
  return {c, magnitude};
}

}  // namespace course::lesson03
