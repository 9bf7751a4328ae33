// Lesson 04, the exercises solved. Each rung changes one thing in the rung before it.
#include "aat_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson04 {

namespace {

dim3 tile_grid(int n) {
  const int tiles = (n + kTile - 1) / kTile;
  return dim3(tiles, tiles);
}

//! [tiled_padded_kernel]
// The given kernel with one padding column in the tile that is read by column. A row of at_tile
// is now 33 floats, so thread tx reading at_tile[tx][q] touches word 33 tx + q, in bank
// (33 tx + q) mod 32 = (tx + q) mod 32: 32 different banks, one step instead of 32. a_tile
// needs no padding: the warp reads it at one address (a broadcast). The padding costs 128 bytes
// of shared memory per block.
__global__ void tiled_padded_kernel(const float* __restrict__ a, float* __restrict__ c, int n,
                                    int k) {
  __shared__ float a_tile[kTile][kTile];       // a_tile[r][q] = A[i0 + r][p0 + q]
  __shared__ float at_tile[kTile][kTile + 1];  // as before; column 32 is never used
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int i0 = blockIdx.y * kTile;
  const int j0 = blockIdx.x * kTile;
  float sum = 0.0f;
  for (int p0 = 0; p0 < k; p0 += kTile) {
    a_tile[ty][tx] = load_or_zero(a, i0 + ty, p0 + tx, n, k);
    at_tile[ty][tx] = load_or_zero(a, j0 + ty, p0 + tx, n, k);
    __syncthreads();
    for (int q = 0; q < kTile; ++q)
      sum += a_tile[ty][q] * at_tile[tx][q];
    __syncthreads();
  }
  if (i0 + ty < n && j0 + tx < n)
    c[at(i0 + ty, j0 + tx, n)] = sum;
}
//! [tiled_padded_kernel]

//! [transposed_store_kernel]
// No padding: the second tile is written into shared memory transposed, at_tile[q][r], so that
// it holds a tile of Aᵀ laid out as Aᵀ (like the B tile of a general matrix product). The inner
// loop then reads at_tile[q][tx], word 32 q + tx, bank tx: a row, conflict-free.
// The conflict has moved, not vanished: the store at_tile[tx][ty] puts the warp's 32 threads
// (fixed ty) at words 32 tx + ty, all in bank ty: 32-way. But a thread stores once per tile and
// reads 32 times, so the conflicted steps fall from 32 per tile to one.
__global__ void transposed_store_kernel(const float* __restrict__ a, float* __restrict__ c, int n,
                                        int k) {
  __shared__ float a_tile[kTile][kTile];  // a_tile[r][q] = A[i0 + r][p0 + q]
  __shared__ float at_tile[kTile][kTile];  // at_tile[q][r] = A[j0 + r][p0 + q] = Aᵀ[p0 + q][j0 + r]
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int i0 = blockIdx.y * kTile;
  const int j0 = blockIdx.x * kTile;
  float sum = 0.0f;
  for (int p0 = 0; p0 < k; p0 += kTile) {
    a_tile[ty][tx] = load_or_zero(a, i0 + ty, p0 + tx, n, k);
    at_tile[tx][ty] = load_or_zero(a, j0 + ty, p0 + tx, n, k);  // the global read stays coalesced
    __syncthreads();
    for (int q = 0; q < kTile; ++q)
      sum += a_tile[ty][q] * at_tile[q][tx];
    __syncthreads();
  }
  if (i0 + ty < n && j0 + tx < n)
    c[at(i0 + ty, j0 + tx, n)] = sum;
}
//! [transposed_store_kernel]

//! [symmetric_kernel]
// The padded kernel, launched only over the tiles on and above the diagonal: C[j][i] = C[i][j],
// so a block that computes the tile (bi, bj) with bi < bj also writes its mirror (bj, bi), and
// (T + 1) T / 2 blocks do the work of T². Blocks are numbered along a 1-D grid; upper_tile()
// turns the number into (bi, bj).
// The mirror is the tile transposed. Writing it straight from registers would send a warp's 32
// threads (consecutive j) to 32 different rows of C: uncoalesced. So the block stages its results
// in a padded shared tile and writes the mirror row by row, reading the tile by column (the
// padding keeps that read conflict-free).
__global__ void symmetric_kernel(const float* __restrict__ a, float* __restrict__ c, int n, int k) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float at_tile[kTile][kTile + 1];
  __shared__ float result[kTile][kTile + 1];  // result[r][q] = C[i0 + r][j0 + q]
  int bi = 0;
  int bj = 0;
  upper_tile(blockIdx.x, bi, bj);
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int i0 = bi * kTile;
  const int j0 = bj * kTile;
  float sum = 0.0f;
  for (int p0 = 0; p0 < k; p0 += kTile) {
    a_tile[ty][tx] = load_or_zero(a, i0 + ty, p0 + tx, n, k);
    at_tile[ty][tx] = load_or_zero(a, j0 + ty, p0 + tx, n, k);
    __syncthreads();
    for (int q = 0; q < kTile; ++q)
      sum += a_tile[ty][q] * at_tile[tx][q];
    __syncthreads();
  }
  if (i0 + ty < n && j0 + tx < n)
    c[at(i0 + ty, j0 + tx, n)] = sum;
  // A diagonal tile is its own mirror: its block has computed every element already. The test
  // is the same for the whole block, so no thread skips the barrier below alone.
  if (bi == bj)
    return;
  result[ty][tx] = sum;
  __syncthreads();
  // Thread (tx, ty) writes C[j0 + ty][i0 + tx] = C[i0 + tx][j0 + ty] = result[tx][ty]:
  // consecutive tx, consecutive addresses.
  if (j0 + ty < n && i0 + tx < n)
    c[at(j0 + ty, i0 + tx, n)] = result[tx][ty];
}
//! [symmetric_kernel]

}  // namespace

void launch_tiled_padded(const float* d_a, float* d_c, int n, int k, cudaStream_t stream) {
  tiled_padded_kernel<<<tile_grid(n), dim3(kTile, kTile), 0, stream>>>(d_a, d_c, n, k);
  CUDA_CHECK_LAST();
}

void launch_transposed_store(const float* d_a, float* d_c, int n, int k, cudaStream_t stream) {
  transposed_store_kernel<<<tile_grid(n), dim3(kTile, kTile), 0, stream>>>(d_a, d_c, n, k);
  CUDA_CHECK_LAST();
}

void launch_symmetric(const float* d_a, float* d_c, int n, int k, cudaStream_t stream) {
  const unsigned blocks = upper_tile_count((n + kTile - 1) / kTile);
  symmetric_kernel<<<blocks, dim3(kTile, kTile), 0, stream>>>(d_a, d_c, n, k);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson04
