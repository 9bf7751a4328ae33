// Lesson 08, the exercises solved. Each rung changes one thing in the rung before it.
#include "course/error.hpp"
#include "stencil_rungs.cuh"

namespace course::lesson08 {

namespace {

// Blocks of output tiles: ceil(n / out) along one dimension.
constexpr int tiles(int n, int out) {
  return (n + out - 1) / out;
}

//! [shared_tiled_kernel]
// One thread per point of an 8 x 8 x 8 input tile: every thread loads one point (the block's
// 6 x 6 x 6 outputs and the halo around them) into shared memory, and only the inner 6^3
// threads compute. Each loaded point now serves up to seven outputs instead of one, but the
// halo is large: 512 loads for 216 outputs, 13/4 * (6/8)^3 = 1.37 OP/B at best, and a warp
// covers four rows of eight floats, so its loads are 32-byte pieces of four different lines.
__global__ void shared_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g,
                                    Coefficients c) {
  __shared__ float tile[kInTile][kInTile][kInTile];
  const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  // Thread t of a dimension loads input point (block start - 1 + t): t = 0 and t = kInTile - 1
  // are the halo, t = 1 ... kOutTile the block's own outputs.
  const int x = blockIdx.x * kOutTile + tx - 1;
  const int y = blockIdx.y * kOutTile + ty - 1;
  const int z = blockIdx.z * kOutTile + tz - 1;
  const bool in_grid = x >= 0 && x < g.nx && y >= 0 && y < g.ny && z >= 0 && z < g.nz;
  if (in_grid)
    tile[tz][ty][tx] = in[at(x, y, z, g)];
  // Every thread reads six points that other threads loaded.
  __syncthreads();
  // Halo threads only load: the point they hold belongs to a neighbouring block, which writes it.
  const bool owns_output =
      tx >= 1 && tx <= kOutTile && ty >= 1 && ty <= kOutTile && tz >= 1 && tz <= kOutTile;
  if (!in_grid || !owns_output)
    return;
  const float centre = tile[tz][ty][tx];
  // An interior point's six neighbours are in the grid, hence loaded; a boundary point reads
  // none of them (they may lie outside the grid, where nothing was loaded).
  out[at(x, y, z, g)] = !is_interior(x, y, z, g)
                            ? centre
                            : c.c0 * centre + c.c1 * tile[tz][ty][tx - 1] +
                                  c.c2 * tile[tz][ty][tx + 1] + c.c3 * tile[tz][ty - 1][tx] +
                                  c.c4 * tile[tz][ty + 1][tx] + c.c5 * tile[tz - 1][ty][tx] +
                                  c.c6 * tile[tz + 1][ty][tx];
}
//! [shared_tiled_kernel]

//! [coarsened_z_kernel]
// Thread coarsening along z: a 32 x 32 block (one thread per point of a plane, halo included)
// marches through kPlanesPerBlock planes, keeping the previous, current and next plane in
// shared memory. Each step loads one new plane and computes 30 x 30 outputs, so a point is
// loaded (32/30)^2 * (34/32) = 1.21 times instead of (8/6)^3 = 2.37: 2.69 OP/B. A warp now loads
// a whole 32-float row, and 1024 threads per block fit where 32^3 could not.
__global__ void __launch_bounds__(kPlaneIn* kPlaneIn)
    coarsened_z_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g,
                       Coefficients c) {
  __shared__ float prev[kPlaneIn][kPlaneIn];
  __shared__ float cur[kPlaneIn][kPlaneIn];
  __shared__ float next[kPlaneIn][kPlaneIn];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * kPlaneOut + tx - 1;
  const int y = blockIdx.y * kPlaneOut + ty - 1;
  const int z_first = blockIdx.z * kPlanesPerBlock;
  const int z_end = min(z_first + kPlanesPerBlock, g.nz);  // the same for the whole block
  const bool in_plane = x >= 0 && x < g.nx && y >= 0 && y < g.ny;
  const bool owns_output = tx >= 1 && tx <= kPlaneOut && ty >= 1 && ty <= kPlaneOut;
  if (in_plane && z_first >= 1)
    prev[ty][tx] = in[at(x, y, z_first - 1, g)];
  if (in_plane)
    cur[ty][tx] = in[at(x, y, z_first, g)];
  for (int z = z_first; z < z_end; ++z) {
    if (in_plane && z + 1 < g.nz)
      next[ty][tx] = in[at(x, y, z + 1, g)];
    // The three planes must be complete (this step's load, last step's rotation) before any
    // thread reads its neighbours' points.
    __syncthreads();
    if (in_plane && owns_output) {
      const float centre = cur[ty][tx];
      out[at(x, y, z, g)] = !is_interior(x, y, z, g)
                                ? centre
                                : c.c0 * centre + c.c1 * cur[ty][tx - 1] + c.c2 * cur[ty][tx + 1] +
                                      c.c3 * cur[ty - 1][tx] + c.c4 * cur[ty + 1][tx] +
                                      c.c5 * prev[ty][tx] + c.c6 * next[ty][tx];
    }
    // Every thread must be done reading the planes before they move down one.
    __syncthreads();
    prev[ty][tx] = cur[ty][tx];
    cur[ty][tx] = next[ty][tx];
  }
}
//! [coarsened_z_kernel]

//! [register_tiled_kernel]
// The coarsened kernel with the previous and next planes in registers. A thread reads only its
// own point of those two planes, so nobody else needs them in shared memory; only the current
// plane, whose x and y neighbours belong to other threads, stays shared: a third of the shared
// memory, and one shared store per step instead of two copies. Global traffic is unchanged.
__global__ void __launch_bounds__(kPlaneIn* kPlaneIn)
    register_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g,
                          Coefficients c) {
  __shared__ float cur_s[kPlaneIn][kPlaneIn];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * kPlaneOut + tx - 1;
  const int y = blockIdx.y * kPlaneOut + ty - 1;
  const int z_first = blockIdx.z * kPlanesPerBlock;
  const int z_end = min(z_first + kPlanesPerBlock, g.nz);
  const bool in_plane = x >= 0 && x < g.nx && y >= 0 && y < g.ny;
  const bool owns_output = tx >= 1 && tx <= kPlaneOut && ty >= 1 && ty <= kPlaneOut;
  float prev = 0.0f, cur = 0.0f, next = 0.0f;
  if (in_plane && z_first >= 1)
    prev = in[at(x, y, z_first - 1, g)];
  if (in_plane)
    cur = in[at(x, y, z_first, g)];
  for (int z = z_first; z < z_end; ++z) {
    if (in_plane && z + 1 < g.nz)
      next = in[at(x, y, z + 1, g)];
    cur_s[ty][tx] = cur;
    // The current plane must be complete before any thread reads its neighbours' points.
    __syncthreads();
    if (in_plane && owns_output)
      out[at(x, y, z, g)] = !is_interior(x, y, z, g)
                                ? cur
                                : c.c0 * cur + c.c1 * cur_s[ty][tx - 1] + c.c2 * cur_s[ty][tx + 1] +
                                      c.c3 * cur_s[ty - 1][tx] + c.c4 * cur_s[ty + 1][tx] +
                                      c.c5 * prev + c.c6 * next;
    // Every thread must be done reading cur_s before the next step overwrites it.
    __syncthreads();
    prev = cur;
    cur = next;
  }
}
//! [register_tiled_kernel]

dim3 plane_blocks(Grid g) {
  return dim3(tiles(g.nx, kPlaneOut), tiles(g.ny, kPlaneOut), tiles(g.nz, kPlanesPerBlock));
}

}  // namespace

void launch_shared_tiled(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                         cudaStream_t stream) {
  const dim3 blocks(tiles(grid.nx, kOutTile), tiles(grid.ny, kOutTile), tiles(grid.nz, kOutTile));
  shared_tiled_kernel<<<blocks, dim3(kInTile, kInTile, kInTile), 0, stream>>>(d_in, d_out, grid, c);
  CUDA_CHECK_LAST();
}

void launch_coarsened_z(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                        cudaStream_t stream) {
  coarsened_z_kernel<<<plane_blocks(grid), dim3(kPlaneIn, kPlaneIn), 0, stream>>>(d_in, d_out, grid,
                                                                                  c);
  CUDA_CHECK_LAST();
}

void launch_register_tiled(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                           cudaStream_t stream) {
  register_tiled_kernel<<<plane_blocks(grid), dim3(kPlaneIn, kPlaneIn), 0, stream>>>(d_in, d_out,
                                                                                     grid, c);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson08
