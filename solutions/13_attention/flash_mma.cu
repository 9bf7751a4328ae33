// Lesson 13, the flash_mma rung solved: FlashAttention-2's kernel on the tensor cores. flash_simt's
// algorithm, with both products on mma.sync: K and V stream through two cp.async stages of
// swizzled shared memory, ldmatrix hands each lane its fragments, the scores and the online
// softmax never leave the registers, and P goes from the accumulators of S = Q K^T straight into
// the A operand of O += P V.
#include <cmath>
#include <cstdint>

#include "attention_ptx.cuh"
#include "attention_rungs.cuh"
#include "course/error.hpp"
#include "course/indexing.hpp"

namespace course::lesson13 {

namespace {

using namespace ptx;

//! [flash_mma_shapes]
// A block of 4 warps owns 128 rows of Q of one head; warp w owns rows 32 w .. 32 w + 31, two m16
// tiles, for the whole kernel. The two tiles share every B fragment of K and V: against 16 rows a
// warp, that halves the ldmatrix traffic per mma, which would otherwise bound the kernel before
// the tensor cores do. Keys come in tiles of 64, two stages of a K tile and a V tile: while the
// warps compute on one, cp.async fills the other.
constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kMt = 2;                  // m16 tiles of a warp
constexpr int kBr = kWarps * kMt * 16;  // query rows of a block
constexpr int kBc = 64;                 // keys of a tile
constexpr int kStages = 2;

template <int D>
struct Tiles {
  static constexpr int kRowBytes = 2 * D;  // a row of Q, K or V: 128 or 256 bytes
  static constexpr int kChunks = D / 8;    // its 16-byte chunks
  static_assert(kThreads % kChunks == 0, "a pass of the block copies whole rows");
  static constexpr int kKvBytes = kBc * kRowBytes;
  static constexpr int kStageBytes = 2 * kKvBytes;  // the K tile, then the V tile
  static constexpr int kQBytes = kBr * kRowBytes;
  // Q's A fragments take D / 2 registers a thread: 32 at d = 64, kept for the whole kernel (Q's
  // tile only passes through the second stage's space before the pipeline first fills it). At
  // d = 128 the 64 they would take do not fit beside 128 accumulators of O and 64 of S: Q keeps
  // a tile of its own, re-read by ldmatrix every k16 step.
  static constexpr bool kQInRegisters = D == 64;
  static constexpr int kSharedBytes = kStages * kStageBytes + (kQInRegisters ? 0 : kQBytes);
  static_assert(!kQInRegisters || kQBytes <= kStageBytes, "Q passes through one stage");
};
//! [flash_mma_shapes]

// The kernel's pieces use sm_80's instructions: a build for an older GPU compiles the kernel's
// empty shell alone (and unsupported() keeps the rung from launching there).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800

//! [flash_mma_swizzle]
// Where the 16-byte chunk @p chunk of row @p row lives in a tile of RowBytes-byte rows (lesson
// 12's swizzle). ldmatrix reads one chunk of eight consecutive rows: rows a multiple of 128 bytes
// apart would put them in the same four banks, c ^ (row % 8) spreads them over all 32. With
// 256-byte rows the XOR touches the chunk's low three bits only: a chunk stays in its half.
template <int RowBytes>
__device__ __forceinline__ int swizzled(int row, int chunk) {
  return row * RowBytes + ((chunk ^ (row % 8)) << 4);
}

// The fragment loads step through chunks 2 s + c (s the k16 step, c = 0 or 1 a lane) and rows
// r + 16 i. As 2 s and c share no bit, (2 s + c) ^ (r % 8) = (c ^ (r % 8)) ^ 2 s, so
//   swizzled(r + 16 i, 2 s + c) = (swizzled(r, c) ^ (s << 5)) + 16 i RowBytes:
// one offset a lane, an XOR a step and an immediate a row block, instead of a register for every
// (step, row block) of the unrolled loops.
__device__ __forceinline__ int step(int lane_offset, int s) {
  return lane_offset ^ (s << 5);
}
//! [flash_mma_swizzle]

//! [flash_mma_load]
// Starts the copy of rows [first, first + Rows) of a head's [n][D] matrix @p src into the swizzled
// tile @p tile: 16 bytes a cp.async, consecutive threads along a row (coalesced). Rows at or past
// n are zero-filled and never read: their scores are masked, and a zero row of V keeps
// 0 x garbage (NaN, perhaps) out of P V. A pass of the block covers kThreads / kChunks rows, a
// multiple of 8: every pass of a thread has the same chunk and row % 8, so the same swizzle, and
// its addresses are the first pass's plus a constant (written so, the compiler keeps one address
// instead of one per pass).
template <int D, int Rows>
__device__ __forceinline__ void load_rows(unsigned char* tile, const bf16* src, int first, int n) {
  using T = Tiles<D>;
  constexpr int kRowsPerPass = kThreads / T::kChunks;
  static_assert(kRowsPerPass % 8 == 0 && Rows % kRowsPerPass == 0, "whole passes");
  const int row = threadIdx.x / T::kChunks, chunk = threadIdx.x % T::kChunks;
  unsigned char* const to = tile + swizzled<T::kRowBytes>(row, chunk);
  const std::size_t from = static_cast<std::size_t>(first + row) * D + chunk * 8;
#pragma unroll
  for (int pass = 0; pass < Rows / kRowsPerPass; ++pass) {
    const bool in = first + row + pass * kRowsPerPass < n;
    cp_async_16(to + pass * kRowsPerPass * T::kRowBytes,
                in ? src + from + pass * kRowsPerPass * D : src, in);
  }
}
//! [flash_mma_load]

#endif  // !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800

//! [flash_mma_kernel]
// One block per (Q tile, head). Lane l = 4 g + t of a warp holds, of each of its m16 tiles, rows
// g and g + 8, and of each n8 tile of scores or outputs the columns 2 t and 2 t + 1 (mma.sync's
// accumulator layout): a row's values are spread over the lanes 4 g .. 4 g + 3, whose row max and
// row sum are two shuffles away.
template <int D>
__global__ void __launch_bounds__(kThreads, 2)
    flash_mma_kernel(const bf16* __restrict__ q, const bf16* __restrict__ k,
                     const bf16* __restrict__ v, float* __restrict__ o, int n, bool causal,
                     float scale_log2) {
#if __CUDA_ARCH__ >= 800
  using T = Tiles<D>;
  constexpr int kRowBytes = T::kRowBytes;
  constexpr int kKsteps = D / 16;    // k16 steps of Q K^T
  constexpr int kSt = kBc / 8;       // n8 tiles of a warp's scores
  constexpr int kOt = D / 8;         // n8 tiles of a warp's outputs
  constexpr int kPsteps = kBc / 16;  // k16 steps of P V
  extern __shared__ __align__(128) unsigned char shared[];

  // Causal Q tiles differ in work (tile i sees i + 1 tiles of keys): the heaviest go first, so
  // that the last wave is made of light ones.
  const int tile = causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int q0 = tile * kBr;
  const std::size_t head = static_cast<std::size_t>(blockIdx.y) * n * D;
  q += head;
  k += head;
  v += head;
  o += head;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int warp_row = warp * kMt * 16;  // in the Q tile
  const int first_row = q0 + warp_row, last_row = first_row + kMt * 16 - 1;

  unsigned char* const q_tile =
      shared + (T::kQInRegisters ? kStages - 1 : kStages) * T::kStageBytes;
  const int kv_end = causal ? min(n, q0 + kBr) : n;  // keys past it are above the diagonal
  const int kv_tiles = (kv_end + kBc - 1) / kBc;

  // The pipeline's prologue: Q joins the first K/V tile's group.
  load_rows<D, kBr>(q_tile, q, q0, n);
  load_rows<D, kBc>(shared, k, 0, n);
  load_rows<D, kBc>(shared + T::kKvBytes, v, 0, n);
  cp_async_commit();

  // Lane offsets of the three fragment loads (step()): Q and V as A-like x4 (rows lane % 16,
  // chunk lane / 16), K as two n8 B fragments (rows lane / 16 * 8 + lane % 8, chunk
  // lane / 8 % 2).
  const int q_offset = swizzled<kRowBytes>(warp_row + lane % 16, lane / 16);
  const int k_offset = swizzled<kRowBytes>(lane / 16 * 8 + lane % 8, lane / 8 % 2);
  const int v_offset = swizzled<kRowBytes>(lane % 16, lane / 16);
  // Q's A fragments, k16 step by k16 step: ldmatrix.x4 of rows lane % 16, chunk lane / 16 gives
  // {A[g][2t..], A[g + 8][2t..], A[g][2t + 8..], A[g + 8][2t + 8..]}.
  std::uint32_t q_frag[T::kQInRegisters ? kMt : 1][T::kQInRegisters ? kKsteps : 1][4];
  if constexpr (T::kQInRegisters) {
    cp_async_wait<0>();
    __syncthreads();
#pragma unroll
    for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
      for (int kk = 0; kk < kKsteps; ++kk)
        ldmatrix_x4(q_frag[mt][kk], q_tile + step(q_offset, kk) + mt * 16 * kRowBytes);
    // The first iteration's barrier orders these reads before the refill of Q's space.
  }

  float acc[kMt][kOt][4] = {};  // O, unnormalized
  float row_max[kMt][2];        // rows g and g + 8 of each m16 tile: the raw scores' maximum
  float row_sum[kMt][2];        // and this lane's part of the sum of their p
#pragma unroll
  for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      row_max[mt][h] = -INFINITY;
      row_sum[mt][h] = 0.0f;
    }

  for (int kt = 0; kt < kv_tiles; ++kt) {
    // Tile kt has landed, for everyone after the barrier; and everyone has finished tile kt - 1,
    // whose stage the copy below refills.
    cp_async_wait<0>();
    __syncthreads();
    const int next = kt + kStages - 1;
    if (next < kv_tiles) {
      unsigned char* stage = shared + next % kStages * T::kStageBytes;
      load_rows<D, kBc>(stage, k, next * kBc, n);
      load_rows<D, kBc>(stage + T::kKvBytes, v, next * kBc, n);
    }
    cp_async_commit();  // even when empty: wait_group counts tiles

    const int kv0 = kt * kBc;
    if (causal && kv0 > last_row)
      continue;  // every key of the tile is above the diagonal for all of this warp's rows
    const unsigned char* const k_tile = shared + kt % kStages * T::kStageBytes;
    const unsigned char* const v_tile = k_tile + T::kKvBytes;

    // S = Q K^T. K's tile is [key][d]: B = K^T stored column by column, as mma's .col wants it,
    // so ldmatrix without .trans. One x4 gives two n8 tiles (keys 16 np .. + 7 and + 8 .. + 15).
    float s[kMt][kSt][4] = {};
#pragma unroll
    for (int kk = 0; kk < kKsteps; ++kk) {
      std::uint32_t a[kMt][4];
#pragma unroll
      for (int mt = 0; mt < kMt; ++mt) {
        if constexpr (T::kQInRegisters) {
#pragma unroll
          for (int i = 0; i < 4; ++i)
            a[mt][i] = q_frag[mt][kk][i];
        } else {
          ldmatrix_x4(a[mt], q_tile + step(q_offset, kk) + mt * 16 * kRowBytes);
        }
      }
#pragma unroll
      for (int np = 0; np < kSt / 2; ++np) {
        std::uint32_t r[4];
        ldmatrix_x4(r, k_tile + step(k_offset, kk) + np * 16 * kRowBytes);
        const std::uint32_t b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
#pragma unroll
        for (int mt = 0; mt < kMt; ++mt) {
          mma_16816(s[mt][2 * np], a[mt], b0);
          mma_16816(s[mt][2 * np + 1], a[mt], b1);
        }
      }
    }

    // Masks, only on the tiles that need them: keys past n (the ragged last tile), and keys past
    // a row's own index (the tiles that cross this warp's part of the diagonal).
    if (kv0 + kBc > n || (causal && kv0 + kBc - 1 > first_row)) {
#pragma unroll
      for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
        for (int j = 0; j < kSt; ++j)
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const int key = kv0 + j * 8 + 2 * t + i % 2;
            const int row = first_row + mt * 16 + g + i / 2 * 8;
            if (key >= n || (causal && key > row))
              s[mt][j][i] = -INFINITY;
          }
    }

    // The online softmax. Scores stay raw (Q K^T); the scale and log2(e) fold into one FFMA,
    // p = 2^(s scale_log2 - m scale_log2). A row that has seen only masked keys has m = -inf:
    // subtract 0 instead, so that its p are 2^-inf = 0 rather than NaN.
#pragma unroll
    for (int mt = 0; mt < kMt; ++mt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float m = row_max[mt][h];
#pragma unroll
        for (int j = 0; j < kSt; ++j)
          m = fmaxf(m, fmaxf(s[mt][j][2 * h], s[mt][j][2 * h + 1]));
        m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, 1));
        m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, 2));
        const float m_scaled = m == -INFINITY ? 0.0f : m * scale_log2;
        // What the old terms are worth now that the maximum has grown: 1 when it has not, 0 on
        // the first tile (m was -inf; the sum and the accumulators are still 0).
        const float alpha = exp2_approx(row_max[mt][h] * scale_log2 - m_scaled);
        row_max[mt][h] = m;
        float sum = row_sum[mt][h] * alpha;
#pragma unroll
        for (int j = 0; j < kOt; ++j) {
          acc[mt][j][2 * h] *= alpha;
          acc[mt][j][2 * h + 1] *= alpha;
        }
#pragma unroll
        for (int j = 0; j < kSt; ++j)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const float p = exp2_approx(fmaf(s[mt][j][2 * h + e], scale_log2, -m_scaled));
            s[mt][j][2 * h + e] = p;
            sum += p;  // l sums the unrounded p: the README's "How exact is exact enough?"
          }
        row_sum[mt][h] = sum;
      }
    }

    // O += P V. The accumulators of two adjacent n8 score tiles are the A fragment of one k16
    // step: {P[g][2t..], P[g + 8][2t..], P[g][2t + 8..], P[g + 8][2t + 8..]} are tile 2 kk's
    // {c0 c1}, {c2 c3} and tile 2 kk + 1's {c0 c1}, {c2 c3}. P never leaves the registers. V's tile
    // is [key][d], d contiguous, but the B fragment wants two consecutive keys in a register:
    // ldmatrix.trans. Rows lane % 16 (keys), chunk lane / 16 give, per x4, the B fragments of two
    // n8 tiles of d.
#pragma unroll
    for (int kk = 0; kk < kPsteps; ++kk) {
      std::uint32_t p[kMt][4];
#pragma unroll
      for (int mt = 0; mt < kMt; ++mt) {
        p[mt][0] = pack_bf16x2(s[mt][2 * kk][0], s[mt][2 * kk][1]);
        p[mt][1] = pack_bf16x2(s[mt][2 * kk][2], s[mt][2 * kk][3]);
        p[mt][2] = pack_bf16x2(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
        p[mt][3] = pack_bf16x2(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
      }
#pragma unroll
      for (int dp = 0; dp < kOt / 2; ++dp) {
        std::uint32_t r[4];
        ldmatrix_x4_trans(r, v_tile + step(v_offset, dp) + kk * 16 * kRowBytes);
        const std::uint32_t b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
#pragma unroll
        for (int mt = 0; mt < kMt; ++mt) {
          mma_16816(acc[mt][2 * dp], p[mt], b0);
          mma_16816(acc[mt][2 * dp + 1], p[mt], b1);
        }
      }
    }
  }

  // O = acc / l, the row sum gathered from the row's four lanes. Every stored row has seen key 0
  // at least, and its maximum contributes 1: l >= 1.
#pragma unroll
  for (int mt = 0; mt < kMt; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float l = row_sum[mt][h];
      l += __shfl_xor_sync(0xFFFFFFFFu, l, 1);
      l += __shfl_xor_sync(0xFFFFFFFFu, l, 2);
      const float inverse = 1.0f / l;
      const int row = first_row + mt * 16 + g + 8 * h;
      if (row >= n)
        continue;
      float* const out = o + static_cast<std::size_t>(row) * D + 2 * t;
#pragma unroll
      for (int j = 0; j < kOt; ++j)
        *reinterpret_cast<float2*>(out + j * 8) =
            make_float2(acc[mt][j][2 * h] * inverse, acc[mt][j][2 * h + 1] * inverse);
    }
#endif
}
//! [flash_mma_kernel]

template <int D>
void launch(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, bool causal,
            cudaStream_t stream) {
  constexpr int kBytes = Tiles<D>::kSharedBytes;
  static const bool configured = [] {  // above 48 KB, a block must ask for its shared memory
    CUDA_CHECK(cudaFuncSetAttribute(flash_mma_kernel<D>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes));
    return true;
  }();
  (void)configured;
  const float scale_log2 =
      1.4426950408889634f / std::sqrt(static_cast<float>(D));  // log2(e)/sqrt(d)
  const dim3 grid(blocks_for(n, kBr), bh);
  flash_mma_kernel<D><<<grid, kThreads, kBytes, stream>>>(q, k, v, o, n, causal, scale_log2);
  CUDA_CHECK_LAST();
}

}  // namespace

void run_flash_mma(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                   bool causal, cudaStream_t stream) {
  if (d == 64)
    launch<64>(q, k, v, o, bh, n, causal, stream);
  else
    launch<128>(q, k, v, o, bh, n, causal, stream);
}

}  // namespace course::lesson13
