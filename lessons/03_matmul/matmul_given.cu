// Lesson 03, the given rungs: one thread per element of C, every operand read from global memory.
// The two kernels differ only in which thread index walks which dimension of C.
#include "course/error.hpp"
#include "matmul_rungs.cuh"

namespace course::lesson03 {

namespace {

// Both given rungs launch blocks of 32 x 8 threads: a warp is one row of the block.
constexpr int kWarp = 32;
constexpr int kBlockRows = 8;

//! [naive_uncoalesced_kernel]
// C[row][col] = sum over p of A[row][p] * B[p][col], with threadIdx.x walking the rows: the
// course's counter-example (the sources' global-memory kernels are naive_kernel, README). The 32
// threads of a warp share a column and hold 32 different rows, so each load of A touches 32
// addresses k floats apart (32 memory transactions for 128 useful bytes), and the 32 stores of C
// are n floats apart. Only B is read well: one address for the whole warp.
__global__ void naive_uncoalesced_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                         float* __restrict__ c, int m, int n, int k) {
  const int row = blockIdx.x * kWarp + threadIdx.x;
  const int col = blockIdx.y * kBlockRows + threadIdx.y;
  if (row >= m || col >= n)
    return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p)
    sum += a[at(row, p, k)] * b[at(p, col, n)];
  c[at(row, col, n)] = sum;
}
//! [naive_uncoalesced_kernel]

//! [naive_kernel]
// The same kernel with the two thread indices swapped: threadIdx.x now walks the columns. A
// warp's 32 threads share a row: A[row][p] is one address for the whole warp (a broadcast), and
// B[p][col .. col + 31] and C[row][col .. col + 31] are 128 consecutive bytes each. Every
// multiply-add still costs two loads, mostly served by the L1 and L2 caches: this kernel is
// bound by cache bandwidth, not by arithmetic (README, "Napkin math").
__global__ void naive_kernel(const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ c, int m, int n, int k) {
  const int col = blockIdx.x * kWarp + threadIdx.x;
  const int row = blockIdx.y * kBlockRows + threadIdx.y;
  if (row >= m || col >= n)
    return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p)
    sum += a[at(row, p, k)] * b[at(p, col, n)];
  c[at(row, col, n)] = sum;
}
//! [naive_kernel]

}  // namespace

void launch_naive_uncoalesced(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                              cudaStream_t stream) {
  const dim3 grid(blocks_for(m, kWarp), blocks_for(n, kBlockRows));
  naive_uncoalesced_kernel<<<grid, dim3(kWarp, kBlockRows), 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST();
}

void launch_naive(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                  cudaStream_t stream) {
  const dim3 grid(blocks_for(n, kWarp), blocks_for(m, kBlockRows));
  naive_kernel<<<grid, dim3(kWarp, kBlockRows), 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson03
