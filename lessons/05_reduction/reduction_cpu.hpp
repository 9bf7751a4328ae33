/// @file
/// @brief Lesson 05's CPU reference: the specification, in a few obvious lines.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "reduction.cuh"

namespace course::lesson05 {

/// The exact sum of @p in, in 64-bit integers.
inline std::int64_t sum_reference(std::span<const int> in) {
  std::int64_t sum = 0;
  for (const int x : in)
    sum += x;
  return sum;
}

/// The sum of @p in, accumulated in double: the float rungs are compared with it.
inline double sum_reference(std::span<const float> in) {
  double sum = 0.0;
  for (const float x : in)
    sum += x;
  return sum;
}

/// The sum of |in[i]|, in double: the scale of a float sum's rounding error.
inline double abs_sum(std::span<const float> in) {
  double sum = 0.0;
  for (const float x : in)
    sum += x < 0 ? -static_cast<double>(x) : x;
  return sum;
}

/// The reduction of @p in with @p op (max and min are exact; for sums see sum_reference). An
/// empty input gives the identity.
template <class T>
T reduce_reference(Op op, std::span<const T> in) {
  T result = identity<T>(op);
  for (const T x : in) {
    if (op == Op::Sum)
      result = static_cast<T>(result + x);
    if (op == Op::Max)
      result = std::max(result, x);
    if (op == Op::Min)
      result = std::min(result, x);
  }
  return result;
}

/// The row reduction @p op of the rows x cols row-major matrix @p a (and @p b for DotProduct),
/// in double: row_output_size(op, rows, cols) values.
inline std::vector<double> row_reduce_reference(RowOp op, std::span<const float> a,
                                                std::span<const float> b, int rows, int cols) {
  const auto at = [cols](int r, int c) { return static_cast<std::size_t>(r) * cols + c; };
  std::vector<double> out;
  if (op == RowOp::ColumnMean) {
    for (int c = 0; c < cols; ++c) {
      double sum = 0.0;
      for (int r = 0; r < rows; ++r)
        sum += a[at(r, c)];
      out.push_back(sum / rows);
    }
    return out;
  }
  for (int r = 0; r < rows; ++r) {
    double acc = a[at(r, 0)];
    if (op == RowOp::DotProduct)
      acc = static_cast<double>(a[at(r, 0)]) * b[at(r, 0)];
    if (op == RowOp::RowSumOfSquares)
      acc = static_cast<double>(a[at(r, 0)]) * a[at(r, 0)];
    for (int c = 1; c < cols; ++c) {
      const double x = a[at(r, c)];
      switch (op) {
        case RowOp::DotProduct:
          acc += x * b[at(r, c)];
          break;
        case RowOp::RowSumOfSquares:
          acc += x * x;
          break;
        case RowOp::RowMax:
          acc = std::max(acc, x);
          break;
        case RowOp::RowMin:
          acc = std::min(acc, x);
          break;
        default:
          acc += x;
          break;  // RowSum, RowMean
      }
    }
    out.push_back(op == RowOp::RowMean ? acc / cols : acc);
  }
  return out;
}

}  // namespace course::lesson05
