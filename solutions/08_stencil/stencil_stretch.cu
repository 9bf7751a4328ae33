// Lesson 08, the stretch rungs solved: a register-tiled kernel tuned to stream at close to the
// copy bandwidth, and the Jacobi driver.
#include <cuda_pipeline.h>

#include <cstdint>
#include <utility>

#include "course/error.hpp"
#include "stencil_rungs.cuh"

namespace course::lesson08 {

namespace {

// The tuned kernel's shape. A warp owns one row of 128 points (four per thread: one float4) and
// a block stacks kTunedY such rows; the block walks kTunedPlanes planes along z.
constexpr int kTunedCols = 4;             // points per thread along x: one float4
constexpr int kTunedX = 32 * kTunedCols;  // block width in points: one warp, 128
constexpr int kTunedY = 8;                // rows per block, one warp each: 256 threads
constexpr int kTunedPlanes = 6;           // planes per block: 86 z-chunks at 512^3
constexpr int kTunedStages = 6;           // planes in the block's ring
constexpr int kTunedPad = 4;              // ring columns left and right of the 128
constexpr int kTunedRow = kTunedPad + kTunedX + kTunedPad;  // floats per ring row
constexpr unsigned kFullWarp = 0xffffffffu;

// One plane of the block's tile in the ring: rows y0 - 1 ... y0 + kTunedY, each with one column
// beyond the tile on either side (used by the tile's own rows only; corners are never read).
using RingPlane = float[kTunedY + 2][kTunedRow];

// Starts copying one grid row of plane z into a ring row, without waiting for it: each thread
// its four points; with `edges`, lanes 0 and 31 also the points just left and right of the tile.
// Points outside the grid are written as 0 directly.
template <bool kVector>
__device__ void stage_row(float* ring_row, const float* __restrict__ in, Grid g, int x0, int y,
                          int z, int lane, bool edges) {
  const bool row_ok = y >= 0 && y < g.ny && z >= 0 && z < g.nz;
  const int x = x0 + kTunedCols * lane;
  float* const mine = ring_row + kTunedPad + kTunedCols * lane;
  if constexpr (kVector) {
    if (row_ok && x < g.nx)
      __pipeline_memcpy_async(mine, in + at(x, y, z, g), 16);
    else
      *reinterpret_cast<float4*>(mine) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  } else {
#pragma unroll
    for (int k = 0; k < kTunedCols; ++k) {
      if (row_ok && x + k < g.nx)
        __pipeline_memcpy_async(mine + k, in + at(x + k, y, z, g), 4);
      else
        mine[k] = 0.0f;
    }
  }
  if (edges && (lane == 0 || lane == 31)) {
    const int ex = lane == 0 ? x0 - 1 : x0 + kTunedX;
    float* const dst = ring_row + (lane == 0 ? kTunedPad - 1 : kTunedPad + kTunedX);
    if (row_ok && ex >= 0 && ex < g.nx)
      __pipeline_memcpy_async(dst, in + at(ex, y, z, g), 4);
    else
      *dst = 0.0f;
  }
}

// Warp w stages its own row (ring row w + 1, with its edges); warps 0 and kTunedY - 1 also the
// rows just below and above the tile.
template <bool kVector>
__device__ void stage_plane(RingPlane& plane, const float* __restrict__ in, Grid g, int x0, int y0,
                            int z, int warp, int lane) {
  stage_row<kVector>(plane[warp + 1], in, g, x0, y0 + warp, z, lane, true);
  if (warp == 0)
    stage_row<kVector>(plane[0], in, g, x0, y0 - 1, z, lane, false);
  if (warp == kTunedY - 1)
    stage_row<kVector>(plane[kTunedY + 1], in, g, x0, y0 + kTunedY, z, lane, false);
}

//! [tuned_kernel]
// What register_tiled leaves on the table, and how this kernel takes it:
//  - Too few bytes in flight. register_tiled loads one float per thread and waits for it in the
//    same step. Here the block keeps a ring of kTunedStages planes of its tile in shared memory
//    and fills it with asynchronous copies (cp.async through __pipeline_memcpy_async): while it
//    computes plane z, the copies of planes z + 2 ... z + kTunedStages - 2 are in flight, and
//    they cost no registers, so that many blocks stay resident. That is what keeps HBM busy
//    (lesson 02's copy needed the same).
//  - Two barriers per plane. Here one __syncthreads() per plane does: after it, plane z + 1 has
//    landed for every warp, and every warp is done with plane z - 2, whose ring slot the next
//    copies refill.
//  - Idle halo threads and misaligned rows. Every thread computes four points; a warp's row is
//    128 points starting on a 512-byte boundary (whole 128-byte lines); the halo comes from a
//    few extra copies (two warps copy the rows beyond the tile, two lanes per warp the points
//    beyond it). The points left and right of a thread's four come from the neighbouring lanes
//    through __shfl_up_sync / __shfl_down_sync.
//  - Short blocks. A block walks only kTunedPlanes = 6 planes (measured on an H200, share of
//    copy: 4 planes 79.1 %, 6 planes 82.4 %, 8 planes 81.3 %, 16 planes 78.2 %, 32 planes
//    76.9 %). Its two z-halo planes are then read while the block next to it in z, which runs
//    at about the same time, has just brought them into L2, and many short blocks keep every SM
//    busy to the end.
// DRAM traffic: every point read once (the z-halo planes and the y-halo rows, 2 in
// kTunedY + 2, come mostly from L2) and written once.
template <bool kVector>
__global__ void __launch_bounds__(32 * kTunedY)
    tuned_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g, Coefficients c) {
  __shared__ __align__(16) RingPlane ring[kTunedStages];
  const int lane = threadIdx.x, warp = threadIdx.y;
  const int x0 = blockIdx.x * kTunedX, y0 = blockIdx.y * kTunedY;
  const int x = x0 + kTunedCols * lane;
  const int y = y0 + warp;
  const int z_first = blockIdx.z * kTunedPlanes;
  const int planes = min(kTunedPlanes, g.nz - z_first);  // the same for the whole block

  // Plane z_first - 1 + i goes to ring[i mod kTunedStages]; planes i = 0 ... kTunedStages - 2
  // are in flight before the first step, one group of copies per plane.
#pragma unroll
  for (int i = 0; i < kTunedStages - 1; ++i) {
    if (i < planes + 2)
      stage_plane<kVector>(ring[i], in, g, x0, y0, z_first - 1 + i, warp, lane);
    __pipeline_commit();
  }

  for (int i = 0; i < planes; ++i) {
    //! [tuned_step]
    const int z = z_first + i;
    __pipeline_wait_prior(kTunedStages - 4);  // this thread's copies of plane z + 1 have landed
    // ... and every thread's; and every warp is done with plane z - 2 (the step before).
    __syncthreads();
    // Refill plane z - 2's slot with plane z + kTunedStages - 2.
    const int ahead = i + kTunedStages - 1;
    if (ahead < planes + 2)
      stage_plane<kVector>(ring[ahead % kTunedStages], in, g, x0, y0, z_first - 1 + ahead, warp,
                           lane);
    __pipeline_commit();
    //! [tuned_step]

    const float(*plane_z)[kTunedRow] = ring[(i + 1) % kTunedStages];
    const float* const row = plane_z[warp + 1] + kTunedPad + kTunedCols * lane;
    const float4 cur = *reinterpret_cast<const float4*>(row);
    const float4 north = *reinterpret_cast<const float4*>(row + kTunedRow);  // y + 1
    const float4 south = *reinterpret_cast<const float4*>(row - kTunedRow);  // y - 1
    const float4 back = *reinterpret_cast<const float4*>(ring[i % kTunedStages][warp + 1] +
                                                         kTunedPad + kTunedCols * lane);  // z - 1
    const float4 front = *reinterpret_cast<const float4*>(ring[(i + 2) % kTunedStages][warp + 1] +
                                                          kTunedPad + kTunedCols * lane);  // z + 1
    // The points just left and right of this thread's four: from the neighbouring lanes, and
    // at the warp's edges from the ring.
    const float from_left = __shfl_up_sync(kFullWarp, cur.w, 1);
    const float from_right = __shfl_down_sync(kFullWarp, cur.x, 1);
    const float left = lane == 0 ? row[-1] : from_left;
    const float right = lane == 31 ? row[kTunedCols] : from_right;

    const float centre[kTunedCols] = {cur.x, cur.y, cur.z, cur.w};
    const float n[kTunedCols] = {north.x, north.y, north.z, north.w};
    const float s[kTunedCols] = {south.x, south.y, south.z, south.w};
    const float b[kTunedCols] = {back.x, back.y, back.z, back.w};
    const float f[kTunedCols] = {front.x, front.y, front.z, front.w};
    float result[kTunedCols];
#pragma unroll
    for (int k = 0; k < kTunedCols; ++k) {
      const float west = k == 0 ? left : centre[k - 1];
      const float east = k == kTunedCols - 1 ? right : centre[k + 1];
      result[k] = !is_interior(x + k, y, z, g)
                      ? centre[k]
                      : c.c0 * centre[k] + c.c1 * west + c.c2 * east + c.c3 * s[k] + c.c4 * n[k] +
                            c.c5 * b[k] + c.c6 * f[k];
    }
    if (y < g.ny) {
      float* const o = out + at(0, y, z, g);
      if constexpr (kVector) {
        if (x < g.nx)
          *reinterpret_cast<float4*>(o + x) =
              make_float4(result[0], result[1], result[2], result[3]);
      } else {
#pragma unroll
        for (int k = 0; k < kTunedCols; ++k)
          if (x + k < g.nx)
            o[x + k] = result[k];
      }
    }
  }
}
//! [tuned_kernel]

}  // namespace

void launch_tuned(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                  cudaStream_t stream) {
  // float4 loads and stores need every row to start on 16 bytes.
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool vector = grid.nx % kTunedCols == 0 && aligned(d_in) && aligned(d_out);
  const dim3 blocks((grid.nx + kTunedX - 1) / kTunedX, (grid.ny + kTunedY - 1) / kTunedY,
                    (grid.nz + kTunedPlanes - 1) / kTunedPlanes);
  const dim3 threads(32, kTunedY);
  if (vector)
    tuned_kernel<true><<<blocks, threads, 0, stream>>>(d_in, d_out, grid, c);
  else
    tuned_kernel<false><<<blocks, threads, 0, stream>>>(d_in, d_out, grid, c);
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
