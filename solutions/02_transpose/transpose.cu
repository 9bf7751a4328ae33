// Lesson 02, the exercises solved. Each rung changes one thing in the rung before it.
#include <cstdint>

#include "course/error.hpp"
#include "transpose_rungs.cuh"

namespace course::lesson02 {

namespace {

dim3 tiles(int rows, int cols) { return dim3((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile); }

//! [tiled_kernel]
// The naive kernel's strided writes, fixed: the block reads its tile row by row (coalesced) into
// shared memory, and writes the transposed tile row by row (coalesced) from it. The price moves
// into shared memory: the write phase reads the tile by column, tile[threadIdx.x][...], and the
// 32 threads of a warp then hit addresses 32 floats apart, all in one bank: a 32-way conflict.
__global__ void tiled_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                             int cols) {
  __shared__ float tile[kTile][kTile];
  const int col = blockIdx.x * kTile + threadIdx.x;
  const int row = blockIdx.y * kTile + threadIdx.y;
  if (row < rows && col < cols) tile[threadIdx.y][threadIdx.x] = in[at(row, col, cols)];
  // Every element of the tile must be in place before any thread reads another thread's element.
  __syncthreads();
  // The block's tile (by, bx) of the input is the tile (bx, by) of the output.
  const int out_col = blockIdx.y * kTile + threadIdx.x;  // an input row
  const int out_row = blockIdx.x * kTile + threadIdx.y;  // an input column
  if (out_row < cols && out_col < rows)
    out[at(out_row, out_col, rows)] = tile[threadIdx.x][threadIdx.y];
}
//! [tiled_kernel]

//! [padded_kernel]
// The tiled kernel with one padding column. A row of the tile is now 33 floats, so the column
// read tile[threadIdx.x][c] puts thread t at bank (33 t + c) mod 32 = (t + c) mod 32: 32
// different banks, no conflict. The padding costs 128 bytes of shared memory per block.
__global__ void padded_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                              int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int col = blockIdx.x * kTile + threadIdx.x;
  const int row = blockIdx.y * kTile + threadIdx.y;
  if (row < rows && col < cols) tile[threadIdx.y][threadIdx.x] = in[at(row, col, cols)];
  __syncthreads();
  const int out_col = blockIdx.y * kTile + threadIdx.x;
  const int out_row = blockIdx.x * kTile + threadIdx.y;
  if (out_row < cols && out_col < rows)
    out[at(out_row, out_col, rows)] = tile[threadIdx.x][threadIdx.y];
}
//! [padded_kernel]

//! [coarsened_kernel]
// The padded kernel with a quarter of the threads: blocks of 32 x 8, each thread moving the four
// elements kBlockRows rows apart. The four loads are independent, so each thread has four in
// flight before the barrier, and the block's index arithmetic is shared by four elements.
constexpr int kBlockRows = 8;

__global__ void coarsened_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                                 int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int col = blockIdx.x * kTile + threadIdx.x;
  const int row = blockIdx.y * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kBlockRows)
    if (row + j < rows && col < cols) tile[threadIdx.y + j][threadIdx.x] = in[at(row + j, col, cols)];
  __syncthreads();
  const int out_col = blockIdx.y * kTile + threadIdx.x;
  const int out_row = blockIdx.x * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kBlockRows)
    if (out_row + j < cols && out_col < rows)
      out[at(out_row + j, out_col, rows)] = tile[threadIdx.x][threadIdx.y + j];
}
//! [coarsened_kernel]

//! [vectorized_kernel]
// Reaching for the copy ceiling: a 64 x 64 tile per block of 256 threads, moved with 16-byte
// loads and stores. Each thread issues four independent float4 loads (64 bytes) before the
// barrier, so a block keeps 16 KB in flight where the coarsened kernel kept 4 KB, and a quarter
// as many memory instructions move the same bytes. The tile is stored as floats with one
// padding column: a float4 is written as four floats into a row, and read back as four floats
// down a column; both phases see at most two-way bank conflicts.
constexpr int kVecTile = 64;
constexpr int kVecThreads = 256;
constexpr int kVecRowsPerPass = kVecThreads / (kVecTile / 4);  // 16 rows per pass of the block

__global__ void __launch_bounds__(kVecThreads)
    vectorized_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kVecTile][kVecTile + 1];
  const int quad = threadIdx.x % (kVecTile / 4);  // which float4 of a 64-float row
  const int lane_row = threadIdx.x / (kVecTile / 4);
  const int tile_row = blockIdx.y * kVecTile;
  const int tile_col = blockIdx.x * kVecTile;

  // Load: all four loads are issued before any is used. rows and cols are multiples of 4 here,
  // so a float4 is either wholly inside the matrix or wholly outside.
  float4 v[kVecTile / kVecRowsPerPass];
#pragma unroll
  for (int k = 0; k < kVecTile / kVecRowsPerPass; ++k) {
    const int row = tile_row + lane_row + k * kVecRowsPerPass;
    const int col = tile_col + 4 * quad;
    v[k] = row < rows && col < cols ? *reinterpret_cast<const float4*>(in + at(row, col, cols))
                                    : make_float4(0.f, 0.f, 0.f, 0.f);
  }
#pragma unroll
  for (int k = 0; k < kVecTile / kVecRowsPerPass; ++k) {
    float* dst = &tile[lane_row + k * kVecRowsPerPass][4 * quad];
    dst[0] = v[k].x;
    dst[1] = v[k].y;
    dst[2] = v[k].z;
    dst[3] = v[k].w;
  }
  __syncthreads();

  // Store: output row = input column, output float4 = four consecutive input rows.
#pragma unroll
  for (int k = 0; k < kVecTile / kVecRowsPerPass; ++k) {
    const int local = lane_row + k * kVecRowsPerPass;  // input column within the tile
    const int out_row = tile_col + local;
    const int out_col = tile_row + 4 * quad;
    if (out_row < cols && out_col < rows) {
      const float4 w = make_float4(tile[4 * quad][local], tile[4 * quad + 1][local],
                                   tile[4 * quad + 2][local], tile[4 * quad + 3][local]);
      *reinterpret_cast<float4*>(out + at(out_row, out_col, rows)) = w;
    }
  }
}
//! [vectorized_kernel]

bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

}  // namespace

void launch_tiled(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream) {
  tiled_kernel<<<tiles(rows, cols), dim3(kTile, kTile), 0, stream>>>(d_in, d_out, rows, cols);
  CUDA_CHECK_LAST();
}

void launch_padded(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream) {
  padded_kernel<<<tiles(rows, cols), dim3(kTile, kTile), 0, stream>>>(d_in, d_out, rows, cols);
  CUDA_CHECK_LAST();
}

void launch_coarsened(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream) {
  coarsened_kernel<<<tiles(rows, cols), dim3(kTile, kBlockRows), 0, stream>>>(d_in, d_out, rows,
                                                                               cols);
  CUDA_CHECK_LAST();
}

void launch_vectorized(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream) {
  // float4 access needs every row to start on a 16-byte boundary, in and out.
  if (rows % 4 != 0 || cols % 4 != 0 || !aligned16(d_in) || !aligned16(d_out))
    return launch_coarsened(d_in, d_out, rows, cols, stream);
  const dim3 grid((cols + kVecTile - 1) / kVecTile, (rows + kVecTile - 1) / kVecTile);
  vectorized_kernel<<<grid, kVecThreads, 0, stream>>>(d_in, d_out, rows, cols);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson02
