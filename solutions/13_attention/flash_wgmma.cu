// Lesson 13, the stretch rung solved: FlashAttention-3's kernel on Hopper. One thread of a
// producer warpgroup has the TMA load a block's Q once and stream K and V through a ring of
// stages counted on mbarriers; two consumer warpgroups compute S = Q K^T with wgmma from shared
// memory, the online softmax in registers, and O += P V with wgmma taking P from the registers
// where S was computed. Within each consumer, the next tile's scores and this tile's P V are
// issued back to back, so the exponentials of one run while the tensor cores work on the other.
// Compiled for sm_90a alone (CMakeLists.txt, SM90A). First the consumers' work in registers
// (masks, softmax, P's fragments, the store, on wgmma's accumulator layout), then the kernel.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "attention_ptx.cuh"
#include "attention_rungs.cuh"
#include "course/error.hpp"
#include "course/gpu.hpp"

namespace course::lesson13 {

namespace {

using namespace ptx;

//! [flash_wgmma_layout]
// Keys per tile: S of one consumer is a 64 x 128 accumulator, 64 floats a thread.
constexpr int kBlockN = 128;

// The register layout of a wgmma m64nN accumulator (PTX ISA, "Matrix fragments for
// wgmma.mma_async.m64nNk16"): thread t of the warpgroup, warp w = t / 32, lane l = 4 g + q, holds
// for each n8 block j
//   acc[4j + 0], acc[4j + 1] = C[16 w + g    ][8 j + 2 q], C[16 w + g    ][8 j + 2 q + 1]
//   acc[4j + 2], acc[4j + 3] = C[16 w + g + 8][8 j + 2 q], C[16 w + g + 8][8 j + 2 q + 1]
// so a thread owns two rows, r0 = 16 w + g and r0 + 8 (e >> 1 of acc[4j + e] says which), and a
// row's values lie in the four threads of one quad. The A fragment of wgmma from registers is,
// per warp, mma.sync's m16n8k16 A layout:
//   a[0] = A[16 w + g][2 q, 2 q + 1],     a[1] = A[16 w + g + 8][2 q, 2 q + 1],
//   a[2] = A[16 w + g][2 q + 8, 2 q + 9], a[3] = A[16 w + g + 8][2 q + 8, 2 q + 9].
// For the k16 step kk (keys 16 kk .. 16 kk + 15) these are S's n8 blocks 2 kk and 2 kk + 1, in
// the same thread: a[r] = pack(s[8 kk + 2 r], s[8 kk + 2 r + 1]). No shuffle: P stays where S
// was computed.
//! [flash_wgmma_layout]

//! [flash_wgmma_softmax]
// Keys past n, and (causal) keys after the query, get -inf: they weigh 2^-inf = 0. @p row is the
// thread's first row; @p key0 the tile's first key.
__device__ inline void mask_scores(float (&s)[64], int key0, int row, int n, bool causal) {
  const int col0 = key0 + 2 * (threadIdx.x % 4);
#pragma unroll
  for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int key = col0 + 8 * j + (e & 1);
      const int query = row + 8 * (e >> 1);
      if (key >= n || (causal && key > query))
        s[4 * j + e] = -INFINITY;
    }
}

// One step of the online softmax, in place. The running maximum m (of raw scores) grows to cover
// this tile; alpha = 2^((m_old - m_new) scale log2 e) is what O and l must be multiplied by; and s
// becomes p = 2^(s scale log2 e - m_new scale log2 e), in [0, 1]. The row's four threads agree on
// m through two shuffles; l stays a thread's partial sum, of the unrounded p, until the store.
__device__ inline void online_softmax(float (&s)[64], float (&m)[2], float (&l)[2],
                                      float (&alpha)[2], float scale_log2) {
  float top[2] = {m[0], m[1]};
#pragma unroll
  for (int j = 0; j < kBlockN / 8; ++j) {
    top[0] = fmaxf(top[0], fmaxf(s[4 * j], s[4 * j + 1]));
    top[1] = fmaxf(top[1], fmaxf(s[4 * j + 2], s[4 * j + 3]));
  }
  float base[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    top[r] = fmaxf(top[r], __shfl_xor_sync(0xFFFFFFFFu, top[r], 1));
    top[r] = fmaxf(top[r], __shfl_xor_sync(0xFFFFFFFFu, top[r], 2));
    // A row that has seen only masked keys keeps m = -inf: subtract 0 instead, so that its p are
    // 2^-inf = 0 rather than NaN.
    base[r] = top[r] == -INFINITY ? 0.0f : top[r] * scale_log2;
    alpha[r] = ptx::exp2_approx(m[r] * scale_log2 - base[r]);  // the first tile: m = -inf, 0
    m[r] = top[r];
  }
  float sum[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};  // two chains a row: half the FADD latency
#pragma unroll
  for (int j = 0; j < kBlockN / 8; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int r = e >> 1;
      s[4 * j + e] = ptx::exp2_approx(fmaf(s[4 * j + e], scale_log2, -base[r]));
      sum[r][e & 1] += s[4 * j + e];
    }
#pragma unroll
  for (int r = 0; r < 2; ++r)
    l[r] = l[r] * alpha[r] + (sum[r][0] + sum[r][1]);
}

// O summed against the old maxima: each of the thread's two rows times its alpha.
template <int N>
__device__ inline void rescale(float (&acc)[N], const float (&alpha)[2]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    acc[i] *= alpha[(i >> 1) & 1];
}

// P, rounded to BF16, into the A fragments of P V: fragment kk for keys 16 kk .. 16 kk + 15.
__device__ inline void convert(std::uint32_t (&p)[kBlockN / 16][4], const float (&s)[64]) {
#pragma unroll
  for (int kk = 0; kk < kBlockN / 16; ++kk)
#pragma unroll
    for (int r = 0; r < 4; ++r)
      p[kk][r] = ptx::pack_bf16x2(s[8 * kk + 2 * r], s[8 * kk + 2 * r + 1]);
}
//! [flash_wgmma_softmax]

//! [flash_wgmma_store]
// O = acc / l for the thread's two rows (l summed over the row's quad first), float2 by float2:
// O's rows are 16-byte aligned. Rows past n are not stored.
template <int D>
__device__ void store_output(const float (&acc)[D / 2], float (&l)[2], float* o_head, int row,
                             int n) {
  float inverse[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xFFFFFFFFu, l[r], 1);
    l[r] += __shfl_xor_sync(0xFFFFFFFFu, l[r], 2);
    inverse[r] = 1.0f / l[r];  // a stored row has seen key 0: l >= 1
  }
  const int col0 = 2 * (threadIdx.x % 4);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int r = row + 8 * h;
    if (r >= n)
      continue;
    float* const out = o_head + static_cast<std::size_t>(r) * D + col0;
#pragma unroll
    for (int j = 0; j < D / 8; ++j)
      *reinterpret_cast<float2*>(out + 8 * j) =
          make_float2(acc[4 * j + 2 * h] * inverse[h], acc[4 * j + 2 * h + 1] * inverse[h]);
  }
}
//! [flash_wgmma_store]

//! [flash_wgmma_shapes]
// A block owns 128 rows of Q at a time, 64 per consumer warpgroup: one wgmma m64n128k16 per k16
// step of S, whose 64 x 128 scores take 64 registers a thread, beside O's D / 2. Tiles of 128
// keys; the ring holds 2 stages of K and of V at d = 128 (32 KB each: 160 KB with Q), 3 at d = 64,
// whose tiles are consumed twice as fast. Every tile is stored as D / 64 column blocks of
// [rows][64]: rows of 128 bytes, the width of the TMA's 128-byte swizzle.
constexpr int kBlockM = 128;      // query rows of a block's tile (kBlockN: keys, in the header)
constexpr int kSwizzleCols = 64;  // BF16 columns of a 128-byte swizzled row
constexpr int kConsumers = 2;     // warpgroups that compute; one more produces
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr int kProducerRegisters = 40;  // 128 x 40 + 256 x 232 = 384 x 168: the launch's share
constexpr int kConsumerRegisters = 232;
constexpr std::uint32_t kGroupStride = 8 * kSwizzleCols * sizeof(bf16);  // 8 rows of 128 bytes

template <int D>
struct Config {
  static constexpr int kStages = D == 128 ? 2 : 3;  // K and V ring slots
  static constexpr int kColumnBlocks = D / kSwizzleCols;
  static constexpr std::uint32_t kQBytes = kBlockM * D * sizeof(bf16);
  static constexpr std::uint32_t kKvBytes = kBlockN * D * sizeof(bf16);
  struct Shared {
    alignas(1024) bf16 q[kBlockM * D];           // [D / 64][kBlockM][64], swizzled rows
    alignas(1024) bf16 k[kStages][kBlockN * D];  // [D / 64][kBlockN][64] per slot
    alignas(1024) bf16 v[kStages][kBlockN * D];
    // full: the producer's arrival plus the TMA's bytes; empty: one arrival per consumer. K and
    // V have barriers of their own: S of tile j + 1 needs K before P V of tile j needs V.
    std::uint64_t q_full, q_empty;
    std::uint64_t k_full[kStages], k_empty[kStages];
    std::uint64_t v_full[kStages], v_empty[kStages];
  };
  static constexpr std::size_t kSharedBytes = sizeof(Shared) + 1024;  // room to align the start
  static_assert(kSharedBytes <= 227 * 1024, "more shared memory than a block may have");
};
//! [flash_wgmma_shapes]

//! [flash_wgmma_schedule]
// The block's work list, the same for the producer and the consumers. A unit is one query tile,
// or, when causal, query tiles i and q_tiles - 1 - i of one head: i + 1 and q_tiles - i tiles of
// keys, q_tiles + 1 in all, so that every unit weighs the same and a static round-robin over the
// persistent blocks balances. Units run head-major: the blocks resident at once share a few
// heads' K and V in L2.
struct Schedule {
  int n;         // sequence length (queries = keys)
  int q_tiles;   // query tiles of a head
  int per_head;  // units of a head
  int units;     // bh * per_head
  bool causal;

  // Query tiles in @p unit: 1, or 2 for a causal pair (1 for the middle tile of an odd count).
  __host__ __device__ int tiles_in(int unit) const {
    if (!causal)
      return 1;
    const int pair = unit % per_head;
    return pair == q_tiles - 1 - pair ? 1 : 2;
  }
  // Query tile @p part of @p unit: x = head, y = query tile (the heavier of a pair first).
  __host__ __device__ int2 tile(int unit, int part) const {
    const int pair = unit % per_head;
    return make_int2(unit / per_head, causal && part == 0 ? q_tiles - 1 - pair : pair);
  }
  // Tiles of keys query tile @p q_tile needs: all of them, or (causal) up to its last row's.
  __host__ __device__ int kv_tiles(int q_tile) const {
    const int last = (q_tile + 1) * kBlockM;
    const int end = causal && last < n ? last : n;
    return (end + kBlockN - 1) / kBlockN;
  }
};

Schedule make_schedule(int bh, int n, bool causal) {
  Schedule s{};
  s.n = n;
  s.q_tiles = (n + kBlockM - 1) / kBlockM;
  s.causal = causal;
  s.per_head = causal ? (s.q_tiles + 1) / 2 : s.q_tiles;
  s.units = bh * s.per_head;
  return s;
}
//! [flash_wgmma_schedule]

// The @p index-th tile that passes through a ring of @p stages slots: its slot, and the parity
// of that slot's fill (the n-th fill of a slot completes phase n, parity n % 2).
struct Slot {
  int stage, phase;
};
__device__ inline Slot slot_of(int index, int stages) {
  return {index % stages, (index / stages) & 1};
}

//! [flash_wgmma_producer]
// One thread walks the block's query tiles in the consumers' order and keeps the ring full: Q,
// K_0, then K_(j+1) before V_j, the order in which the consumers need them (S of the next tile
// is issued before P V of this one). Before refilling a slot it waits until both consumers have
// released its previous fill: parity phase ^ 1, which a fresh barrier counts as complete.
template <int D>
__device__ void load_kv(bf16 (*tiles)[kBlockN * D], std::uint64_t* full, std::uint64_t* empty,
                        const CUtensorMap* map, int index, int key_tile, int head) {
  using C = Config<D>;
  const Slot s = slot_of(index, C::kStages);
  mbarrier_wait(&empty[s.stage], s.phase ^ 1);
  mbarrier_arrive_expect_bytes(&full[s.stage], C::kKvBytes);
#pragma unroll
  for (int c = 0; c < C::kColumnBlocks; ++c)
    tma_load_3d(tiles[s.stage] + c * kBlockN * kSwizzleCols, map, &full[s.stage], c * kSwizzleCols,
                key_tile * kBlockN, head);
}

template <int D>
__device__ void produce(typename Config<D>::Shared& sh, const CUtensorMap* map_q,
                        const CUtensorMap* map_k, const CUtensorMap* map_v,
                        const Schedule& schedule) {
  using C = Config<D>;
  int loaded = 0;  // K/V tiles loaded so far by this block: the ring's position
  int tiles = 0;   // query tiles so far: Q's phase
  for (int unit = blockIdx.x; unit < schedule.units; unit += gridDim.x) {
    for (int part = 0; part < schedule.tiles_in(unit); ++part, ++tiles) {
      const int2 tile = schedule.tile(unit, part);  // x: head, y: query tile
      const int kv_tiles = schedule.kv_tiles(tile.y);
      // Q is reloaded once both consumers have issued the last S that reads it: the rest of the
      // previous tile (its last P V and the store of O) runs under this load.
      mbarrier_wait(&sh.q_empty, (tiles & 1) ^ 1);
      mbarrier_arrive_expect_bytes(&sh.q_full, C::kQBytes);
#pragma unroll
      for (int c = 0; c < C::kColumnBlocks; ++c)
        tma_load_3d(sh.q + c * kBlockM * kSwizzleCols, map_q, &sh.q_full, c * kSwizzleCols,
                    tile.y * kBlockM, tile.x);
      load_kv<D>(sh.k, sh.k_full, sh.k_empty, map_k, loaded, 0, tile.x);
      for (int j = 0; j < kv_tiles; ++j) {
        if (j + 1 < kv_tiles)
          load_kv<D>(sh.k, sh.k_full, sh.k_empty, map_k, loaded + j + 1, j + 1, tile.x);
        load_kv<D>(sh.v, sh.v_full, sh.v_empty, map_v, loaded + j, j, tile.x);
      }
      loaded += kv_tiles;
    }
  }
}
//! [flash_wgmma_producer]

//! [flash_wgmma_products]
// S = Q K_j^T for this warpgroup's 64 rows: D / 16 wgmma m64n128k16, Q and K both K-major in
// shared memory (lesson 12's descriptors: 1024 bytes from one group of 8 rows to the next, 32
// bytes further along a swizzled row per k16 step, the next column block past 64). The first
// step overwrites S: no zeroing.
template <int D>
__device__ void issue_scores(float (&s)[64], const bf16* q_tile, const bf16* k_tile, int consumer) {
  fence_registers(s);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    const int block = kk / 4, col = kk % 4 * 16;  // column block of 64, column in it
    const bf16* a = q_tile + (block * kBlockM + consumer * 64) * kSwizzleCols + col;
    const bf16* b = k_tile + block * kBlockN * kSwizzleCols + col;
    wgmma_m64n128k16_ss(s, smem_descriptor(a, kGroupStride, Swizzle::Bytes128),
                        smem_descriptor(b, kGroupStride, Swizzle::Bytes128), kk > 0);
  }
  wgmma_commit_group();
}

// O += P V_j: kBlockN / 16 wgmma m64n{D}k16, P's fragments from registers, V from shared memory
// as an MN-major B operand: its rows are keys (the k of this product), its 128-byte rows hold 64
// columns of O (the n). In the descriptor, 1024 bytes lead from one group of 8 keys to the next,
// the leading offset from one column block of 64 to the next (a whole 128-key block, 16 KB); a
// k16 step moves 16 keys, 16 rows of 128 bytes, further.
template <int D>
__device__ void issue_values(float (&acc)[D / 2], std::uint32_t (&p)[kBlockN / 16][4],
                             const bf16* v_tile) {
  constexpr std::uint32_t kColumnBlockBytes = kBlockN * kSwizzleCols * sizeof(bf16);
  fence_registers(acc);
  fence_registers(p);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < kBlockN / 16; ++kk) {
    const std::uint64_t b = smem_descriptor(v_tile + kk * 16 * kSwizzleCols, kGroupStride,
                                            Swizzle::Bytes128, kColumnBlockBytes);
    if constexpr (D == 128)
      wgmma_m64n128k16_rs(acc, p[kk], b);
    else
      wgmma_m64n64k16_rs(acc, p[kk], b);
  }
  wgmma_commit_group();
}
//! [flash_wgmma_products]

//! [flash_wgmma_consumer]
// A consumer warpgroup, for each of the block's query tiles: S_0 and its softmax alone; then for
// j = 1, 2, ...: issue S_j and O += P_(j-1) V_(j-1) back to back, wait for S_j only (one group
// may stay in flight), release K_j, mask and exponentiate S_j while P_(j-1) V_(j-1) runs, then
// wait for that too, release V_(j-1), and turn S_j into P_j. The last P V comes after the loop.
// O is rescaled by alpha just before each P V is issued: alpha belongs to the tile before.
template <int D>
__device__ void consume(typename Config<D>::Shared& sh, float* __restrict__ o,
                        const Schedule& schedule, float scale_log2) {
  using C = Config<D>;
  const int consumer = threadIdx.x / 128 - 1;
  const int thread = threadIdx.x % 128;
  const bool leader = thread == 0;  // arrives on the empty barriers for its warpgroup
  const int n = schedule.n;
  const bool causal = schedule.causal;
  int used = 0;   // K/V tiles consumed so far by this block: the ring's position
  int tiles = 0;  // query tiles so far: Q's phase
  for (int unit = blockIdx.x; unit < schedule.units; unit += gridDim.x) {
    for (int part = 0; part < schedule.tiles_in(unit); ++part, ++tiles) {
      const int2 tile = schedule.tile(unit, part);
      const int kv_tiles = schedule.kv_tiles(tile.y);
      const int first_row = tile.y * kBlockM + consumer * 64;          // this warpgroup's first row
      const int row = first_row + thread / 32 * 16 + thread % 32 / 4;  // and row + 8
      // Tile j needs a mask when it reaches past n, or (causal) past this warpgroup's first row.
      const auto needs_mask = [&](int j) {
        const int last_key = (j + 1) * kBlockN - 1;
        return last_key >= n || (causal && last_key > first_row);
      };
      float acc[D / 2];
#pragma unroll
      for (int i = 0; i < D / 2; ++i)
        acc[i] = 0.0f;
      float s[64];
      std::uint32_t p[kBlockN / 16][4];
      float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f}, alpha[2] = {0.0f, 0.0f};

      mbarrier_wait(&sh.q_full, tiles & 1);
      {  // S_0 and its softmax: nothing to overlap with yet
        const Slot k_slot = slot_of(used, C::kStages);
        mbarrier_wait(&sh.k_full[k_slot.stage], k_slot.phase);
        issue_scores<D>(s, sh.q, sh.k[k_slot.stage], consumer);
        wgmma_wait_group<0>();
        fence_registers(s);
        if (leader) {
          mbarrier_arrive(&sh.k_empty[k_slot.stage]);
          if (kv_tiles == 1)
            mbarrier_arrive(&sh.q_empty);  // the last S that reads Q
        }
        if (needs_mask(0))
          mask_scores(s, 0, row, n, causal);
        online_softmax(s, m, l, alpha, scale_log2);
        convert(p, s);
      }
      for (int j = 1; j < kv_tiles; ++j) {
        const Slot k_slot = slot_of(used + j, C::kStages);
        const Slot v_slot = slot_of(used + j - 1, C::kStages);
        mbarrier_wait(&sh.k_full[k_slot.stage], k_slot.phase);
        mbarrier_wait(&sh.v_full[v_slot.stage], v_slot.phase);
        issue_scores<D>(s, sh.q, sh.k[k_slot.stage], consumer);  // S_j ...
        rescale(acc, alpha);                                     // (O to the maximum of S_(j-1))
        issue_values<D>(acc, p, sh.v[v_slot.stage]);             // ... and O += P_(j-1) V_(j-1)
        wgmma_wait_group<1>();  // S_j has landed; P_(j-1) V_(j-1) may still run
        fence_registers(s);
        if (leader) {
          mbarrier_arrive(&sh.k_empty[k_slot.stage]);
          if (j == kv_tiles - 1)
            mbarrier_arrive(&sh.q_empty);
        }
        if (needs_mask(j))
          mask_scores(s, j * kBlockN, row, n, causal);
        online_softmax(s, m, l, alpha, scale_log2);
        wgmma_wait_group<0>();  // P_(j-1) V_(j-1) is done: p and V_(j-1)'s slot are free
        fence_registers(acc);
        fence_registers(p);
        if (leader)
          mbarrier_arrive(&sh.v_empty[v_slot.stage]);
        convert(p, s);
      }
      {  // the last P V
        const Slot v_slot = slot_of(used + kv_tiles - 1, C::kStages);
        mbarrier_wait(&sh.v_full[v_slot.stage], v_slot.phase);
        rescale(acc, alpha);
        issue_values<D>(acc, p, sh.v[v_slot.stage]);
        wgmma_wait_group<0>();
        fence_registers(acc);
        fence_registers(p);
        if (leader)
          mbarrier_arrive(&sh.v_empty[v_slot.stage]);
      }
      used += kv_tiles;
      store_output<D>(acc, l, o + static_cast<std::size_t>(tile.x) * n * D, row, n);
    }
  }
}
//! [flash_wgmma_consumer]

//! [flash_wgmma_kernel]
// Warpgroup 0 produces (one thread), 1 and 2 consume. setmaxnreg moves registers from the
// producer, which needs a few dozen, to the consumers, which hold S, P and O (about 190).
template <int D>
__global__ void __launch_bounds__(kThreads, 1)
    flash_wgmma_kernel(const __grid_constant__ CUtensorMap map_q,
                       const __grid_constant__ CUtensorMap map_k,
                       const __grid_constant__ CUtensorMap map_v, float* __restrict__ o,
                       Schedule schedule, float scale_log2) {
  using C = Config<D>;
  extern __shared__ unsigned char raw[];
  auto& sh = *reinterpret_cast<typename C::Shared*>((reinterpret_cast<std::uintptr_t>(raw) + 1023) &
                                                    ~std::uintptr_t{1023});
  if (threadIdx.x == 0) {
    mbarrier_init(&sh.q_full, 1);
    mbarrier_init(&sh.q_empty, kConsumers);
    for (int i = 0; i < C::kStages; ++i) {
      mbarrier_init(&sh.k_full[i], 1);
      mbarrier_init(&sh.k_empty[i], kConsumers);
      mbarrier_init(&sh.v_full[i], 1);
      mbarrier_init(&sh.v_empty[i], kConsumers);
    }
    fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x < 128) {
    setmaxnreg_decrease<kProducerRegisters>();
    if (threadIdx.x == 0)
      produce<D>(sh, &map_q, &map_k, &map_v, schedule);
  } else {
    setmaxnreg_increase<kConsumerRegisters>();
    consume<D>(sh, o, schedule, scale_log2);
  }
}
//! [flash_wgmma_kernel]

//! [flash_wgmma_launch]
// One 3D map per operand, [bh][n][d] in boxes of one head, the tile's rows and 64 columns: a box
// reaching past row n of a head arrives with zeros, not the next head's rows. The grid is
// persistent, one block per SM.
template <int D>
void launch(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, bool causal,
            cudaStream_t stream) {
  using C = Config<D>;
  const auto map = [&](const bf16* base, int box_rows) {
    return tensor_map_3d(base, bh, n, D, box_rows, kSwizzleCols, CU_TENSOR_MAP_SWIZZLE_128B);
  };
  const CUtensorMap map_q = map(q, kBlockM), map_k = map(k, kBlockN), map_v = map(v, kBlockN);
  static const bool configured = [] {
    CUDA_CHECK(cudaFuncSetAttribute(flash_wgmma_kernel<D>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(C::kSharedBytes)));
    return true;
  }();
  (void)configured;
  const Schedule schedule = make_schedule(bh, n, causal);
  const int grid = std::min(schedule.units, gpu_info().sm_count);
  const float scale_log2 =
      1.4426950408889634f / std::sqrt(static_cast<float>(D));  // log2(e)/sqrt(d)
  flash_wgmma_kernel<D>
      <<<grid, kThreads, C::kSharedBytes, stream>>>(map_q, map_k, map_v, o, schedule, scale_log2);
  CUDA_CHECK_LAST();
}
//! [flash_wgmma_launch]

}  // namespace

void run_flash_wgmma(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                     bool causal, cudaStream_t stream) {
  if (d == 64)
    launch<64>(q, k, v, o, bh, n, causal, stream);
  else
    launch<128>(q, k, v, o, bh, n, causal, stream);
}

}  // namespace course::lesson13
