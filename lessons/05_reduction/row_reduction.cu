// Lesson 05, the memory lab's row reductions through shared memory. The global version is given
// (reduction_given.cu); write the shared one, then the padded one, and delete the `throw`s.
#include "course/error.hpp"
#include "reduction_device.cuh"
#include "reduction_rungs.cuh"

namespace course::lesson05 {

namespace {
constexpr const char* kHere = "lessons/05_reduction/row_reduction.cu";
}  // namespace

//! [row_tiled_exercise]
// TODO(student): version "shared". Write one kernel template <RowOp kOp, int kPad> for blocks of
// kRowTile x kRowThreadRows (32 x 8) threads; block b owns rows 32 b .. 32 b + 31.
//   1. __shared__ float tile[kRowTile][kRowTile + kPad]; and partial[kRowThreadRows][kRowTile].
//   2. For each 32-column tile: warp ty loads tile rows k = ty, ty + 8, ty + 16, ty + 24 with
//      lane tx reading column tx: tile[k][tx] = row_element<kOp>(a, b, index) inside the
//      matrix, RowCombine<kOp>::identity() outside. __syncthreads().
//   3. Thread (tx, ty) owns row tx: acc = combine(acc, tile[tx][k]) for k = ty, ty + 8, ....
//      __syncthreads() before the next tile overwrites this one.
//   4. partial[ty][tx] = acc; a tree over ty (s = 4, 2, 1) with __syncthreads(); thread (tx, 0)
//      writes row_finish<kOp>(partial[0][tx], cols) if its row exists.
// ColumnMean needs the mirror image (block b owns columns 32 b.., thread (tx, ty) owns column tx
// and reads tile[k][tx]). Dispatch with with_row_op(op, [&](auto k) { kernel<decltype(k)::value,
// 0><<<...>>>(...); }) and CUDA_CHECK_LAST().
void row_reduce_shared(RowOp op, const float* d_a, const float* d_b, float* d_out, int rows,
                       int cols, cudaStream_t stream) {
  throw NotImplemented("row_shared", kHere);
}
//! [row_tiled_exercise]

// TODO(student): version "shared_padded": the same kernels with kPad = 1. Before you measure,
// work out which bank the 32 lanes hit in step 3 with and without the padding column, and why
// ColumnMean does not care.
void row_reduce_shared_padded(RowOp op, const float* d_a, const float* d_b, float* d_out, int rows,
                              int cols, cudaStream_t stream) {
  throw NotImplemented("row_shared_padded", kHere);
}

}  // namespace course::lesson05
