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

  /// The operations one reduction needs, for the roofline: n - 1 (combining n values takes
  /// n - 1 binary operations, whatever the tree), in the demo's unit for @p op and T.
  [[nodiscard]] double ops() const noexcept { return static_cast<double>(n_) - 1.0; }

  /// The bytes one reduction with @p variant (@p block threads per block) must move between DRAM
  /// and the SMs, for the roofline: the input read once and the result written once, plus, for
  /// the tree rungs, each pass's block results, written and read again by the next pass (as
  /// reduce_in_passes runs them: one element per thread for rungs 1 to 3, two for 4 and 5). The
  /// vectorized rung's partials, one per resident block (a few KB), are not counted.
  [[nodiscard]] double bytes(Variant variant, int block = kDefaultBlock) const noexcept {
    std::size_t per_thread = 0;  // 0: a single-pass rung
    if (variant == Variant::InterleavedDivergent || variant == Variant::InterleavedStrided ||
        variant == Variant::Sequential)
      per_thread = 1;
    if (variant == Variant::FirstAddOnLoad || variant == Variant::UnrolledWarp)
      per_thread = 2;
    double elements = static_cast<double>(n_) + 1.0;
    if (per_thread > 0) {
      const std::size_t per_block = per_thread * static_cast<std::size_t>(block);
      for (std::size_t count = (n_ + per_block - 1) / per_block; count > 1;
           count = (count + per_block - 1) / per_block)
        elements += 2.0 * static_cast<double>(count);
    }
    return elements * sizeof(T);
  }

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

  /// The FP32 operations @p op needs, for the roofline (the same for every version): per row
  /// (per column for ColumnMean) of length d, d - 1 adds, plus d multiplies for DotProduct and
  /// RowSumOfSquares, plus one division for the means. 0 for RowMax and RowMin: comparisons, not
  /// arithmetic, so they are not on the FLOP roofline.
  [[nodiscard]] double flops() const noexcept {
    const double rows = rows_, cols = cols_;
    switch (op_) {
      case RowOp::DotProduct:
      case RowOp::RowSumOfSquares:
        return rows * (2.0 * cols - 1.0);
      case RowOp::RowSum:
        return rows * (cols - 1.0);
      case RowOp::RowMean:
      case RowOp::ColumnMean:
        return rows * cols;
      case RowOp::RowMax:
      case RowOp::RowMin:
        break;
    }
    return 0.0;
  }

  /// The bytes @p op must move between DRAM and the SMs, for the roofline: A (and B for
  /// DotProduct) read once, the output written once.
  [[nodiscard]] double bytes() const noexcept {
    const double count = static_cast<double>(rows_) * cols_;
    return 4.0 * (count * (op_ == RowOp::DotProduct ? 2 : 1) +
                  static_cast<double>(row_output_size(op_, rows_, cols_)));
  }

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
