/// @file
/// @brief Lesson 12's CPU reference: the specification, in a few obvious lines.
///
/// The tests check large products in O(M·N) with course::product::check (cuBLAS as an oracle
/// plus exact samples) rather than with this O(M·N·K) loop; they use it for small shapes.
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "tensor_cores.cuh"

namespace course::lesson12 {

/// C = A · B in double, for BF16 A (m × k, row-major: a[i * k + p]) and B (k × n, column-major:
/// b[j * k + p]), with the sum of the magnitudes of each element's terms, Σ_p |A[i][p] B[p][j]|:
/// the scale of the rounding error an FP32 accumulation may make. Every term is exact in double
/// (two 8-bit significands make 16). Returns {C, magnitudes}, both m × n row-major. For k = 0,
/// C is all zeros.
inline std::pair<std::vector<double>, std::vector<double>> multiply_reference(
    std::span<const bf16> a, std::span<const bf16> b, int m, int n, int k) {
  std::vector<double> c(static_cast<std::size_t>(m) * n), magnitude(c.size());
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0.0, size = 0.0;
      for (int p = 0; p < k; ++p) {
        const double term = double(__bfloat162float(a[static_cast<std::size_t>(i) * k + p])) *
                            double(__bfloat162float(b[static_cast<std::size_t>(j) * k + p]));
        sum += term;
        size += std::fabs(term);
      }
      c[static_cast<std::size_t>(i) * n + j] = sum;
      magnitude[static_cast<std::size_t>(i) * n + j] = size;
    }
  return {c, magnitude};
}

}  // namespace course::lesson12
