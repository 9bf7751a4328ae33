// Lesson 12, the stretch rung solved: Hopper's way. The TMA copies tiles of A and B into
// swizzled shared memory, counting bytes on mbarriers; two consumer warpgroups multiply them with
// wgmma while one thread of a producer warpgroup keeps four stages in flight; the grid is
// persistent, so the next tile's loads run under this tile's stores; and C leaves through shared
// memory and TMA stores, which finish writing it while the next tile is multiplied. Compiled for
// sm_90a alone (CMakeLists.txt, SM90A).
#include <cstdint>

#include "course/error.hpp"
#include "course/gpu.hpp"
#include "tensor_cores_ptx.cuh"
#include "tensor_cores_rungs.cuh"

namespace course::lesson12 {

namespace {

using namespace ptx;

//! [wgmma_shapes]
// A block owns a 128 x 256 tile of C: one wgmma m64n256k16 per consumer warpgroup and k-step,
// each consumer 64 rows of it in 128 FP32 accumulators per thread. A stage holds a 128 x 64 tile
// of A and a 256 x 64 tile of B: 64 BF16 = 128 bytes per row, the width of the 128-byte swizzle.
constexpr int kBm = 128;
constexpr int kBn = 256;
constexpr int kBk = 64;
constexpr int kStages = 4;     // 4 x 48 KB of the 227 KB a block may have
constexpr int kConsumers = 2;  // warpgroups that multiply; one more produces
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr std::uint32_t kStageBytes = (kBm + kBn) * kBk * sizeof(bf16);
constexpr std::uint32_t kGroupStride = 8 * kBk * sizeof(bf16);  // 8 rows of 128 bytes
// The epilogue's TMA stores move a consumer's 64 rows of C in boxes 32 floats (128 bytes) wide,
// the 128-byte swizzle's width again: 8 boxes of 8 KB per tile, through two buffers, so that the
// threads fill one while the TMA reads the other.
constexpr int kBoxRows = 64;
constexpr int kBoxCols = 32;

struct Shared {
  alignas(1024) bf16 a[kStages][kBm * kBk];  // the swizzle pattern repeats every 1024 bytes
  alignas(1024) bf16 b[kStages][kBn * kBk];
  std::uint64_t full[kStages];   // the TMA has filled the stage
  std::uint64_t empty[kStages];  // both consumers are done reading it
  // Each consumer's two buffers of C, 1024-byte aligned like the tiles: the TMA store reads them
  // with the same swizzle.
  alignas(1024) float c[kConsumers][2][kBoxRows * kBoxCols];
};
constexpr std::size_t kSharedBytes = sizeof(Shared) + 1024;  // room to align the start
// 192 KB of stages and 32 KB of C buffers: 231,424 bytes, just under the 227 KB (232,448 bytes)
// a block may have on compute capability 9.0.
static_assert(kSharedBytes <= 227 * 1024, "more shared memory than a block may have");
//! [wgmma_shapes]

//! [wgmma_producer]
// One thread of the producer warpgroup walks the same tiles and k-steps as the consumers: it
// waits until a stage is empty, tells its full barrier how many bytes to expect, and has the
// TMA load both tiles into it. Phases: a stage is filled for the n-th time in phase n % 2.
__device__ void produce(Shared& s, const CUtensorMap* map_a, const CUtensorMap* map_b, int tiles_m,
                        int tiles, int k_tiles) {
  int stage = 0, phase = 0;
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int row0 = tile % tiles_m * kBm, col0 = tile / tiles_m * kBn;
    for (int kt = 0; kt < k_tiles; ++kt) {
      mbarrier_wait(&s.empty[stage], phase ^ 1);  // a new barrier counts its phase -1 as done
      mbarrier_arrive_expect_bytes(&s.full[stage], kStageBytes);
      tma_load_2d(s.a[stage], map_a, &s.full[stage], kt * kBk, row0);
      tma_load_2d(s.b[stage], map_b, &s.full[stage], kt * kBk, col0);
      if (++stage == kStages) {
        stage = 0;
        phase ^= 1;
      }
    }
  }
}
//! [wgmma_producer]

//! [wgmma_store]
// The threads' own stores, where the TMA cannot store C (its rows or its start off 16 bytes).
// Thread t of the warpgroup holds rows 16 w + g and 16 w + g + 8 (w = t / 32, g = lane / 4) at
// columns 8 j + 2 q, 8 j + 2 q + 1 (q = lane % 4) for j = 0 .. 31: pairs of neighbours, stored
// as float2 where C allows it.
__device__ void store(const float (&acc)[128], float* c, int m, int n, int row0, int col0,
                      bool pairs) {
  const int t = threadIdx.x % 128, lane = t % 32;
  const int row = row0 + t / 32 * 16 + lane / 4;
  const int col = col0 + lane % 4 * 2;
#pragma unroll
  for (int j = 0; j < 32; ++j) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = row + 8 * h, cc = col + 8 * j;
      const float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
      if (r >= m)
        continue;
      if (pairs && cc + 1 < n) {
        *reinterpret_cast<float2*>(&c[at(r, cc, n)]) = make_float2(v0, v1);
      } else {
        if (cc < n)
          c[at(r, cc, n)] = v0;
        if (cc + 1 < n)
          c[at(r, cc + 1, n)] = v1;
      }
    }
  }
}
//! [wgmma_store]

//! [wgmma_store_tma]
// The TMA's stores, where C allows them. A warp's float2 stores (store() above) touch 8 lines of
// 128 bytes for 256 bytes of C, and the tensor cores idle until all 64 of them per thread are
// issued. Here the threads write a box of 64 rows x 32 floats into shared memory and one thread
// hands it to the TMA, which writes whole lines while the threads fill the other buffer, and
// finishes the last boxes while the next tile is multiplied. The box is laid out as the map of C
// says, with the 128-byte swizzle: chunk c (4 floats) of row r at chunk c ^ (r % 8). A warp's
// float2 writes, 8 rows at the same two chunks, would take eight wavefronts for 256 bytes in the
// plain layout; swizzled they take four. Shared memory serves 8-byte stores a half-warp (128
// bytes) at a time, and within a half rows g and g ^ 1 still meet on a chunk: a two-way conflict,
// a few hundred clocks of a tile's 72,000 (README). The count of boxes runs on across tiles,
// the same in every thread, so that the buffers alternate even after a tile of an odd number.
__device__ void store_tma(const float (&acc)[128], float (&buffers)[2][kBoxRows * kBoxCols],
                          const CUtensorMap* map_c, int n, int row0, int col0, int& boxes) {
  const int consumer = threadIdx.x / 128 - 1;
  const int t = threadIdx.x % 128, lane = t % 32, g = lane / 4, q = lane % 4;
  const bool leader = t == 0;
  const int row = t / 32 * 16 + g;  // and row + 8: both g modulo 8
#pragma unroll
  for (int box = 0; box < kBn / kBoxCols; ++box) {
    const int col = col0 + box * kBoxCols;
    if (col >= n)  // the same for the whole warpgroup: past the last column, nothing to store
      break;
    float* buffer = buffers[boxes % 2];
    // The store issued from this buffer two boxes ago must have read it: at most one group, the
    // last box's, may still be reading. Then the barrier tells the other threads.
    if (leader)
      bulk_wait_group_read<1>();
    named_barrier_sync(1 + consumer, 128);
#pragma unroll
    for (int jj = 0; jj < kBoxCols / 8; ++jj) {
      const int j = box * (kBoxCols / 8) + jj;  // the accumulators' column block of 8
      const int chunk = (2 * jj + q / 2) ^ g;   // the 16-byte chunk of columns 8 jj + 2 q
#pragma unroll
      for (int h = 0; h < 2; ++h)
        *reinterpret_cast<float2*>(&buffer[(row + 8 * h) * kBoxCols + chunk * 4 + q % 2 * 2]) =
            make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
    }
    // The copy engine reads through the async proxy: every thread's writes must be made visible
    // to it before the barrier after which the leader starts the store.
    fence_proxy_async_shared();
    named_barrier_sync(1 + consumer, 128);
    if (leader) {
      tma_store_2d(map_c, buffer, col, row0);  // rows past m and columns past n are not written
      bulk_commit_group();
    }
    ++boxes;
  }
}
//! [wgmma_store_tma]

//! [wgmma_consume]
// A consumer warpgroup: for each k-step, wait until the stage is full, issue four wgmma (k = 0,
// 16, 32, 48: the descriptor's start moves 32 bytes along the swizzled rows), commit them as a
// group, and wait for the group before this one, whose stage can then be given back: one group
// stays in flight while the next stage's wait and issue go on.
__device__ void consume(Shared& s, const CUtensorMap* map_c, float* c, int m, int n, int tiles_m,
                        int tiles, int k_tiles, bool tma_store, bool pairs) {
  const int consumer = threadIdx.x / 128 - 1;
  const bool leader = threadIdx.x % 128 == 0;
  int stage = 0, phase = 0;
  int boxes = 0;  // TMA stores issued: box i goes through buffer i % 2
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int row0 = tile % tiles_m * kBm, col0 = tile / tiles_m * kBn;
    float acc[128];
#pragma unroll
    for (int i = 0; i < 128; ++i)
      acc[i] = 0.0f;
    int previous = -1;
    for (int kt = 0; kt < k_tiles; ++kt) {
      mbarrier_wait(&s.full[stage], phase);
      const bf16* a_tile = s.a[stage] + consumer * 64 * kBk;  // this consumer's 64 rows
      wgmma_fence();
      fence_accumulators(acc);
#pragma unroll
      for (int kk = 0; kk < kBk / 16; ++kk)
        wgmma_m64n256k16(acc, smem_descriptor(a_tile + kk * 16, kGroupStride, Swizzle::Bytes128),
                         smem_descriptor(s.b[stage] + kk * 16, kGroupStride, Swizzle::Bytes128));
      wgmma_commit_group();
      wgmma_wait_group<1>();
      fence_accumulators(acc);
      if (previous >= 0 && leader)
        mbarrier_arrive(&s.empty[previous]);
      previous = stage;
      if (++stage == kStages) {
        stage = 0;
        phase ^= 1;
      }
    }
    wgmma_wait_group<0>();
    fence_accumulators(acc);
    if (leader)
      mbarrier_arrive(&s.empty[previous]);
    const int row = row0 + consumer * 64;
    if (!tma_store)
      store(acc, c, m, n, row, col0, pairs);
    else if (row < m)  // the same for the whole warpgroup: rows past m have nothing to store
      store_tma(acc, s.c[consumer], map_c, n, row, col0, boxes);
  }
  // The last stores still read this block's shared memory, which ends with the block.
  if (tma_store && leader)
    bulk_wait_group<0>();
}
//! [wgmma_consume]

//! [wgmma_kernel]
// Warpgroup 0 produces, 1 and 2 consume. The producer gives registers back (it needs a few
// dozen), the consumers take them (128 accumulators each): setmaxnreg moves them at run time.
__global__ void __launch_bounds__(kThreads, 1)
    wgmma_kernel(const __grid_constant__ CUtensorMap map_a,
                 const __grid_constant__ CUtensorMap map_b,
                 const __grid_constant__ CUtensorMap map_c, float* __restrict__ c, int m, int n,
                 int k, bool tma_store, bool pairs) {
  // Aligned by an offset from raw, not by rounding its address as an integer: a pointer made from
  // an integer is generic to the compiler, which then stores C through the generic path (ST.E,
  // 64-bit addresses) and converts every descriptor's address; derived from raw, s stays shared
  // memory (STS, 32-bit addresses).
  extern __shared__ unsigned char raw[];
  Shared& s = *reinterpret_cast<Shared*>(raw + (1024 - shared_address(raw) % 1024) % 1024);
  const int tiles_m = blocks_for(m, kBm);
  const int tiles = tiles_m * blocks_for(n, kBn);
  const int k_tiles = blocks_for(k, kBk);
  if (threadIdx.x == 0) {
    for (int i = 0; i < kStages; ++i) {
      mbarrier_init(&s.full[i], 1);            // the producer's arrive, plus the TMA's bytes
      mbarrier_init(&s.empty[i], kConsumers);  // one arrive per consumer warpgroup
    }
    fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x < 128) {
    setmaxnreg_decrease<40>();
    if (threadIdx.x == 0)
      produce(s, &map_a, &map_b, tiles_m, tiles, k_tiles);
  } else {
    setmaxnreg_increase<232>();
    consume(s, &map_c, c, m, n, tiles_m, tiles, k_tiles, tma_store, pairs);
  }
}
//! [wgmma_kernel]

}  // namespace

//! [wgmma_launch]
void launch_wgmma(const Problem& p, cudaStream_t stream) {
  // Boxes of 64 columns (128 bytes, the swizzle's width) by the tile's rows; the maps describe
  // the whole of A and B, so the TMA fills what lies past a ragged edge with zeros.
  const CUtensorMap map_a = tensor_map_2d(p.a, p.m, p.k, kBm, kBk, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap map_b = tensor_map_2d(p.b, p.n, p.k, kBn, kBk, CU_TENSOR_MAP_SWIZZLE_128B);
  static const bool configured = [] {
    CUDA_CHECK(cudaFuncSetAttribute(wgmma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(kSharedBytes)));
    return true;
  }();
  (void)configured;
  // Persistent, in as few blocks as take the same number of rounds: at 4096^3, 512 tiles on 132
  // SMs take four rounds either way, and 128 blocks make them four full ones. The four SMs left
  // out would have idled through the last round anyway, and the product runs at the GPU's power
  // limit: the others get their share of it as clock (README, "What still stands").
  const int tiles = blocks_for(p.m, kBm) * blocks_for(p.n, kBn);
  const int rounds = blocks_for(tiles, gpu_info().sm_count);
  const int grid = blocks_for(tiles, rounds);
  // The TMA stores C in boxes of 64 x 32 floats, swizzled as the consumers write them. Its map
  // needs C on a 16-byte boundary and rows of a multiple of 16 bytes (n % 4 == 0), which multiply()
  // does not see to for C; elsewhere the consumers store C themselves, as float2 where N is even
  // and C 8-byte aligned.
  const bool tma_store = p.n % 4 == 0 && reinterpret_cast<std::uintptr_t>(p.c) % 16 == 0;
  const CUtensorMap map_c =
      tma_store ? tensor_map_2d(p.c, p.m, p.n, kBoxRows, kBoxCols, CU_TENSOR_MAP_SWIZZLE_128B)
                : CUtensorMap{};
  const bool pairs = p.n % 2 == 0 && reinterpret_cast<std::uintptr_t>(p.c) % 8 == 0;
  wgmma_kernel<<<grid, kThreads, kSharedBytes, stream>>>(map_a, map_b, map_c, p.c, p.m, p.n, p.k,
                                                         tma_store, pairs);
  CUDA_CHECK_LAST();
}
//! [wgmma_launch]

}  // namespace course::lesson12
