// Lesson 12, the given rung: lesson 03's register tiles on BF16 inputs, the CUDA-core baseline
// that the tensor-core rungs are measured against.
#include "course/error.hpp"
#include "tensor_cores_rungs.cuh"

namespace course::lesson12 {

namespace {

//! [simt_bf16_kernel]
// Lesson 03's register_2d kernel with BF16 inputs: a block of 256 threads owns a 128 x 128 tile
// of C, each thread an 8 x 8 square of it, and the block steps along k by 8. The BF16 values are
// widened to float as they are stored into shared memory (exactly: a BF16 value is a float with
// its low 16 bits zero), so the inner loop is lesson 03's: 64 FFMA per 16 shared loads, on the
// CUDA cores. Both tiles are stored k-major ([p][row], [p][col]) so that a thread's 8 rows and 8
// columns at one p are consecutive floats. Reading B column-major along k means a warp's loads
// of B are strided: the price of a layout chosen for the tensor cores, paid by this rung alone.
constexpr int kBm = 128;
constexpr int kBn = 128;
constexpr int kBk = 8;
constexpr int kTm = 8;
constexpr int kTn = 8;
constexpr int kThreads = (kBm / kTm) * (kBn / kTn);

__device__ __forceinline__ void load4(const float* from, float* to) {
  const float4 v = *reinterpret_cast<const float4*>(from);
  to[0] = v.x;
  to[1] = v.y;
  to[2] = v.z;
  to[3] = v.w;
}

__global__ void __launch_bounds__(kThreads)
    simt_bf16_kernel(const bf16* __restrict__ a, const bf16* __restrict__ b, float* __restrict__ c,
                     int m, int n, int k) {
  __shared__ __align__(16) float a_tile[kBk][kBm];  // [p][row]
  __shared__ __align__(16) float b_tile[kBk][kBn];  // [p][col]
  const int tid = threadIdx.x;
  const int block_row = blockIdx.y * kBm;
  const int block_col = blockIdx.x * kBn;
  const int ty = tid / (kBn / kTn);
  const int tx = tid % (kBn / kTn);
  float acc[kTm][kTn] = {};
  float a_frag[kTm];
  float b_frag[kTn];
  for (int t = 0; t < k; t += kBk) {
    // Consecutive threads read consecutive p of one row of A (one column of B): 16 bytes per
    // row, zeros outside the matrices.
#pragma unroll
    for (int q = 0; q < kBm * kBk / kThreads; ++q) {
      const int i = tid + q * kThreads;
      const int row = i / kBk, p = i % kBk;
      a_tile[p][row] = block_row + row < m && t + p < k
                           ? __bfloat162float(a[at(block_row + row, t + p, k)])
                           : 0.0f;
      b_tile[p][row] = block_col + row < n && t + p < k
                           ? __bfloat162float(b[at(block_col + row, t + p, k)])
                           : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kBk; ++p) {
#pragma unroll
      for (int q = 0; q < kTm; q += 4)
        load4(&a_tile[p][ty * kTm + q], &a_frag[q]);
#pragma unroll
      for (int q = 0; q < kTn; q += 4)
        load4(&b_tile[p][tx * kTn + q], &b_frag[q]);
#pragma unroll
      for (int i = 0; i < kTm; ++i)
#pragma unroll
        for (int j = 0; j < kTn; ++j)
          acc[i][j] += a_frag[i] * b_frag[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTm; ++i) {
    const int row = block_row + ty * kTm + i;
#pragma unroll
    for (int j = 0; j < kTn; ++j) {
      const int col = block_col + tx * kTn + j;
      if (row < m && col < n)
        c[at(row, col, n)] = acc[i][j];
    }
  }
}
//! [simt_bf16_kernel]

}  // namespace

void launch_simt_bf16(const Problem& p, cudaStream_t stream) {
  const dim3 grid(blocks_for(p.n, kBn), blocks_for(p.m, kBm));
  simt_bf16_kernel<<<grid, kThreads, 0, stream>>>(p.a, p.b, p.c, p.m, p.n, p.k);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson12
