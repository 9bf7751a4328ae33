// Lesson 05, the memory lab's row reductions through shared memory, solved. One kernel template
// serves both versions: kPad = 0 is "shared", kPad = 1 is "shared + padding".
#include "course/error.hpp"
#include "reduction_device.cuh"
#include "reduction_rungs.cuh"

namespace course::lesson05 {

namespace {

__host__ __device__ inline std::size_t at(int row, int col, int cols) {
  return static_cast<std::size_t>(row) * cols + col;
}

//! [row_tiled_kernel]
// A block of 32 x 8 threads owns 32 rows. It walks along them one 32 x 32 tile at a time:
// (1) Load: warp ty loads tile rows ty, ty + 8, ty + 16, ty + 24; lane tx reads column tx, so a
//     warp reads 32 consecutive floats: coalesced, unlike the global version's thread per row.
// (2) Reduce: thread (tx, ty) owns row tx of the tile and takes its columns ty, ty + 8, ... So
//     the 32 lanes of a warp read tile[0][k], tile[1][k], ..., tile[31][k]: a column. In a
//     [32][32] tile those words are 32 apart, all in bank k: a 32-way conflict, 32 steps. In a
//     [32][33] tile word 33 t + k is in bank (t + k) mod 32: 32 banks, one step.
// Then the 8 partial results of each row meet in a small tree over ty.
template <RowOp kOp, int kPad>
__global__ void row_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                 float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kRowTile][kRowTile + kPad];
  __shared__ float partial[kRowThreadRows][kRowTile];
  const RowCombine<kOp> combine;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int first_row = blockIdx.x * kRowTile;
  float acc = RowCombine<kOp>::identity();
  for (int first_col = 0; first_col < cols; first_col += kRowTile) {
    for (int k = ty; k < kRowTile; k += kRowThreadRows) {
      const int row = first_row + k;
      const int col = first_col + tx;
      tile[k][tx] = row < rows && col < cols ? row_element<kOp>(a, b, at(row, col, cols))
                                             : RowCombine<kOp>::identity();
    }
    __syncthreads();  // the whole tile is loaded before any thread reads another's element
    for (int k = ty; k < kRowTile; k += kRowThreadRows)
      acc = combine(acc, tile[tx][k]);
    __syncthreads();  // every thread is done with the tile before the next one overwrites it
  }
  partial[ty][tx] = acc;
  __syncthreads();
  for (int s = kRowThreadRows / 2; s > 0; s /= 2) {
    if (ty < s)
      partial[ty][tx] = combine(partial[ty][tx], partial[ty + s][tx]);
    __syncthreads();
  }
  if (ty == 0 && first_row + tx < rows)
    out[first_row + tx] = row_finish<kOp>(partial[0][tx], cols);
}
//! [row_tiled_kernel]

//! [column_tiled_kernel]
// Column means: the same block owns 32 columns and walks down them one tile at a time. Thread
// (tx, ty) owns column tx and takes tile rows ty, ty + 8, ...: the lanes of a warp read a *row*
// of the tile, 32 consecutive words. No conflict, with or without padding: padding only pays
// where a tile is read by column.
template <int kPad>
__global__ void column_tiled_kernel(const float* __restrict__ a, float* __restrict__ out, int rows,
                                    int cols) {
  __shared__ float tile[kRowTile][kRowTile + kPad];
  __shared__ float partial[kRowThreadRows][kRowTile];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int first_col = blockIdx.x * kRowTile;
  float acc = 0.0f;
  for (int first_row = 0; first_row < rows; first_row += kRowTile) {
    for (int k = ty; k < kRowTile; k += kRowThreadRows) {
      const int row = first_row + k;
      const int col = first_col + tx;
      tile[k][tx] = row < rows && col < cols ? a[at(row, col, cols)] : 0.0f;
    }
    __syncthreads();
    for (int k = ty; k < kRowTile; k += kRowThreadRows)
      acc += tile[k][tx];
    __syncthreads();
  }
  partial[ty][tx] = acc;
  __syncthreads();
  for (int s = kRowThreadRows / 2; s > 0; s /= 2) {
    if (ty < s)
      partial[ty][tx] += partial[ty + s][tx];
    __syncthreads();
  }
  if (ty == 0 && first_col + tx < cols)
    out[first_col + tx] = partial[0][tx] / static_cast<float>(rows);
}
//! [column_tiled_kernel]

template <int kPad>
void launch_tiled(RowOp op, const float* d_a, const float* d_b, float* d_out, int rows, int cols,
                  cudaStream_t stream) {
  const dim3 threads(kRowTile, kRowThreadRows);
  if (op == RowOp::ColumnMean) {
    column_tiled_kernel<kPad>
        <<<blocks_for(cols, kRowTile), threads, 0, stream>>>(d_a, d_out, rows, cols);
  } else {
    with_row_op(op, [&](auto k) {
      row_tiled_kernel<decltype(k)::value, kPad>
          <<<blocks_for(rows, kRowTile), threads, 0, stream>>>(d_a, d_b, d_out, rows, cols);
    });
  }
  CUDA_CHECK_LAST();
}

}  // namespace

void row_reduce_shared(RowOp op, const float* d_a, const float* d_b, float* d_out, int rows,
                       int cols, cudaStream_t stream) {
  launch_tiled<0>(op, d_a, d_b, d_out, rows, cols, stream);
}

void row_reduce_shared_padded(RowOp op, const float* d_a, const float* d_b, float* d_out, int rows,
                              int cols, cudaStream_t stream) {
  launch_tiled<1>(op, d_a, d_b, d_out, rows, cols, stream);
}

}  // namespace course::lesson05
