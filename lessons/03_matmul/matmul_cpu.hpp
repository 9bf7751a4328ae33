/// @file
/// @brief Lesson 03's CPU reference: the specification, in a few obvious lines.
///
/// The tests check large products in O(M·N) with course::product::check (cuBLAS as an oracle
/// plus exact samples) rather than with this O(M·N·K) loop; they use it for small shapes.
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace course::lesson03 {

/// C = A · B in double, for row-major A (m × k) and B (k × n), with the sum of the magnitudes
/// of each element's terms, Σ_p |A[i][p] B[p][j]|: the scale of the rounding error a float
/// kernel may make (README, "How exact is exact enough?"). Returns {C, magnitudes}, both m × n
/// row-major. For k = 0, C is all zeros.
inline std::pair<std::vector<double>, std::vector<double>> multiply_reference(
    std::span<const float> a, std::span<const float> b, int m, int n, int k) {
  std::vector<double> c(static_cast<std::size_t>(m) * n), magnitude(c.size());
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0, size = 0.0;
      for (int p = 0; p < k; ++p) {
        const double term = double(a[static_cast<std::size_t>(i) * k + p]) *
                            double(b[static_cast<std::size_t>(p) * n + j]);
        sum += term;
        size += std::fabs(term);
      }
      c[static_cast<std::size_t>(i) * n + j] = sum;
      magnitude[static_cast<std::size_t>(i) * n + j] = size;
    }
  return {c, magnitude};
}

}  // namespace course::lesson03
