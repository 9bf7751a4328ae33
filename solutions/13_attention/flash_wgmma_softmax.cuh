// Lesson 13, the flash_wgmma rung solved: what a consumer warpgroup does in its registers between
// two wgmma. The masks, the online softmax, P's conversion to the A fragments of P V, and the
// store of O, all on the accumulator layout of wgmma m64nNk16. Included by flash_wgmma.cu alone.
#pragma once

#include <cmath>
#include <cstdint>

#include "attention_ptx.cuh"
#include "attention_rungs.cuh"

namespace course::lesson13 {

namespace {

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

}  // namespace

}  // namespace course::lesson13
