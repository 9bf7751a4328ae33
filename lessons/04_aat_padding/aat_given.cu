// Lesson 04, the given rung: C = A·Aᵀ with two 32 x 32 tiles in shared memory, unpadded.
#include "aat_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson04 {

namespace {

//! [tiled_unpadded_kernel]
// One thread per element of C, blocks of 32 x 32 threads; block (bx, by) computes the tile of C
// at rows i0 = 32 by and columns j0 = 32 bx. C[i][j] is the dot product of rows i and j of A,
// so the block needs two strips of A: rows i0.. (for its rows of C) and rows j0.. (for its
// columns: row j of A is column j of Aᵀ). It walks along k, 32 columns of A at a time, and stages
// one 32 x 32 tile of each strip in shared memory. Both loads are coalesced: a warp (fixed ty)
// reads 32 consecutive floats of one row of A.
//
// The price is paid in the inner loop. A warp is 32 threads with the same ty and tx = 0..31, so
//   a_tile[ty][q]  is one address for the whole warp: a broadcast, one shared-memory step;
//   at_tile[tx][q] is word 32 tx + q for thread tx: bank (32 tx + q) mod 32 = q for all 32
//                  threads, a 32-way bank conflict, served in 32 steps.
// Every multiply-add of the loop waits for such a conflicted read.
__global__ void tiled_unpadded_kernel(const float* __restrict__ a, float* __restrict__ c, int n,
                                      int k) {
  __shared__ float a_tile[kTile][kTile];   // a_tile[r][q] = A[i0 + r][p0 + q]
  __shared__ float at_tile[kTile][kTile];  // at_tile[r][q] = A[j0 + r][p0 + q]
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int i0 = blockIdx.y * kTile;
  const int j0 = blockIdx.x * kTile;
  float sum = 0.0f;
  for (int p0 = 0; p0 < k; p0 += kTile) {
    a_tile[ty][tx] = load_or_zero(a, i0 + ty, p0 + tx, n, k);
    at_tile[ty][tx] = load_or_zero(a, j0 + ty, p0 + tx, n, k);
    // Both tiles must be complete before any thread reads another thread's element.
    __syncthreads();
    for (int q = 0; q < kTile; ++q)
      sum += a_tile[ty][q] * at_tile[tx][q];
    // And every thread must be done with them before the next pass overwrites them.
    __syncthreads();
  }
  if (i0 + ty < n && j0 + tx < n)
    c[at(i0 + ty, j0 + tx, n)] = sum;
}
//! [tiled_unpadded_kernel]

}  // namespace

void launch_tiled_unpadded(const float* d_a, float* d_c, int n, int k, cudaStream_t stream) {
  const int tiles = (n + kTile - 1) / kTile;
  tiled_unpadded_kernel<<<dim3(tiles, tiles), dim3(kTile, kTile), 0, stream>>>(d_a, d_c, n, k);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson04
