// Lesson 05: the entry points check their arguments once, then hand the call to the rung.
#include <string>

#include "course/error.hpp"
#include "course/indexing.hpp"
#include "reduction.cuh"
#include "reduction_rungs.cuh"

namespace course::lesson05 {

namespace {

template <class T>
void reduce_any(Variant variant, Op op, const T* d_in, T* d_out, std::size_t n, cudaStream_t stream,
                int block) {
  require(op == Op::Sum || op == Op::Max || op == Op::Min, "reduce: op must be Sum, Max or Min");
  require(n <= kMaxCount, "reduce: n must be in [0, 2^30] (kMaxCount)");
  require(block >= 64 && block <= kMaxBlock && (block & (block - 1)) == 0,
          "reduce: block must be a power of two in [64, 1024]");
  require(d_out != nullptr, "reduce: d_out must be a device pointer");
  require(n == 0 || d_in != nullptr, "reduce: d_in must be a device pointer when n > 0");
  require(n == 0 || d_out < d_in || d_out >= d_in + n, "reduce: d_out lies inside d_in");
  // The reduction of nothing is the identity: 0, -inf / INT_MIN, +inf / INT_MAX.
  if (n == 0)
    return fill_identity(op, d_out, stream);
  switch (variant) {
    case Variant::InterleavedDivergent:
      return reduce_in_passes<T>(pass_interleaved_divergent<T>, 1, op, d_in, d_out, n, block,
                                 stream);
    case Variant::InterleavedStrided:
      return reduce_in_passes<T>(pass_interleaved_strided<T>, 1, op, d_in, d_out, n, block, stream);
    case Variant::Sequential:
      return reduce_in_passes<T>(pass_sequential<T>, 1, op, d_in, d_out, n, block, stream);
    case Variant::FirstAddOnLoad:
      return reduce_in_passes<T>(pass_first_add_on_load<T>, 2, op, d_in, d_out, n, block, stream);
    case Variant::UnrolledWarp:
      return reduce_in_passes<T>(pass_unrolled_warp<T>, 2, op, d_in, d_out, n, block, stream);
    case Variant::CoarsenedAtomic:
      return run_coarsened_atomic<T>(op, d_in, d_out, n, block, stream);
    case Variant::WarpShuffle:
      return run_warp_shuffle<T>(op, d_in, d_out, n, block, stream);
    case Variant::Vectorized:
      return run_vectorized<T>(op, d_in, d_out, n, stream);
  }
  throw std::invalid_argument("reduce: unknown variant");
}

}  // namespace

void reduce(Variant variant, Op op, const int* d_in, int* d_out, std::size_t n, cudaStream_t stream,
            int block) {
  reduce_any(variant, op, d_in, d_out, n, stream, block);
}

void reduce(Variant variant, Op op, const float* d_in, float* d_out, std::size_t n,
            cudaStream_t stream, int block) {
  reduce_any(variant, op, d_in, d_out, n, stream, block);
}

void row_reduce(RowVersion version, RowOp op, const float* d_a, const float* d_b, float* d_out,
                int rows, int cols, cudaStream_t stream) {
  const std::string range = "0 <= rows, cols <= " + std::to_string(kMaxRowExtent);
  require(rows >= 0 && cols >= 0, "row_reduce: rows and cols must be non-negative (" + range + ")");
  require(rows <= kMaxRowExtent && cols <= kMaxRowExtent,
          "row_reduce: matrix too large (" + range + ")");
  require(static_cast<std::size_t>(op) < kRowOps.size(), "row_reduce: unknown RowOp");
  if (rows == 0 || cols == 0)
    return;
  const bool dot = op == RowOp::DotProduct;
  require(d_a != nullptr && d_out != nullptr, "row_reduce: d_a and d_out must be device pointers");
  require(!dot || d_b != nullptr, "row_reduce: DotProduct needs d_b");
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  const std::size_t out_count = row_output_size(op, rows, cols);
  require(
      !overlap(d_a, count, d_out, out_count) && (!dot || !overlap(d_b, count, d_out, out_count)),
      "row_reduce: d_out overlaps an input");
  switch (version) {
    case RowVersion::Global:
      return row_reduce_global(op, d_a, d_b, d_out, rows, cols, stream);
    case RowVersion::Shared:
      return row_reduce_shared(op, d_a, d_b, d_out, rows, cols, stream);
    case RowVersion::SharedPadded:
      return row_reduce_shared_padded(op, d_a, d_b, d_out, rows, cols, stream);
  }
  throw std::invalid_argument("row_reduce: unknown version");
}

}  // namespace course::lesson05
