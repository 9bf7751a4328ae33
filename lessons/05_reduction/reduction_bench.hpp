/// @file
/// @brief Lesson 05's timed work, described once for the tests and the demo: each rung as a
/// course::Trial that course::measure() times (course/bench.hpp). Given code.
///
/// Every timed launch reads inputs made on the GPU from a fresh seed, and its result is compared
/// with what trusted code computed from the same inputs: CUB's DeviceReduce for the ladder, the
/// given `global` version for the row reductions. So the share of CUB that the demo prints is the
/// share the tests grade, and no rung can be timed on work it did not do.
#pragma once

#include <cstddef>

#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "reduction.cuh"

namespace course::lesson05 {

/// The buffers and trials of the ladder's timed runs: @p op over n elements of @p T (int or
/// float). Inputs: floats uniform in [-1, 1), ints uniform in [-31, 31] (so that 2^26 of them
/// sum inside int32). The expected result comes from CUB's DeviceReduce (Sum, Max or Min).
/// Trials refer to this object: it must outlive them, so it cannot be copied or moved.
template <class T>
class ReductionBench {
 public:
  /// Allocates the input (@p n elements, 1 <= n <= kMaxCount), the result, the expected result
  /// and CUB's scratch memory.
  ReductionBench(Op op, std::size_t n);
  ReductionBench(const ReductionBench&) = delete;
  ReductionBench& operator=(const ReductionBench&) = delete;

  /// The timed work of @p variant with @p block threads per block (tree and single-pass rungs).
  [[nodiscard]] Trial trial(Variant variant, int block = kDefaultBlock);

  /// How far a float sum of @p n inputs in [-1, 1) may lie from CUB's: the README's bound
  /// 8 max(1, ceil(log2 n)) 2^-24 sum|x|, with sum|x| < n. Integer results, and float max and
  /// min, must be bit-identical.
  [[nodiscard]] static double sum_tolerance(std::size_t n);

  /// Elements reduced.
  [[nodiscard]] std::size_t size() const noexcept { return n_; }

 private:
  Op op_;
  std::size_t n_;
  DeviceBuffer<T> in_;
  DeviceBuffer<T> out_;
  DeviceBuffer<T> expected_;
  DeviceBuffer<unsigned char> scratch_;  // CUB's temporary storage
  std::size_t scratch_bytes_ = 0;
};

/// The buffers and trials of the row reductions' timed runs: @p op of a rows x cols matrix A
/// (and B for DotProduct), uniform in [-1, 1). The expected result comes from the given `global`
/// version.
class RowBench {
 public:
  /// Allocates A, B (for DotProduct), the output and the expected output (1 <= rows, cols <=
  /// kMaxRowExtent).
  RowBench(RowOp op, int rows, int cols);
  RowBench(const RowBench&) = delete;
  RowBench& operator=(const RowBench&) = delete;

  /// The timed work of @p version.
  [[nodiscard]] Trial trial(RowVersion version);

  /// How far @p op's outputs may lie from the `global` version's: max and min exact; sums within
  /// 2 (d + 2) 2^-24 sum|t| of each other, d the row (or column) length and sum|t| <= d (means:
  /// divided by d), which holds for any order of the additions.
  [[nodiscard]] static double tolerance(RowOp op, int rows, int cols);

 private:
  RowOp op_;
  int rows_;
  int cols_;
  DeviceBuffer<float> a_;
  DeviceBuffer<float> b_;
  DeviceBuffer<float> out_;
  DeviceBuffer<float> expected_;
};

}  // namespace course::lesson05
