/// @file
/// @brief Lesson 03: the warptiled rung as it was before its cp.async pipeline, unchanged, kept as
/// the rung's fallback where cp.async is missing (compute capability below 8.0, or a build without
/// code for 8.0, such as the course's 75-virtual PTX). It reached 85.5 % of cuBLAS SGEMM on the
/// H100, where it no longer runs. Included by matmul_stretch.cu alone, which decides when.
#pragma once

#include <cuda_runtime.h>

#include "course/error.hpp"
#include "course/indexing.hpp"

namespace course::lesson03::staged {

namespace {

// Four consecutive floats of shared memory, 16-byte aligned, into registers: one LDS.128.
__device__ __forceinline__ void load4(const float* from, float* to) {
  const float4 v = *reinterpret_cast<const float4*>(from);
  to[0] = v.x;
  to[1] = v.y;
  to[2] = v.z;
  to[3] = v.w;
}

// register_2d's 128 x 128 x 8 block tile and 8 x 8 outputs per thread, with three changes that
// take it to cuBLAS's neighbourhood:
//  1. Warp tiles. The 8 warps split the block tile 4 x 2 into 32 x 64 warp tiles; in a warp,
//     lanes form a 4 x 8 grid, and each lane computes 2 x 2 sub-tiles of 4 x 4 (rows 16 apart,
//     columns 32 apart). A quarter-warp (8 lanes) then reads one float4 of A (a broadcast) and 8
//     consecutive float4s of B (128 bytes, every bank once): no bank conflicts.
//  2. Double buffering. Two copies of each shared tile: while the block computes on one, each
//     thread holds the next tile's global loads in registers and stores them into the other
//     copy afterwards. The global latency hides behind 512 multiply-adds per thread, and one
//     barrier per step suffices (see the loop).
//  3. 16-byte global loads and stores where the shape allows (launch_warptiled picks kGuarded).
// __launch_bounds__(256, 2) caps registers at 128 per thread so that two blocks share an SM:
// while one waits at its barrier, the other computes.
constexpr int kWtBm = 128;
constexpr int kWtBn = 128;
constexpr int kWtBk = 8;
constexpr int kWtThreads = 256;
constexpr int kWarpM = 32;         // warp tile rows
constexpr int kWarpN = 64;         // warp tile columns
constexpr int kLaneCols = 8;       // lanes along a warp tile row (4 along a column)
constexpr int kSubM = kWarpM / 2;  // 16: rows between a lane's two 4-row groups
constexpr int kSubN = kWarpN / 2;  // 32: columns between a lane's two 4-column groups
constexpr int kALoads = kWtBm * kWtBk / 4 / kWtThreads;  // float4s of A per thread per step
constexpr int kBLoads = kWtBk * kWtBn / 4 / kWtThreads;  // float4s of B per thread per step
static_assert(kALoads >= 1 && kBLoads >= 1, "every thread loads at least one float4 of each tile");
static_assert((kWtBm / kWarpM) * (kWtBn / kWarpN) * 32 == kWtThreads, "8 warps of 32 x 64");
static_assert(kSubM == 4 * (32 / kLaneCols) && kSubN == 4 * kLaneCols, "lanes cover a sub-tile");

// Four floats of a row-major matrix at (row, col .. col + 3): one 16-byte load when the caller
// knows they are inside and aligned, else four checked loads with zeros outside.
template <bool kGuarded>
__device__ __forceinline__ float4 fetch4(const float* __restrict__ x, int row, int col, int rows,
                                         int cols) {
  if constexpr (!kGuarded) {
    return *reinterpret_cast<const float4*>(x + at(row, col, cols));
  } else {
    float v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
      v[j] = row < rows && col + j < cols ? x[at(row, col + j, cols)] : 0.0f;
    return make_float4(v[0], v[1], v[2], v[3]);
  }
}

template <bool kGuarded>
__global__ void __launch_bounds__(kWtThreads, 2)
    warptiled_kernel(const float* __restrict__ a, const float* __restrict__ b,
                     float* __restrict__ c, int m, int n, int k) {
  __shared__ __align__(16) float a_tile[2][kWtBk][kWtBm];  // transposed: [p][row]
  __shared__ __align__(16) float b_tile[2][kWtBk][kWtBn];
  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int warp_row = warp / (kWtBn / kWarpN) * kWarpM;
  const int warp_col = warp % (kWtBn / kWarpN) * kWarpN;
  const int lane_row = lane / kLaneCols * 4;  // a quarter-warp shares lane_row
  const int lane_col = lane % kLaneCols * 4;
  const int block_row = blockIdx.y * kWtBm;
  const int block_col = blockIdx.x * kWtBn;

  // Staging registers for one step's tiles. A: two threads read a row's 8 floats (one 32-byte
  // sector); B: a warp reads 512 consecutive bytes of one row.
  float4 a_stage[kALoads];
  float4 b_stage[kBLoads];
  auto fetch = [&](int t) {
#pragma unroll
    for (int q = 0; q < kALoads; ++q) {
      const int i = tid + q * kWtThreads;
      a_stage[q] = fetch4<kGuarded>(a, block_row + i / (kWtBk / 4), t + i % (kWtBk / 4) * 4, m, k);
    }
#pragma unroll
    for (int q = 0; q < kBLoads; ++q) {
      const int i = tid + q * kWtThreads;
      b_stage[q] = fetch4<kGuarded>(b, t + i / (kWtBn / 4), block_col + i % (kWtBn / 4) * 4, k, n);
    }
  };
  auto stash = [&](int buffer) {
#pragma unroll
    for (int q = 0; q < kALoads; ++q) {
      const int i = tid + q * kWtThreads;
      const int row = i / (kWtBk / 4), p = i % (kWtBk / 4) * 4;
      a_tile[buffer][p + 0][row] = a_stage[q].x;  // two-way conflicts: 4 stores per step
      a_tile[buffer][p + 1][row] = a_stage[q].y;
      a_tile[buffer][p + 2][row] = a_stage[q].z;
      a_tile[buffer][p + 3][row] = a_stage[q].w;
    }
#pragma unroll
    for (int q = 0; q < kBLoads; ++q) {
      const int i = tid + q * kWtThreads;
      *reinterpret_cast<float4*>(&b_tile[buffer][i / (kWtBn / 4)][i % (kWtBn / 4) * 4]) =
          b_stage[q];
    }
  };

  float acc[8][8] = {};  // rows lane_row + {0..3, 16..19}, columns lane_col + {0..3, 32..35}
  const int steps = blocks_for(k, kWtBk);
  fetch(0);
  stash(0);
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    const int buffer = s % 2;
    const bool more = s + 1 < steps;
    if (more)
      fetch((s + 1) * kWtBk);  // in flight during the multiply-adds below
#pragma unroll
    for (int p = 0; p < kWtBk; ++p) {
      float a_frag[8], b_frag[8];
      load4(&a_tile[buffer][p][warp_row + lane_row], &a_frag[0]);
      load4(&a_tile[buffer][p][warp_row + kSubM + lane_row], &a_frag[4]);
      load4(&b_tile[buffer][p][warp_col + lane_col], &b_frag[0]);
      load4(&b_tile[buffer][p][warp_col + kSubN + lane_col], &b_frag[4]);
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[i][j] += a_frag[i] * b_frag[j];
    }
    // The other buffer was last read in step s - 1, and every thread has passed the barrier at
    // the end of that step: it is free. The barrier below publishes it for step s + 1.
    if (more)
      stash(buffer ^ 1);
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = block_row + warp_row + i / 4 * kSubM + lane_row + i % 4;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = block_col + warp_col + h * kSubN + lane_col;
      const float* v = &acc[i][4 * h];
      if constexpr (!kGuarded) {
        *reinterpret_cast<float4*>(c + at(row, col, n)) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (row < m && col + j < n)
            c[at(row, col + j, n)] = v[j];
      }
    }
  }
}

// The fallback's launcher: whole tiles take the 16-byte path, any other shape the checked one.
void launch_warptiled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                      cudaStream_t stream) {
  const dim3 grid(blocks_for(n, kWtBn), blocks_for(m, kWtBm));
  // The unguarded kernel needs whole tiles and 16-byte aligned rows: every float4 is inside.
  const bool whole = m % kWtBm == 0 && n % kWtBn == 0 && k % kWtBk == 0 && aligned16(d_a) &&
                     aligned16(d_b) && aligned16(d_c);
  if (whole) {
    warptiled_kernel<false><<<grid, kWtThreads, 0, stream>>>(d_a, d_b, d_c, m, n, k);
  } else {
    warptiled_kernel<true><<<grid, kWtThreads, 0, stream>>>(d_a, d_b, d_c, m, n, k);
  }
  CUDA_CHECK_LAST();
}

}  // namespace

}  // namespace course::lesson03::staged
