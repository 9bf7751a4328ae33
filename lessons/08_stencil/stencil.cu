// Lesson 08, the exercises: write each kernel, launch it, and delete the `throw` in its launcher.
// Work top to bottom: each rung changes one thing in the rung before it. Run the grader after
// each one (README.md, "How to work on this lesson"). Every rung must write *every* point:
// interior points get the stencil, boundary points (is_interior() false) a copy of the input.
#include "course/error.hpp"
#include "stencil_rungs.cuh"

namespace course::lesson08 {

namespace {
constexpr const char* kHere = "lessons/08_stencil/stencil.cu";
// Blocks of output tiles: ceil(n / out) along one dimension.
[[maybe_unused]] constexpr int tiles(int n, int out) {
  return (n + out - 1) / out;
}
}  // namespace

//! [shared_tiled_exercise]
// TODO(student): rung "shared_tiled". Blocks of kInTile^3 = 8 x 8 x 8 threads, one per point of
// an input tile; the block computes the kOutTile^3 = 6 x 6 x 6 points inside it.
//   1. Declare `__shared__ float tile[kInTile][kInTile][kInTile];` (index it [tz][ty][tx]).
//   2. Thread (tx, ty, tz) loads point x = blockIdx.x * kOutTile + tx - 1 (likewise y, z): the
//      "- 1" makes threads 0 and kInTile - 1 the halo. Load only points inside the grid.
//   3. __syncthreads(): a thread is about to read points that six other threads loaded.
//   4. Only threads with 1 <= tx, ty, tz <= kOutTile write, and only points inside the grid:
//      out = the stencil over tile[tz][ty][tx +- 1], [ty +- 1], [tz +- 1] for an interior
//      point; out = tile[tz][ty][tx] (a copy) for a boundary point. Never read a neighbour of a
//      boundary point: it may lie outside the grid, where nothing was loaded.
// Launch dim3(kInTile, kInTile, kInTile) threads per block and
// dim3(tiles(nx, kOutTile), tiles(ny, kOutTile), tiles(nz, kOutTile)) blocks.
__global__ void shared_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g,
                                    Coefficients c) {}
//! [shared_tiled_exercise]

void launch_shared_tiled(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                         cudaStream_t stream) {
  throw NotImplemented("shared_tiled", kHere);
}

//! [coarsened_z_exercise]
// TODO(student): rung "coarsened_z". A 2D block of kPlaneIn x kPlaneIn = 32 x 32 threads, one per
// point of an input plane (x = blockIdx.x * kPlaneOut + tx - 1, likewise y), marches along z
// through planes z_first = blockIdx.z * kPlanesPerBlock up to min(z_first + kPlanesPerBlock, nz).
//   1. Three shared planes, prev, cur and next, each [kPlaneIn][kPlaneIn].
//   2. Before the loop, load plane z_first - 1 (if z_first >= 1) into prev and z_first into cur.
//   3. Each step z: load plane z + 1 (if < nz) into next; __syncthreads(); threads with
//      1 <= tx, ty <= kPlaneOut and (x, y) in the grid write point (x, y, z): the stencil from
//      cur (x and y neighbours), prev and next, or a copy for a boundary point;
//      __syncthreads(); then move the planes down: prev = cur, cur = next (own point only).
//   4. Both barriers matter: say what each one protects in a comment.
// Keep every __syncthreads() where all threads of the block reach it (no early return).
// Launch dim3(kPlaneIn, kPlaneIn) threads per block and
// dim3(tiles(nx, kPlaneOut), tiles(ny, kPlaneOut), tiles(nz, kPlanesPerBlock)) blocks.
__global__ void coarsened_z_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g,
                                   Coefficients c) {}
//! [coarsened_z_exercise]

void launch_coarsened_z(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                        cudaStream_t stream) {
  throw NotImplemented("coarsened_z", kHere);
}

//! [register_tiled_exercise]
// TODO(student): rung "register_tiled". Copy coarsened_z_kernel and change one thing: a thread
// only ever reads its own point of the previous and the next plane, so keep those two in
// registers (float prev, cur, next). Only the current plane stays in shared memory,
// `__shared__ float cur_s[kPlaneIn][kPlaneIn]`, written from the register cur at the start of
// each step, before the first barrier. At the end of a step rotate the registers: prev = cur,
// cur = next. Same launch as coarsened_z.
__global__ void register_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g,
                                      Coefficients c) {}
//! [register_tiled_exercise]

void launch_register_tiled(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                           cudaStream_t stream) {
  throw NotImplemented("register_tiled", kHere);
}

}  // namespace course::lesson08
