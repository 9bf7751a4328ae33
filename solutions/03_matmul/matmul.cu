// Lesson 03, the exercises solved: shared-memory tiles, then a column of outputs per thread.
// Each rung changes one thing in the rung before it.
#include <stdexcept>
#include <string>

#include "course/error.hpp"
#include "matmul_rungs.cuh"

namespace course::lesson03 {

namespace {

//! [tiled_kernel]
// naive_kernel with its operands staged through shared memory. A block of TILE x TILE threads
// owns a TILE x TILE tile of C and walks along k one tile at a time: each thread loads one
// element of A's tile and one of B's (coalesced: threadIdx.x walks columns), then every thread
// reads TILE elements of each tile from shared memory. Each element loaded from global memory is
// now used TILE times, so global (cache) traffic drops by a factor TILE.
// Elements outside A or B are loaded as zeros: they add nothing to the sums, so ragged edges of
// M, N and K need no other special case. Threads outside C still load and wait at the barriers.
template <int TILE>
__global__ void __launch_bounds__(TILE* TILE)
    tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                 int m, int n, int k) {
  __shared__ float a_tile[TILE][TILE];
  __shared__ float b_tile[TILE][TILE];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int t = 0; t < k; t += TILE) {
    a_tile[ty][tx] = row < m && t + tx < k ? a[at(row, t + tx, k)] : 0.0f;
    b_tile[ty][tx] = t + ty < k && col < n ? b[at(t + ty, col, n)] : 0.0f;
    // The tiles are loaded by all the block's warps: wait until every element is in place.
    __syncthreads();
    // a_tile[ty][p] is one address per warp row (a broadcast); b_tile[p][tx] is 32 consecutive
    // words, one per bank: no bank conflicts.
#pragma unroll
    for (int p = 0; p < TILE; ++p)
      sum += a_tile[ty][p] * b_tile[p][tx];
    // Wait again, so that a fast warp does not overwrite the tiles with the next ones while a
    // slower warp is still reading them.
    __syncthreads();
  }
  if (row < m && col < n)
    c[at(row, col, n)] = sum;
}
//! [tiled_kernel]

template <int TILE>
void launch_tiled_at(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                     cudaStream_t stream) {
  const dim3 grid(blocks_for(n, TILE), blocks_for(m, TILE));
  tiled_kernel<TILE><<<grid, dim3(TILE, TILE), 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST();
}

//! [register_1d_kernel]
// The tiled kernel with eight outputs per thread. A block of 512 threads owns a 64 x 64 tile of
// C and steps along k by 8: each thread loads one element of A's 64 x 8 tile and one of B's
// 8 x 64 tile, then computes a column of kTm = 8 outputs. For each p it reads B's element once
// into a register and uses it for eight multiply-adds, with eight A elements that every thread
// of the warp reads at once (broadcasts). Shared-memory loads per multiply-add fall from 2 to
// 9/8, and the eight accumulators live in registers.
constexpr int kR1Bm = 64;  // rows of C per block
constexpr int kR1Bn = 64;  // columns of C per block
constexpr int kR1Bk = 8;   // k per step
constexpr int kR1Tm = 8;   // outputs per thread, down a column
constexpr int kR1Threads = kR1Bm * kR1Bn / kR1Tm;
static_assert(kR1Threads == kR1Bm * kR1Bk && kR1Threads == kR1Bk * kR1Bn,
              "one element of each tile per thread");

__global__ void __launch_bounds__(kR1Threads)
    register_1d_kernel(const float* __restrict__ a, const float* __restrict__ b,
                       float* __restrict__ c, int m, int n, int k) {
  __shared__ float a_tile[kR1Bm][kR1Bk];
  __shared__ float b_tile[kR1Bk][kR1Bn];
  const int tid = threadIdx.x;
  const int block_row = blockIdx.y * kR1Bm;
  const int block_col = blockIdx.x * kR1Bn;
  // Loading: consecutive threads take consecutive columns of each tile (coalesced reads).
  const int a_row = tid / kR1Bk, a_col = tid % kR1Bk;
  const int b_row = tid / kR1Bn, b_col = tid % kR1Bn;
  // Computing: a warp's 32 threads share row0 and take 32 consecutive columns.
  const int col = tid % kR1Bn;
  const int row0 = tid / kR1Bn * kR1Tm;
  float acc[kR1Tm] = {};
  for (int t = 0; t < k; t += kR1Bk) {
    a_tile[a_row][a_col] =
        block_row + a_row < m && t + a_col < k ? a[at(block_row + a_row, t + a_col, k)] : 0.0f;
    b_tile[b_row][b_col] =
        t + b_row < k && block_col + b_col < n ? b[at(t + b_row, block_col + b_col, n)] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kR1Bk; ++p) {
      const float b_value = b_tile[p][col];  // reused for kTm outputs
#pragma unroll
      for (int i = 0; i < kR1Tm; ++i)
        acc[i] += a_tile[row0 + i][p] * b_value;
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kR1Tm; ++i) {
    const int row = block_row + row0 + i;
    if (row < m && block_col + col < n)
      c[at(row, block_col + col, n)] = acc[i];
  }
}
//! [register_1d_kernel]

}  // namespace

void launch_tiled(int tile, const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                  cudaStream_t stream) {
  switch (tile) {
    case 4:
      return launch_tiled_at<4>(d_a, d_b, d_c, m, n, k, stream);
    case 8:
      return launch_tiled_at<8>(d_a, d_b, d_c, m, n, k, stream);
    case 16:
      return launch_tiled_at<16>(d_a, d_b, d_c, m, n, k, stream);
    case 32:
      return launch_tiled_at<32>(d_a, d_b, d_c, m, n, k, stream);
  }
  throw std::invalid_argument("tiled: tile must be 4, 8, 16 or 32, not " + std::to_string(tile));
}

void launch_register_1d(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                        cudaStream_t stream) {
  const dim3 grid(blocks_for(n, kR1Bn), blocks_for(m, kR1Bm));
  register_1d_kernel<<<grid, kR1Threads, 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson03
