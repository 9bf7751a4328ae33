// Lesson 08, the stretch rungs solved: a register-tiled kernel tuned to stream at close to the
// copy bandwidth, and the Jacobi driver.
#include <utility>

#include "course/error.hpp"
#include "stencil_rungs.cuh"

namespace course::lesson08 {

namespace {

// The tuned kernel's shape. A block computes a 32 x 32 tile of outputs in x-y, aligned to the
// grid (x0 = 32 * blockIdx.x: every row a warp loads or stores is one 128-byte line), for
// kTunedPlanes planes. Its 32 x 8 threads own four rows each: rows ty, ty + 8, ty + 16, ty + 24.
constexpr int kTunedX = 32;                           // tile width: one warp
constexpr int kTunedThreadsY = 8;                     // 32 x 8 = 256 threads
constexpr int kTunedRows = 4;                         // rows per thread
constexpr int kTunedY = kTunedThreadsY * kTunedRows;  // tile height: 32
constexpr int kTunedPlanes = 24;  // planes per block: 22 z-chunks at 512^3, 5632 blocks

//! [tuned_kernel]
// What register_tiled leaves on the table, and how this kernel takes it:
//  - Idle halo threads and misaligned rows. register_tiled's warps load 32 floats starting one
//    float before a 30-float output row: two lines per row, and 12 % of the threads only load.
//    Here every thread computes, rows start on a line, and the halo comes from a few extra
//    loads: lanes 0-7 of each warp fetch the points just left and right of the warp's four rows
//    (from lines the neighbouring blocks load anyway, so mostly from L2), and warps 0 and 7
//    fetch the rows just below and above the tile.
//  - Too few bytes in flight. register_tiled loads one float per thread and waits for it in the
//    same step. Here a thread owns four rows and issues the loads of plane z + 2 at the start
//    of step z: four independent loads per thread are in flight while the step computes, which
//    is what it takes to keep HBM busy (lesson 02's copy needed the same). Each thread holds at
//    most one x-halo and one y-halo value, so that the registers go to loads in flight.
//  - Halo in z. 24 planes per block re-read 2 planes in 26 (8 %); measured on an H200, 24 planes
//    beat 16, 32 and 64 (76.9, 76.0 and 74.1 % of copy against 77.7 %): more, shorter blocks
//    balance the SMs better than fewer, longer ones save halo.
// A point is loaded (32 * 32 + 2 * 32 + 2 * 32) / 1024 * 26 / 24 = 1.22 times: 2.67 OP/B.
// __launch_bounds__(256, 6) holds the kernel to 40 registers (no spills on sm_90), so that six
// blocks, 48 warps, share an SM: 1536 threads with four loads each in flight.
__global__ void __launch_bounds__(kTunedX* kTunedThreadsY, 6)
    tuned_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g, Coefficients c) {
  // The current plane of the tile with a one-point frame (the halo); corners are never read.
  __shared__ float plane[kTunedY + 2][kTunedX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * kTunedX, y0 = blockIdx.y * kTunedY;
  const int x = x0 + tx;
  const int z_first = blockIdx.z * kTunedPlanes;
  const int z_end = min(z_first + kTunedPlanes, g.nz);  // the same for the whole block
  const std::size_t plane_size = static_cast<std::size_t>(g.nx) * g.ny;
  auto offset = [&](int px, int py) { return static_cast<std::size_t>(py) * g.nx + px; };
  auto load = [&](bool ok, std::size_t in_plane, int z) {
    return ok && z >= 0 && z < g.nz ? in[static_cast<std::size_t>(z) * plane_size + in_plane]
                                    : 0.0f;
  };

  // This thread's rows y0 + ty + 8 k: offset in a plane, and whether the point is in the grid.
  const std::size_t row0 = offset(x, y0 + ty);
  const std::size_t row_step = static_cast<std::size_t>(kTunedThreadsY) * g.nx;
  bool row_ok[kTunedRows];
#pragma unroll
  for (int k = 0; k < kTunedRows; ++k)
    row_ok[k] = x < g.nx && y0 + ty + k * kTunedThreadsY < g.ny;

  // Lanes 0-7 fetch the x-halo of the warp's rows: lane l takes row l / 2, on the left (x0 - 1)
  // for even l, on the right (x0 + 32) for odd l.
  const int hx_row = ty + (tx / 2 % kTunedRows) * kTunedThreadsY;  // the row within the tile
  const int hx = tx % 2 == 0 ? x0 - 1 : x0 + kTunedX;
  const bool hx_ok = tx < 2 * kTunedRows && hx >= 0 && hx < g.nx && y0 + hx_row < g.ny;
  const std::size_t hx_at = hx_ok ? offset(hx, y0 + hx_row) : 0;
  float* const hx_slot = &plane[hx_row + 1][tx % 2 == 0 ? 0 : kTunedX + 1];
  // Warps 0 and 7 fetch the y-halo: row y0 - 1 (below the tile) or y0 + 32 (above it).
  const bool hy_warp = ty == 0 || ty == kTunedThreadsY - 1;
  const int hy = ty == 0 ? y0 - 1 : y0 + kTunedY;
  const bool hy_ok = hy_warp && x < g.nx && hy >= 0 && hy < g.ny;
  const std::size_t hy_at = hy_ok ? offset(x, hy) : 0;
  float* const hy_slot = &plane[ty == 0 ? 0 : kTunedY + 1][tx + 1];

  // Registers: planes z - 1, z, z + 1 of this thread's rows, and its halo points of plane z.
  float prev[kTunedRows], cur[kTunedRows], next[kTunedRows];
#pragma unroll
  for (int k = 0; k < kTunedRows; ++k) {
    prev[k] = load(row_ok[k], row0 + k * row_step, z_first - 1);
    cur[k] = load(row_ok[k], row0 + k * row_step, z_first);
    next[k] = load(row_ok[k], row0 + k * row_step, z_first + 1);
  }
  float halo_x = load(hx_ok, hx_at, z_first);
  float halo_y = load(hy_ok, hy_at, z_first);

  for (int z = z_first; z < z_end; ++z) {
    //! [tuned_step]
    // Issue the loads early: plane z + 2 (used two steps from now) and the halo of plane z + 1
    // (used next step). Nothing in this step waits for them.
    float ahead[kTunedRows];
#pragma unroll
    for (int k = 0; k < kTunedRows; ++k)
      ahead[k] = load(row_ok[k], row0 + k * row_step, z + 2);
    const float halo_x_next = load(hx_ok, hx_at, z + 1);
    const float halo_y_next = load(hy_ok, hy_at, z + 1);

    // Publish plane z: this thread's rows, then its halo points.
#pragma unroll
    for (int k = 0; k < kTunedRows; ++k)
      plane[ty + k * kTunedThreadsY + 1][tx + 1] = cur[k];
    if (tx < 2 * kTunedRows)
      *hx_slot = halo_x;
    if (hy_warp)
      *hy_slot = halo_y;
    // The plane must be complete before any thread reads its neighbours' points.
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTunedRows; ++k) {
      if (!row_ok[k])
        continue;
      const int r = ty + k * kTunedThreadsY + 1;  // row in `plane`
      out[static_cast<std::size_t>(z) * plane_size + row0 + k * row_step] =
          !is_interior(x, y0 + r - 1, z, g)
              ? cur[k]
              : c.c0 * cur[k] + c.c1 * plane[r][tx] + c.c2 * plane[r][tx + 2] +
                    c.c3 * plane[r - 1][tx + 1] + c.c4 * plane[r + 1][tx + 1] + c.c5 * prev[k] +
                    c.c6 * next[k];
    }
    // Every thread must be done reading the plane before the next step overwrites it.
    __syncthreads();
    //! [tuned_step]
#pragma unroll
    for (int k = 0; k < kTunedRows; ++k) {
      prev[k] = cur[k];
      cur[k] = next[k];
      next[k] = ahead[k];
    }
    halo_x = halo_x_next;
    halo_y = halo_y_next;
  }
}
//! [tuned_kernel]

}  // namespace

void launch_tuned(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                  cudaStream_t stream) {
  const dim3 blocks((grid.nx + kTunedX - 1) / kTunedX, (grid.ny + kTunedY - 1) / kTunedY,
                    (grid.nz + kTunedPlanes - 1) / kTunedPlanes);
  tuned_kernel<<<blocks, dim3(kTunedX, kTunedThreadsY), 0, stream>>>(d_in, d_out, grid, c);
  CUDA_CHECK_LAST();
}

//! [jacobi_driver]
// Each sweep reads the field the sweep before wrote, so one buffer cannot be both input and
// output (a thread would read neighbours that others have already updated). Two buffers take
// turns instead: sweep k reads one and writes the other, and swapping the two pointers costs
// nothing. Boundary points are copied by every sweep, so both buffers hold the boundary after
// the first. The launches queue on one stream, so each sweep starts after the one before ends.
float* run_jacobi(float* d_a, float* d_b, Grid grid, const Coefficients& c, int sweeps,
                  Variant kernel, cudaStream_t stream) {
  float* src = d_a;
  float* dst = d_b;
  for (int k = 0; k < sweeps; ++k) {
    stencil(kernel, src, dst, grid, c, stream);
    std::swap(src, dst);
  }
  return src;  // the buffer the last sweep wrote
}
//! [jacobi_driver]

}  // namespace course::lesson08
