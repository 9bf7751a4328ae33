// Lesson 03, the stretch rungs solved: an 8 x 8 register tile per thread, then warp tiles fed by
// a cp.async pipeline, the road to cuBLAS.
#include "course/error.hpp"
#include "course/gpu.hpp"
#include "matmul_rungs.cuh"

namespace course::lesson03 {

namespace {

// Four consecutive floats of shared memory, 16-byte aligned, into registers: one LDS.128.
__device__ __forceinline__ void load4(const float* from, float* to) {
  const float4 v = *reinterpret_cast<const float4*>(from);
  to[0] = v.x;
  to[1] = v.y;
  to[2] = v.z;
  to[3] = v.w;
}

//! [register_2d_kernel]
// register_1d grown in the second dimension: a block of 256 threads owns a 128 x 128 tile of C,
// and each thread an 8 x 8 square of it. Per step p a thread reads 8 values of A and 8 of B into
// registers and does 64 multiply-adds with them: 16 shared loads for 64 multiply-adds, where
// register_1d needed 72 for 64. A is stored transposed in shared memory, a_tile[p][row], so that
// a thread's 8 rows at one p are 8 consecutive floats: two 16-byte loads, like its 8 columns of B.
// (A thread's 8 columns start 32 bytes apart from its neighbour's, so each quarter-warp's B load
// hits 16 banks twice and the other 16 not at all: the two-way conflict that the warp-tiled layout
// removes.)
constexpr int kR2Bm = 128;
constexpr int kR2Bn = 128;
constexpr int kR2Bk = 8;
constexpr int kR2Tm = 8;
constexpr int kR2Tn = 8;
constexpr int kR2Threads = (kR2Bm / kR2Tm) * (kR2Bn / kR2Tn);

__global__ void __launch_bounds__(kR2Threads)
    register_2d_kernel(const float* __restrict__ a, const float* __restrict__ b,
                       float* __restrict__ c, int m, int n, int k) {
  __shared__ __align__(16) float a_tile[kR2Bk][kR2Bm];  // transposed: [p][row]
  __shared__ __align__(16) float b_tile[kR2Bk][kR2Bn];
  const int tid = threadIdx.x;
  const int block_row = blockIdx.y * kR2Bm;
  const int block_col = blockIdx.x * kR2Bn;
  const int ty = tid / (kR2Bn / kR2Tn);  // this thread's rows: ty * 8 .. ty * 8 + 7
  const int tx = tid % (kR2Bn / kR2Tn);  // this thread's columns: tx * 8 .. tx * 8 + 7
  float acc[kR2Tm][kR2Tn] = {};
  float a_frag[kR2Tm];
  float b_frag[kR2Tn];
  for (int t = 0; t < k; t += kR2Bk) {
    //! [register_2d_step]
    // Coalesced global reads (consecutive threads, consecutive p), zeros outside the matrices.
    // The transposing store to a_tile costs some bank conflicts, four stores per thread per step.
#pragma unroll
    for (int q = 0; q < kR2Bm * kR2Bk / kR2Threads; ++q) {
      const int i = tid + q * kR2Threads;
      const int row = i / kR2Bk, p = i % kR2Bk;
      a_tile[p][row] = block_row + row < m && t + p < k ? a[at(block_row + row, t + p, k)] : 0.0f;
    }
#pragma unroll
    for (int q = 0; q < kR2Bk * kR2Bn / kR2Threads; ++q) {
      const int i = tid + q * kR2Threads;
      const int p = i / kR2Bn, col = i % kR2Bn;
      b_tile[p][col] = t + p < k && block_col + col < n ? b[at(t + p, block_col + col, n)] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kR2Bk; ++p) {
#pragma unroll
      for (int q = 0; q < kR2Tm; q += 4)
        load4(&a_tile[p][ty * kR2Tm + q], &a_frag[q]);
#pragma unroll
      for (int q = 0; q < kR2Tn; q += 4)
        load4(&b_tile[p][tx * kR2Tn + q], &b_frag[q]);
#pragma unroll
      for (int i = 0; i < kR2Tm; ++i)
#pragma unroll
        for (int j = 0; j < kR2Tn; ++j)
          acc[i][j] += a_frag[i] * b_frag[j];
    }
    __syncthreads();
    //! [register_2d_step]
  }
#pragma unroll
  for (int i = 0; i < kR2Tm; ++i) {
    const int row = block_row + ty * kR2Tm + i;
#pragma unroll
    for (int j = 0; j < kR2Tn; ++j) {
      const int col = block_col + tx * kR2Tn + j;
      if (row < m && col < n)
        c[at(row, col, n)] = acc[i][j];
    }
  }
}
//! [register_2d_kernel]

// cp.async (compute capability 8.0 and later): a copy from global to shared memory that passes
// through no register and does not stall the thread; only code compiled for 8.0 or later has it.
#if __CUDA_ARCH__ >= 800
__device__ __forceinline__ unsigned shared_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}
__device__ __forceinline__ void cp_async_4(unsigned to, const float* from) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(to), "l"(from) : "memory");
}
// When !inside, nothing is read (src-size 0) and the 4 bytes are zeros: a tile's ragged edge.
__device__ __forceinline__ void cp_async_4_or_zero(unsigned to, const float* from, bool inside) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(to), "l"(from),
               "r"(inside ? 4 : 0)
               : "memory");
}
__device__ __forceinline__ void cp_async_16(unsigned to, const float* from) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(from) : "memory");
}
// Closes the group of this thread's copies issued since the last commit.
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
// Waits until at most kPending of this thread's groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}
#endif

// Stores one lane's outputs of a warp tile: kRows rows in groups of 4, kSubRows apart, each
// with two groups of 4 columns, kSubCols apart (acc[i][4 h + j] is row row0 + i / 4 kSubRows +
// i % 4, column col0 + h kSubCols + j). Whole tiles of an aligned C (kGuarded false) take one
// float4 store per group; otherwise each element is stored only inside m x n. The warptiled
// kernel and its fallback (staged, below) lay out their lanes alike.
template <bool kGuarded, int kSubRows, int kSubCols, int kRows>
__device__ __forceinline__ void store_lane_outputs(const float (&acc)[kRows][8],
                                                   float* __restrict__ c, int m, int n, int row0,
                                                   int col0) {
#pragma unroll
  for (int i = 0; i < kRows; ++i) {
    const int row = row0 + i / 4 * kSubRows + i % 4;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int col = col0 + h * kSubCols;
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

//! [warptiled_kernel]
// register_2d taken to cuBLAS's neighbourhood (README, "What closed the gap"):
//  1. Warp tiles. The 8 warps split a 128 x 256 block tile 2 x 4 into 64 x 64 warp tiles; each
//     lane computes 4 x 2 sub-tiles of 4 x 4, 16 x 8 = 128 outputs, from 6 float4 shared loads
//     per 128 multiply-adds (register_2d: 4 per 64), without bank conflicts.
//  2. A ring of kStages shared tiles filled by cp.async: tiles s + 1 .. s + 3 are in flight while
//     the block computes tile s, and no register holds them on the way.
//  3. The staging registers that cp.async frees pay for the 16 x 8 register tile (209 registers
//     with nvcc 13 for sm_90: one block of 8 warps per SM, and the pipeline, not a second block,
//     hides the latency).
//  4. 16-byte copies of B and float4 stores of C where the shape allows (kGuarded false); else
//     4-byte copies, zeros outside A and B, and checked stores: any shape, any alignment.
// The ring takes 97 KB of dynamic shared memory, opted in by pipeline_runs_here(). Compiled for
// less than compute capability 8.0 the body is empty: launch_warptiled then runs the fallback.
constexpr int kWtBm = 128;
constexpr int kWtBn = 256;
constexpr int kWtBk = 16;
constexpr int kWtThreads = 256;
constexpr int kWarpM = 64;    // warp tile rows
constexpr int kWarpN = 64;    // warp tile columns
constexpr int kLaneCols = 8;  // lanes along a warp tile row (4 along a column)
constexpr int kSubM = 16;     // rows between a lane's 4-row groups
constexpr int kSubN = 32;     // columns between a lane's 4-column groups
constexpr int kStages = 4;    // tiles in the ring
// A's tile is stored transposed, [p][row], in rows of 132 floats: a warp's copies of A (16 values
// of p in 2 rows) then meet a 2-way bank conflict; in rows of 128 floats, a 16-way one.
constexpr int kAStride = kWtBm + 4;
constexpr int kAStage = kWtBk * kAStride;  // floats of one tile of A in the ring
constexpr int kBStage = kWtBk * kWtBn;     // ... and of B
constexpr int kWtSharedBytes = kStages * (kAStage + kBStage) * sizeof(float);  // 99 328
constexpr int kACopies = kWtBm * kWtBk / kWtThreads;      // 4-byte copies of A per thread per tile
constexpr int kBCopies = kWtBk * kWtBn / 4 / kWtThreads;  // 16-byte copies of B per thread per tile
constexpr int kARowsApart = kWtThreads / kWtBk;           // rows of A between a thread's copies
constexpr int kBRowsApart = kWtThreads / (kWtBn / 4);     // rows of B between a thread's copies
static_assert((kWtBm / kWarpM) * (kWtBn / kWarpN) * 32 == kWtThreads, "8 warps of 64 x 64");
static_assert(kSubM == 4 * (32 / kLaneCols) && kSubN == 4 * kLaneCols, "lanes cover a sub-tile");
static_assert(kWarpM == 4 * kSubM && kWarpN == 2 * kSubN, "4 x 2 sub-tiles per lane");
static_assert(kACopies * kARowsApart == kWtBm && kBCopies * kBRowsApart == kWtBk,
              "the threads' copies cover each tile once");

template <bool kGuarded>
__global__ void __launch_bounds__(kWtThreads, 1)
    warptiled_kernel(const float* __restrict__ a, const float* __restrict__ b,
                     float* __restrict__ c, int m, int n, int k) {
#if __CUDA_ARCH__ >= 800
  extern __shared__ __align__(16) float ring[];
  float* const a_ring = ring;                      // [kStages][kWtBk][kAStride]: A^T, [p][row]
  float* const b_ring = ring + kStages * kAStage;  // [kStages][kWtBk][kWtBn]
  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int warp_row = warp / (kWtBn / kWarpN) * kWarpM;
  const int warp_col = warp % (kWtBn / kWarpN) * kWarpN;
  const int lane_row = lane / kLaneCols * 4;
  const int lane_col = lane % kLaneCols * 4;
  const int block_row = blockIdx.y * kWtBm;
  const int block_col = blockIdx.x * kWtBn;

  // This thread's copies of a tile: A at rows a_row + 16 q, column a_p (a warp reads 16
  // consecutive floats of 2 rows); B at rows b_p + 4 q, columns b_col .. b_col + 3 (a warp reads
  // 512 consecutive bytes). For whole tiles, source pointers and shared addresses are computed
  // once and moved by one tile per call: 64-bit address arithmetic per copy cost 7 %.
  const int a_row = tid / kWtBk, a_p = tid % kWtBk;
  const int b_p = tid / (kWtBn / 4), b_col = tid % (kWtBn / 4) * 4;
  const float* a_next = a;
  const float* b_next = b;
  if constexpr (!kGuarded) {
    a_next += at(block_row + a_row, a_p, k);
    b_next += at(b_p, block_col + b_col, n);
  }
  const std::size_t a_apart = static_cast<std::size_t>(kARowsApart) * k;
  const std::size_t b_apart = static_cast<std::size_t>(kBRowsApart) * n;
  const std::size_t b_tile = static_cast<std::size_t>(kWtBk) * n;
  const unsigned a_to = shared_address(a_ring + a_p * kAStride + a_row);
  const unsigned b_to = shared_address(b_ring + b_p * kWtBn + b_col);
  // Starts the copies of the tile at column t of A (row t of B) into stage `stage` of the ring.
  // Called for t = 0, kWtBk, 2 kWtBk, ... in this order.
  auto load_stage = [&](int stage, int t) {
    if constexpr (!kGuarded) {
#pragma unroll
      for (int q = 0; q < kACopies; ++q)
        cp_async_4(a_to + 4u * (stage * kAStage + q * kARowsApart), a_next + q * a_apart);
#pragma unroll
      for (int q = 0; q < kBCopies; ++q)
        cp_async_16(b_to + 4u * (stage * kBStage + q * kBRowsApart * kWtBn), b_next + q * b_apart);
      a_next += kWtBk;
      b_next += b_tile;
    } else {
#pragma unroll
      for (int q = 0; q < kACopies; ++q) {
        const int row = block_row + a_row + q * kARowsApart, col = t + a_p;
        const bool inside = row < m && col < k;
        cp_async_4_or_zero(a_to + 4u * (stage * kAStage + q * kARowsApart),
                           inside ? a + at(row, col, k) : a, inside);
      }
#pragma unroll
      for (int q = 0; q < kBCopies; ++q) {
        const int row = t + b_p + q * kBRowsApart;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const int col = block_col + b_col + j;
          const bool inside = row < k && col < n;
          cp_async_4_or_zero(b_to + 4u * (stage * kBStage + q * kBRowsApart * kWtBn + j),
                             inside ? b + at(row, col, n) : b, inside);
        }
      }
    }
  };

  //! [warptiled_loop]
  float acc[16][8] = {};  // rows lane_row + {0..3, 16..19, 32..35, 48..51}, columns lane_col + ...
  // The multiply-adds of one stage, as a function of its two tiles. Written inline in the loop
  // below, the same source compiles (nvcc 13, sm_90) to the same instructions per step, 2048
  // multiply-adds and 96 shared loads, in another order and with other registers, and that
  // kernel ran 3.6 % slower on the H100: 2.93 against 2.82 ms (README, "What closed the gap").
  auto multiply_stage = [&](const float* as, const float* bs) {
#pragma unroll
    for (int p = 0; p < kWtBk; ++p) {
      float a_frag[16], b_frag[8];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        load4(&as[p * kAStride + warp_row + i * kSubM + lane_row], &a_frag[4 * i]);
#pragma unroll
      for (int j = 0; j < 2; ++j)
        load4(&bs[p * kWtBn + warp_col + j * kSubN + lane_col], &b_frag[4 * j]);
#pragma unroll
      for (int i = 0; i < 16; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[i][j] += a_frag[i] * b_frag[j];
    }
  };
  const int steps = blocks_for(k, kWtBk);
  // Tiles 0 .. kStages - 2 in flight. One group per tile, committed even when there is no tile
  // left to copy, so that groups and tiles stay counted alike for cp_async_wait below.
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < steps)
      load_stage(s, s * kWtBk);
    cp_async_commit();
  }
  int read = 0, write = kStages - 1;  // the stages of tiles s and s + kStages - 1
  for (int s = 0; s < steps; ++s) {
    // Tiles s .. s + kStages - 2 are this thread's open groups: with at most kStages - 2 left in
    // flight, its copies of tile s have landed. The barrier publishes everyone's, and tells that
    // every warp is done with tile s - 1, whose stage (`write`) the next copies refill.
    cp_async_wait<kStages - 2>();
    __syncthreads();
    if (s + kStages - 1 < steps)
      load_stage(write, (s + kStages - 1) * kWtBk);
    cp_async_commit();
    multiply_stage(a_ring + read * kAStage, b_ring + read * kBStage);
    read = read + 1 == kStages ? 0 : read + 1;
    write = write + 1 == kStages ? 0 : write + 1;
  }
  cp_async_wait<0>();  // the groups still open are empty; no copy outlives the block
  //! [warptiled_loop]

  store_lane_outputs<kGuarded, kSubM, kSubN>(acc, c, m, n, block_row + warp_row + lane_row,
                                             block_col + warp_col + lane_col);
#endif
}
//! [warptiled_kernel]

// The warptiled rung as it was before its cp.async pipeline (its stores now the shared
// store_lane_outputs, the same code), kept as the rung's fallback where cp.async is missing
// (compute capability below 8.0, or a build without code for 8.0, such as the course's 75-virtual
// PTX). It reached 85.5 % of cuBLAS SGEMM on the H100, where it no longer runs. The launcher
// below decides when.
namespace staged {

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

  store_lane_outputs<kGuarded, kSubM, kSubN>(acc, c, m, n, block_row + warp_row + lane_row,
                                             block_col + warp_col + lane_col);
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

}  // namespace staged

// Whether warptiled_kernel runs here. cp.async needs compute capability 8.0, and code compiled
// for it: a build for 75-virtual runs as PTX of 7.5 compiled at load time even on an H100, and
// there the kernel's body is empty (ptxVersion names the PTX the driver runs). The first call
// also opts both kernels in to their 97 KB of dynamic shared memory.
bool pipeline_runs_here() {
  static const bool runs = [] {
    const GpuInfo& gpu = gpu_info();
    if (gpu.major < 8 || gpu.shared_per_block_optin < static_cast<std::size_t>(kWtSharedBytes))
      return false;
    cudaFuncAttributes attributes{};
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, warptiled_kernel<false>));
    if (attributes.ptxVersion < 80)
      return false;
    CUDA_CHECK(cudaFuncSetAttribute(warptiled_kernel<false>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, kWtSharedBytes));
    CUDA_CHECK(cudaFuncSetAttribute(warptiled_kernel<true>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, kWtSharedBytes));
    return true;
  }();
  return runs;
}

}  // namespace

void launch_register_2d(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                        cudaStream_t stream) {
  const dim3 grid(blocks_for(n, kR2Bn), blocks_for(m, kR2Bm));
  register_2d_kernel<<<grid, kR2Threads, 0, stream>>>(d_a, d_b, d_c, m, n, k);
  CUDA_CHECK_LAST();
}

void launch_warptiled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                      cudaStream_t stream) {
  if (!pipeline_runs_here())
    return staged::launch_warptiled(d_a, d_b, d_c, m, n, k, stream);
  const dim3 grid(blocks_for(n, kWtBn), blocks_for(m, kWtBm));
  // The unguarded kernel needs whole tiles and 16-byte aligned rows: every float4 is inside.
  const bool whole = m % kWtBm == 0 && n % kWtBn == 0 && k % kWtBk == 0 && aligned16(d_a) &&
                     aligned16(d_b) && aligned16(d_c);
  if (whole) {
    warptiled_kernel<false><<<grid, kWtThreads, kWtSharedBytes, stream>>>(d_a, d_b, d_c, m, n, k);
  } else {
    warptiled_kernel<true><<<grid, kWtThreads, kWtSharedBytes, stream>>>(d_a, d_b, d_c, m, n, k);
  }
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson03
