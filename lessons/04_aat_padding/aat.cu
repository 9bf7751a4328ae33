// Lesson 04, the exercises: write each kernel, launch it, and delete the `throw` in its launcher.
// Work top to bottom: each rung changes one thing in the rung before it. Run the grader after
// each one (README.md, "How to work on this lesson").
#include "aat_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson04 {

namespace {
constexpr const char* kHere = "lessons/04_aat_padding/aat.cu";
[[maybe_unused]] dim3 tile_grid(int n) {
  const int tiles = (n + kTile - 1) / kTile;
  return dim3(tiles, tiles);
}
}  // namespace

//! [tiled_padded_exercise]
// TODO(student): rung "tiled_padded". Copy tiled_unpadded_kernel from aat_given.cu and change
// one thing: declare at_tile as [kTile][kTile + 1]. Before you measure, work out the bank of
// at_tile[tx][q] for each tx of a warp, with rows of 33 floats (README, "Banks").
// Launch it like launch_tiled_unpadded: blocks of kTile x kTile threads over tile_grid(n).
__global__ void tiled_padded_kernel(const float* __restrict__ a, float* __restrict__ c, int n,
                                    int k) {}
//! [tiled_padded_exercise]

void launch_tiled_padded(const float* d_a, float* d_c, int n, int k, cudaStream_t stream) {
  throw NotImplemented("tiled_padded", kHere);
}

//! [transposed_store_exercise]
// TODO(student): rung "transposed_store". Start again from tiled_unpadded_kernel (no padding)
// and change where the second tile goes:
//   1. Keep the global read coalesced: thread (tx, ty) still reads A[j0 + ty][p0 + tx].
//   2. Store it transposed, at_tile[tx][ty], so that at_tile[q][r] holds A[j0 + r][p0 + q].
//   3. In the inner loop read at_tile[q][tx] (a row of the tile) instead of at_tile[tx][q].
// Then find the access that conflicts now, and count how often it runs per tile.
__global__ void transposed_store_kernel(const float* __restrict__ a, float* __restrict__ c, int n,
                                        int k) {}
//! [transposed_store_exercise]

void launch_transposed_store(const float* d_a, float* d_c, int n, int k, cudaStream_t stream) {
  throw NotImplemented("transposed_store", kHere);
}

//! [symmetric_exercise]
// TODO(student): rung "symmetric". C is symmetric, so compute only the tiles (bi, bj) with
// bi <= bj and write each off-diagonal tile twice.
//   1. Launch a 1-D grid of upper_tile_count(T) blocks (T = tiles per side, as in tile_grid) of
//      kTile x kTile threads; in the kernel, upper_tile(blockIdx.x, bi, bj) names the block's
//      tile: rows i0 = bi * kTile, columns j0 = bj * kTile.
//   2. Compute the tile exactly as tiled_padded_kernel does, and store it.
//   3. If bi != bj, also write the mirror C[j0 + ty][i0 + tx] = C[i0 + tx][j0 + ty]. Keep the
//      store coalesced: put each thread's sum into a padded __shared__ result tile, barrier,
//      then let thread (tx, ty) write result[tx][ty]. (Why may a diagonal block leave before
//      that barrier without deadlocking the others?)
//   4. Guard both stores: i0 + ... < n and j0 + ... < n.
__global__ void symmetric_kernel(const float* __restrict__ a, float* __restrict__ c, int n, int k) {
}
//! [symmetric_exercise]

void launch_symmetric(const float* d_a, float* d_c, int n, int k, cudaStream_t stream) {
  throw NotImplemented("symmetric", kHere);
}

}  // namespace course::lesson04
