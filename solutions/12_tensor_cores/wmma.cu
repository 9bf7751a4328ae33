// Lesson 12, the wmma rung solved: the tensor cores through CUDA C++'s fragment API. Each warp
// owns 64 x 32 of the block's tile as 4 x 2 accumulator fragments of 16 x 16.
#include <mma.h>

#include <cstdint>

#include "course/error.hpp"
#include "tensor_cores_rungs.cuh"

namespace course::lesson12 {

namespace {

//! [wmma_kernel]
// A block of 8 warps owns a 128 x 128 tile of C and steps along k by 32. Each step it stages
// 128 x 32 of A and of B in shared memory (16-byte loads, zeros past the edges), then each warp
// loads its fragments from there and issues 4 x 2 x 2 mma_sync. Rows are padded from 32 to 40
// values (80 bytes) so that the rows a fragment load reads start in different banks; a
// fragment's pointer must stay 32-byte aligned, which 16 rows of 80 bytes and steps of 16 values
// keep. B is stored column by column, as it is in memory: a col_major matrix_b fragment.
constexpr int kBm = 128;
constexpr int kBn = 128;
constexpr int kBk = 32;
constexpr int kLd = kBk + 8;  // padded row, in values
constexpr int kThreads = 256;
constexpr int kWarpM = 64;
constexpr int kWarpN = 32;

__global__ void __launch_bounds__(kThreads) wmma_kernel(Problem p) {
#if __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  __shared__ __align__(32) bf16 a_tile[kBm][kLd];
  __shared__ __align__(32) bf16 b_tile[kBn][kLd];  // [col][k]
  __shared__ __align__(32) float staging[kThreads / 32][16 * 16];
  const int block_row = blockIdx.y * kBm, block_col = blockIdx.x * kBn;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_row = warp / (kBn / kWarpN) * kWarpM;
  const int warp_col = warp % (kBn / kWarpN) * kWarpN;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kWarpM / 16][kWarpN / 16];
#pragma unroll
  for (int i = 0; i < kWarpM / 16; ++i)
#pragma unroll
    for (int j = 0; j < kWarpN / 16; ++j)
      wmma::fill_fragment(acc[i][j], 0.0f);
  for (int t = 0; t < p.k; t += kBk) {
    // 128 rows x 4 chunks of 8 values per operand: 2 chunks of each per thread.
#pragma unroll
    for (int q = 0; q < kBm * kBk / 8 / kThreads; ++q) {
      const int i = threadIdx.x + q * kThreads;
      const int row = i / (kBk / 8), chunk = i % (kBk / 8);
      const int k0 = t + chunk * 8;
      const uint4 zero{0, 0, 0, 0};
      const bool a_in = block_row + row < p.m && k0 < p.k;
      const bool b_in = block_col + row < p.n && k0 < p.k;
      *reinterpret_cast<uint4*>(&a_tile[row][chunk * 8]) =
          a_in ? *reinterpret_cast<const uint4*>(p.a + at(block_row + row, k0, p.k)) : zero;
      *reinterpret_cast<uint4*>(&b_tile[row][chunk * 8]) =
          b_in ? *reinterpret_cast<const uint4*>(p.b + at(block_col + row, k0, p.k)) : zero;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBk; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a[kWarpM / 16];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> b[kWarpN / 16];
#pragma unroll
      for (int i = 0; i < kWarpM / 16; ++i)
        wmma::load_matrix_sync(a[i], &a_tile[warp_row + i * 16][kk], kLd);
#pragma unroll
      for (int j = 0; j < kWarpN / 16; ++j)
        wmma::load_matrix_sync(b[j], &b_tile[warp_col + j * 16][kk], kLd);
#pragma unroll
      for (int i = 0; i < kWarpM / 16; ++i)
#pragma unroll
        for (int j = 0; j < kWarpN / 16; ++j)
          wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  // A fragment's layout in registers is unspecified: store each through the warp's staging
  // square, then write what lies inside C.
#pragma unroll
  for (int i = 0; i < kWarpM / 16; ++i)
#pragma unroll
    for (int j = 0; j < kWarpN / 16; ++j) {
      wmma::store_matrix_sync(staging[warp], acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 16 * 16; e += 32) {
        const int row = block_row + warp_row + i * 16 + e / 16;
        const int col = block_col + warp_col + j * 16 + e % 16;
        if (row < p.m && col < p.n)
          p.c[at(row, col, p.n)] = staging[warp][e];
      }
      __syncwarp();
    }
#endif
}
//! [wmma_kernel]

}  // namespace

void launch_wmma(const Problem& p, cudaStream_t stream) {
  const dim3 grid(blocks_for(p.n, kBn), blocks_for(p.m, kBm));
  wmma_kernel<<<grid, kThreads, 0, stream>>>(p);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson12
