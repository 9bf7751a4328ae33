/// @file
/// @brief Lesson 05, reduction: the interface shared by skeleton, solution, tests and demo.
///
/// Two parts. The ladder reduces a whole vector of int or float to one value (sum, max or min),
/// from the divergent interleaved kernel of the memory lab (docs page Sources) up to CUB's speed.
/// The row reductions are that lab's assignment: per-row (or per-column) reductions of a float
/// matrix, each written three times: in global memory, through a shared-memory tile, and through a
/// padded tile.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <limits>
#include <string_view>

#include "course/variants.hpp"

namespace course::lesson05 {

/// The rungs of the ladder, in teaching order.
enum class Variant {
  InterleavedDivergent,  ///< given: reduce1, `tid % (2 s) == 0` picks the working threads:
                         ///< divergent warps
  InterleavedStrided,    ///< exercise: reduce2, thread t works on index 2 s t: no divergence, bank
                         ///< conflicts
  Sequential,  ///< exercise: reduce3, stride from blockDim / 2 down: no conflicts, half the threads
               ///< idle
  FirstAddOnLoad,   ///< exercise: reduce4, each thread adds two elements while loading
  UnrolledWarp,     ///< exercise: reduce5 made correct: the last warp unrolled with `__syncwarp()`
  CoarsenedAtomic,  ///< exercise: PMPP's coarsened segments, one atomic per block, one pass
  WarpShuffle,      ///< exercise: `__shfl_down_sync` inside warps, shared memory only between warps
  Vectorized,       ///< stretch: 16-byte loads, a grid sized to the GPU, a tiny second pass
};

/// A rung's name and kind, for tables, tests and docs.
struct VariantInfo {
  Variant variant;        ///< the rung
  std::string_view name;  ///< as the demo's --variant takes it
  std::string_view kind;  ///< given, exercise or stretch
  /// The rung's name in the memory lab's Table 3.3 ("reduce1"...), or empty.
  std::string_view lab_name;
};

/// All rungs, in teaching order.
inline constexpr std::array<VariantInfo, 8> kVariants{{
    {Variant::InterleavedDivergent, "interleaved_divergent", "given", "reduce1"},
    {Variant::InterleavedStrided, "interleaved_strided", "exercise", "reduce2"},
    {Variant::Sequential, "sequential", "exercise", "reduce3"},
    {Variant::FirstAddOnLoad, "first_add_on_load", "exercise", "reduce4"},
    {Variant::UnrolledWarp, "unrolled_warp", "exercise", "reduce5"},
    {Variant::CoarsenedAtomic, "coarsened_atomic", "exercise", ""},
    {Variant::WarpShuffle, "warp_shuffle", "exercise", ""},
    {Variant::Vectorized, "vectorized", "stretch", ""},
}};

/// The name of @p variant.
[[nodiscard]] constexpr std::string_view name_of(Variant variant) {
  return name_in(kVariants, variant);
}

/// The reduction operator.
enum class Op {
  Sum,  ///< a + b; identity 0
  Max,  ///< the larger; identity -inf (float) or INT_MIN (int)
  Min,  ///< the smaller; identity +inf (float) or INT_MAX (int)
};

/// The operators and their names, for loops and the demo's --op.
inline constexpr std::array<std::pair<Op, std::string_view>, 3> kOps{{
    {Op::Sum, "sum"},
    {Op::Max, "max"},
    {Op::Min, "min"},
}};

/// The name of @p op.
[[nodiscard]] constexpr std::string_view name_of(Op op) {
  return name_in(kOps, op);
}

/// The identity of @p op for element type @p T (int or float): op(identity, x) == x for every x.
/// It is also the result of reducing an empty vector.
template <class T>
[[nodiscard]] constexpr T identity(Op op) {
  using limits = std::numeric_limits<T>;
  switch (op) {
    case Op::Sum:
      return T{0};
    case Op::Max:
      return limits::has_infinity ? -limits::infinity() : limits::lowest();
    case Op::Min:
      return limits::has_infinity ? limits::infinity() : limits::max();
  }
  return T{0};
}

/// Threads per block of the tree rungs when the caller does not choose.
inline constexpr int kDefaultBlock = 256;
/// The largest block a tree rung accepts (the size of its shared array).
inline constexpr int kMaxBlock = 1024;
/// The most elements one call reduces: 2^30. Far enough below 2^31 that no index a kernel
/// computes, even in a 32-bit signed int (such as 2 blockIdx.x blockDim.x + tid + blockDim.x),
/// can overflow; the demo's largest size. The tests reach 2^26.
inline constexpr std::size_t kMaxCount = std::size_t{1} << 30;

/// Reduces d_in[0, n) with @p op and writes the one result to *d_out. Every part of the
/// reduction happens on the GPU; for n = 0 the result is the identity of @p op.
///
/// @param[in]  variant the rung
/// @param[in]  op      sum, max or min
/// @param[in]  d_in    device memory, n ints; may be null when n = 0; any 4-byte alignment
/// @param[out] d_out   device memory, one int, not inside d_in
/// @param[in]  n       elements, 0 <= n <= kMaxCount
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @param[in]  block   threads per block of the tree rungs 1 to 7, a power of two in [64, 1024];
///                     the Vectorized rung chooses its own shape
/// @pre Integer sums are exact as long as the true sum fits in int32; the tests keep it there.
/// @pre Float inputs hold no NaN (max and min would then depend on the order).
/// @throws std::invalid_argument for n > kMaxCount, a bad block, a null or overlapping pointer;
///         course::NotImplemented for a rung the skeleton has not written yet; course::CudaError
///         if a launch fails.
void reduce(Variant variant, Op op, const int* d_in, int* d_out, std::size_t n,
            cudaStream_t stream = {}, int block = kDefaultBlock);

/// The same for floats. A float sum's order differs from rung to rung (and, for the atomic
/// rungs, from run to run), so its last bits do too; see the README for the bound the tests use.
/// @param[in]  variant the rung
/// @param[in]  op      sum, max or min
/// @param[in]  d_in    device memory, n floats; may be null when n = 0; any 4-byte alignment
/// @param[out] d_out   device memory, one float, not inside d_in
/// @param[in]  n       elements, 0 <= n <= kMaxCount
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @param[in]  block   threads per block of the tree rungs, a power of two in [64, 1024]
/// @throws the same as the int overload.
void reduce(Variant variant, Op op, const float* d_in, float* d_out, std::size_t n,
            cudaStream_t stream = {}, int block = kDefaultBlock);

// ---------------------------------------------------------------------------------------------
// The row reductions (the memory lab's assignment).

/// What a row reduction computes on a rows x cols row-major float matrix A (and B).
enum class RowOp {
  DotProduct,       ///< out[r] = sum_c A[r][c] * B[r][c]; a 1 x n matrix is the lab's dot product
  RowSum,           ///< out[r] = sum_c A[r][c]
  RowMean,          ///< out[r] = sum_c A[r][c] / cols
  ColumnMean,       ///< out[c] = sum_r A[r][c] / rows (the output has cols elements)
  RowMax,           ///< out[r] = max_c A[r][c]
  RowSumOfSquares,  ///< out[r] = sum_c A[r][c]^2
  RowMin,           ///< out[r] = min_c A[r][c]
};

/// How a row reduction is written.
enum class RowVersion {
  Global,        ///< given: one thread per row (per column for ColumnMean), reading global memory
  Shared,        ///< exercise: 32 x 32 tiles staged in shared memory, coalesced loads
  SharedPadded,  ///< exercise: the same tiles declared [32][33]: no bank conflicts
};

/// A row operation's name and what it computes, for tables, tests and docs.
struct RowOpInfo {
  RowOp op;                  ///< the operation
  std::string_view name;     ///< as the demo prints it
  std::string_view formula;  ///< in words
};

/// The memory lab's operations, in its order.
inline constexpr std::array<RowOpInfo, 7> kRowOps{{
    {RowOp::DotProduct, "dot_product", "sum of A*B along each row"},
    {RowOp::RowSum, "row_sum", "sum of each row"},
    {RowOp::RowMean, "row_mean", "mean of each row"},
    {RowOp::ColumnMean, "column_mean", "mean of each column"},
    {RowOp::RowMax, "row_max", "max of each row"},
    {RowOp::RowSumOfSquares, "row_sum_of_squares", "sum of squares of each row"},
    {RowOp::RowMin, "row_min", "min of each row"},
}};

/// The versions, in teaching order, with their names (their kinds are in the enumerators' comments
/// and the README).
inline constexpr std::array<std::pair<RowVersion, std::string_view>, 3> kRowVersions{{
    {RowVersion::Global, "global"},
    {RowVersion::Shared, "shared"},
    {RowVersion::SharedPadded, "shared_padded"},
}};

/// The name of @p op.
[[nodiscard]] constexpr std::string_view name_of(RowOp op) {
  return name_in(kRowOps, op, &RowOpInfo::op);
}

/// The name of @p version.
[[nodiscard]] constexpr std::string_view name_of(RowVersion version) {
  return name_in(kRowVersions, version);
}

/// Elements of the output of @p op on a rows x cols matrix: cols for ColumnMean, else rows.
[[nodiscard]] constexpr std::size_t row_output_size(RowOp op, int rows, int cols) {
  return static_cast<std::size_t>(op == RowOp::ColumnMean ? cols : rows);
}

/// The memory lab's matrix size ("Size = 1000").
inline constexpr int kLabSize = 1000;
/// The largest number of rows or columns a row reduction accepts.
inline constexpr int kMaxRowExtent = 1 << 20;

/// Computes @p op of a rows x cols row-major matrix into d_out (see RowOp for the formulas).
///
/// @param[in]  version the version
/// @param[in]  op      what to compute
/// @param[in]  d_a     device memory, rows * cols floats
/// @param[in]  d_b     device memory, rows * cols floats, for DotProduct only (else ignored, may
///                     be null)
/// @param[out] d_out   device memory, row_output_size(op, rows, cols) floats, not overlapping the
///                     inputs
/// @param[in]  rows    0 <= rows <= kMaxRowExtent
/// @param[in]  cols    0 <= cols <= kMaxRowExtent
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @pre An empty matrix (rows or cols 0) is a no-op that never touches the GPU.
/// @throws std::invalid_argument for a negative or too large extent, a null or overlapping
///         pointer; course::NotImplemented for a version the skeleton has not written yet.
void row_reduce(RowVersion version, RowOp op, const float* d_a, const float* d_b, float* d_out,
                int rows, int cols, cudaStream_t stream = {});

}  // namespace course::lesson05
