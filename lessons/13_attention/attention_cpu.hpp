/// @file
/// @brief Lesson 13's CPU reference: the specification, in a few obvious lines.
///
/// The tests check small problems against it in full, and large ones against the given unfused
/// rung on the GPU plus a sample of rows computed here (attention_row_reference()).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "attention.cuh"
#include "course/parallel.hpp"

namespace course::lesson13 {

/// One head of Q, K and V ([n][d] row-major each) widened to double: exact, since every BF16
/// value is a double, and done once per head rather than once per product.
struct Head {
  std::vector<double> q;  ///< n x d
  std::vector<double> k;  ///< n x d
  std::vector<double> v;  ///< n x d
};

/// Head @p head of BF16 Q, K, V ([bh][n][d] row-major, as attention() takes them), widened.
inline Head widen_head(std::span<const bf16> q, std::span<const bf16> k, std::span<const bf16> v,
                       Shape shape, int head) {
  const std::size_t size = static_cast<std::size_t>(shape.n) * shape.d;
  const std::size_t base = static_cast<std::size_t>(head) * size;
  const auto widen = [&](std::span<const bf16> x) {
    std::vector<double> out(size);
    for (std::size_t e = 0; e < size; ++e)
      out[e] = __bfloat162float(x[base + e]);
    return out;
  };
  return Head{widen(q), widen(k), widen(v)};
}

/// Row @p i of one head of O = softmax(Q K^T / sqrt(d)) V in double, written to @p out (d
/// values). Every product of two BF16 values is exact in double, and the softmax subtracts the
/// row's maximum, so nothing overflows. Returns the largest sum of the magnitudes of a dot
/// product's terms, max_j sum_c |q_ic k_jc| / sqrt(d): the scale of the rounding error an FP32
/// dot product may make in a score (the tolerance's Lambda, attention_bench.hpp).
inline double attention_row_reference(const Head& head, Shape shape, int i, std::span<double> out) {
  const auto [bh, n, d, causal] = shape;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  const double* qi = head.q.data() + static_cast<std::size_t>(i) * d;
  const int keys = causal ? i + 1 : n;  // row i sees keys j <= i when causal
  std::vector<double> s(keys);
  double largest = -INFINITY, magnitude = 0.0;
  for (int j = 0; j < keys; ++j) {
    const double* kj = head.k.data() + static_cast<std::size_t>(j) * d;
    double dot = 0.0, size = 0.0;
    for (int c = 0; c < d; ++c) {
      dot += qi[c] * kj[c];
      size += std::fabs(qi[c] * kj[c]);
    }
    s[j] = scale * dot;
    largest = std::max(largest, s[j]);
    magnitude = std::max(magnitude, scale * size);
  }
  double sum = 0.0;
  for (double& x : s) {
    x = std::exp(x - largest);
    sum += x;
  }
  std::fill(out.begin(), out.end(), 0.0);
  for (int j = 0; j < keys; ++j) {
    const double* vj = head.v.data() + static_cast<std::size_t>(j) * d;
    for (int c = 0; c < d; ++c)
      out[c] += s[j] / sum * vj[c];
  }
  return magnitude;
}

/// O for every row of every head, in double ([bh][n][d] row-major), and the largest
/// attention_row_reference() magnitude over all rows.
struct Reference {
  std::vector<double> o;   ///< bh x n x d
  double magnitude = 0.0;  ///< max over all scores of sum_c |q_ic k_jc| / sqrt(d)
};

/// O = softmax(Q K^T / sqrt(d)) V for all rows, in double: attention_row_reference() row by row.
inline Reference attention_reference(std::span<const bf16> q, std::span<const bf16> k,
                                     std::span<const bf16> v, Shape shape) {
  Reference reference;
  const std::size_t rows = static_cast<std::size_t>(shape.bh) * shape.n;
  reference.o.resize(rows * shape.d);
  std::vector<Head> heads;
  for (int h = 0; h < shape.bh; ++h)
    heads.push_back(widen_head(q, k, v, shape, h));
  // Rows are independent: threads take chunks of them (a row is n d products, so 64 rows make a
  // chunk worth a thread), each writing its own rows of O and their magnitudes.
  std::vector<double> magnitudes(rows);
  parallel_for(
      rows,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t row = begin; row < end; ++row)
          magnitudes[row] = attention_row_reference(
              heads[row / shape.n], shape, static_cast<int>(row % shape.n),
              std::span<double>(reference.o.data() + row * shape.d, shape.d));
      },
      64);
  for (const double m : magnitudes)
    reference.magnitude = std::max(reference.magnitude, m);
  return reference;
}

}  // namespace course::lesson13
