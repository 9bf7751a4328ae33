// Lesson 12, the mma_sync rung solved: the instructions behind wmma, written out. Tiles arrive
// by cp.async, three stages deep, into shared memory swizzled so that ldmatrix reads it without
// bank conflicts; ldmatrix hands each lane its fragment, mma.sync multiplies.
#include <cstdint>

#include "course/error.hpp"
#include "tensor_cores_ptx.cuh"
#include "tensor_cores_rungs.cuh"

namespace course::lesson12 {

namespace {

using namespace ptx;

//! [mma_sync_shapes]
// A block of 8 warps owns a 128 x 128 tile of C; warp (wm, wn) of the 2 x 4 grid owns 64 x 32 of
// it: 4 x 4 tiles of m16n8, 64 accumulators per thread. A stage holds 128 x 64 of A and of B:
// rows of 128 bytes, 32 KB in all; three stages (96 KB) let two blocks share an SM.
constexpr int kBm = 128;
constexpr int kBn = 128;
constexpr int kBk = 64;
constexpr int kStages = 3;
constexpr int kThreads = 256;
constexpr int kWarpM = 64;  // rows of a warp's tile
constexpr int kWarpN = 32;  // columns of a warp's tile
constexpr int kMt = kWarpM / 16;
constexpr int kNt = kWarpN / 8;
constexpr int kTileBytes = kBm * kBk * sizeof(bf16);  // one operand's tile, 16 KB
constexpr int kSharedBytes = kStages * 2 * kTileBytes;
//! [mma_sync_shapes]

//! [mma_sync_swizzle]
// Where the 16-byte chunk @p chunk (0 .. 7) of row @p row lives in a tile of 128-byte rows. Rows
// are 128 bytes apart, so chunk c of eight consecutive rows would sit in the same four banks and
// ldmatrix (eight rows at one chunk) would replay eight times; c ^ (row % 8) puts them in eight
// different places. The TMA's 128-byte swizzle (the wgmma rung) is this same pattern.
__device__ __forceinline__ int swizzled(int row, int chunk) {
  return row * 128 + ((chunk ^ (row % 8)) << 4);
}
//! [mma_sync_swizzle]

//! [mma_sync_load]
// Each thread starts 4 chunks of A and 4 of B for k-step @p kt: 16 bytes each, straight from
// global into shared memory; chunks past the edge of A or B are zero-filled, never read.
__device__ void load_stage(unsigned char* a_tile, unsigned char* b_tile, const Problem& p,
                           int block_row, int block_col, int kt) {
#pragma unroll
  for (int q = 0; q < kBm * kBk / 8 / kThreads; ++q) {
    const int i = threadIdx.x + q * kThreads;
    const int row = i / 8, chunk = i % 8;
    const int k0 = kt * kBk + chunk * 8;
    const bool a_in = block_row + row < p.m && k0 < p.k;
    const bool b_in = block_col + row < p.n && k0 < p.k;
    cp_async_16(a_tile + swizzled(row, chunk), a_in ? p.a + at(block_row + row, k0, p.k) : p.a,
                a_in);
    cp_async_16(b_tile + swizzled(row, chunk), b_in ? p.b + at(block_col + row, k0, p.k) : p.b,
                b_in);
  }
}
//! [mma_sync_load]

//! [mma_sync_compute]
// One stage: four k16 steps. Per step a warp loads its 4 fragments of A (one ldmatrix.x4 each:
// rows lane % 16, chunk lane / 16) and 4 of B (two ldmatrix.x4, each two n8 tiles), then issues
// 16 mma.sync: 16 MMAs for 6 shared loads.
__device__ void compute_stage(const unsigned char* a_tile, const unsigned char* b_tile,
                              float (&acc)[kMt][kNt][4], int warp_row, int warp_col) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int kk = 0; kk < kBk / 16; ++kk) {
    std::uint32_t a[kMt][4], b[kNt][2];
#pragma unroll
    for (int mt = 0; mt < kMt; ++mt)
      ldmatrix_x4(a[mt], a_tile + swizzled(warp_row + mt * 16 + lane % 16, kk * 2 + lane / 16));
#pragma unroll
    for (int np = 0; np < kNt / 2; ++np) {
      std::uint32_t r[4];
      const int n = warp_col + np * 16 + lane / 16 * 8 + lane % 8;
      ldmatrix_x4(r, b_tile + swizzled(n, kk * 2 + lane / 8 % 2));
      b[2 * np][0] = r[0];
      b[2 * np][1] = r[1];
      b[2 * np + 1][0] = r[2];
      b[2 * np + 1][1] = r[3];
    }
#pragma unroll
    for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
      for (int nt = 0; nt < kNt; ++nt)
        mma_16816(acc[mt][nt], a[mt], b[nt]);
  }
}
//! [mma_sync_compute]

//! [mma_sync_kernel]
// The cp.async pipeline: kStages - 1 stages in flight before the first compute; each step waits
// for the oldest, barriers (everyone's copies landed, everyone finished the stage about to be
// refilled), starts the copy kStages - 1 steps ahead, then computes. One group is committed per
// step even when there is nothing left to load, so that wait_group counts steps.
__global__ void __launch_bounds__(kThreads, 2) mma_sync_kernel(Problem p, bool pairs) {
#if __CUDA_ARCH__ >= 800
  extern __shared__ __align__(128) unsigned char shared[];
  unsigned char* a_tiles = shared;
  unsigned char* b_tiles = shared + kStages * kTileBytes;
  const int block_row = blockIdx.y * kBm, block_col = blockIdx.x * kBn;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_row = warp / (kBn / kWarpN) * kWarpM;
  const int warp_col = warp % (kBn / kWarpN) * kWarpN;
  const int k_tiles = blocks_for(p.k, kBk);
  float acc[kMt][kNt][4] = {};
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles)
      load_stage(a_tiles + s * kTileBytes, b_tiles + s * kTileBytes, p, block_row, block_col, s);
    cp_async_commit();
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<kStages - 2>();
    __syncthreads();
    const int next = kt + kStages - 1;
    if (next < k_tiles)
      load_stage(a_tiles + next % kStages * kTileBytes, b_tiles + next % kStages * kTileBytes, p,
                 block_row, block_col, next);
    cp_async_commit();
    compute_stage(a_tiles + kt % kStages * kTileBytes, b_tiles + kt % kStages * kTileBytes, acc,
                  warp_row, warp_col);
  }
  // Lane 4 g + q holds rows g and g + 8, columns 2 q and 2 q + 1 of each m16n8 tile.
#pragma unroll
  for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
    for (int nt = 0; nt < kNt; ++nt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = block_row + warp_row + mt * 16 + lane / 4 + 8 * h;
        const int col = block_col + warp_col + nt * 8 + lane % 4 * 2;
        const float v0 = acc[mt][nt][2 * h], v1 = acc[mt][nt][2 * h + 1];
        if (row >= p.m)
          continue;
        if (pairs && col + 1 < p.n) {
          *reinterpret_cast<float2*>(&p.c[at(row, col, p.n)]) = make_float2(v0, v1);
        } else {
          if (col < p.n)
            p.c[at(row, col, p.n)] = v0;
          if (col + 1 < p.n)
            p.c[at(row, col + 1, p.n)] = v1;
        }
      }
#endif
}
//! [mma_sync_kernel]

}  // namespace

void launch_mma_sync(const Problem& p, cudaStream_t stream) {
  static const bool configured = [] {
    CUDA_CHECK(cudaFuncSetAttribute(mma_sync_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    kSharedBytes));
    return true;
  }();
  (void)configured;
  const bool pairs = p.n % 2 == 0 && reinterpret_cast<std::uintptr_t>(p.c) % 8 == 0;
  const dim3 grid(blocks_for(p.n, kBn), blocks_for(p.m, kBm));
  mma_sync_kernel<<<grid, kThreads, kSharedBytes, stream>>>(p, pairs);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson12
