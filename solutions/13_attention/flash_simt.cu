// Lesson 13, the flash_simt rung solved: FlashAttention's fused kernel on the CUDA cores. A block
// keeps 64 rows of Q in shared memory and streams K and V through it tile by tile; the scores of
// a tile live in registers, their probabilities in shared memory for one product, and the online
// softmax rescales the output accumulator whenever a row's maximum grows. S never reaches DRAM.
#include <cmath>

#include "attention_rungs.cuh"
#include "course/error.hpp"
#include "course/indexing.hpp"

namespace course::lesson13 {

namespace {

//! [flash_simt_kernel]
// A block of 256 threads owns 64 query rows; thread (ty, tx) = (tid / 16, tid % 16) owns rows
// 4 ty .. 4 ty + 3 of them in both products, so each row's softmax state (m, l) lives in the 16
// lanes of one half-warp, which combine by shuffles. Per tile of kBc keys:
//   S: the thread's 4 rows x kBc / 16 keys (keys tx * kBc / 16 ...), from Q^T and K^T in shared
//      memory ([c][row], [c][key]), one float4 of each per step of c: lesson 03's register tile.
//   softmax: the row's tile maximum by shuffles; m_new = max(m, that); the old accumulator and l
//      are worth exp(m - m_new) of what they were; p = exp(s - m_new) into P^T ([key][row]).
//   O += P V: the thread's 4 rows x D / 16 columns, one float4 of P^T and D / 64 float4 of V
//      per key.
// The scale 1 / sqrt(d) and log2(e) are folded into Q as it is loaded, so the exponentials are
// exp2f of a difference. K and V take turns in one buffer: at d = 128 the tiles fit the 64 KB a
// Turing block may have (Q 32 KB, K or V 16 KB, P 8 KB).
constexpr int kBr = 64;
constexpr int kThreads = 256;

template <int D>
struct Tiles {
  static constexpr int kBc = D == 64 ? 64 : 32;  // keys per tile
  static constexpr int kKeysPerThread = kBc / 16;
  static constexpr int kQ = D * kBr;    // Q^T, [c][row]
  static constexpr int kKv = D * kBc;   // K^T [c][key], then V [key][c]
  static constexpr int kP = kBc * kBr;  // P^T, [key][row]
  static constexpr std::size_t kBytes = sizeof(float) * (kQ + kKv + kP);
};

// Eight BF16 values (one 16-byte chunk) widened to floats, exactly.
__device__ __forceinline__ void widen8(const bf16* from, bool valid, float (&out)[8]) {
  const uint4 chunk = valid ? *reinterpret_cast<const uint4*>(from) : uint4{0, 0, 0, 0};
  const auto* values = reinterpret_cast<const bf16*>(&chunk);
#pragma unroll
  for (int e = 0; e < 8; ++e)
    out[e] = __bfloat162float(values[e]);
}

// Max and sum over the 16 lanes of a half-warp: the 16 threads that share a row.
__device__ __forceinline__ float row_max(float x) {
#pragma unroll
  for (int offset = 8; offset > 0; offset /= 2)
    x = fmaxf(x, __shfl_xor_sync(0xFFFFFFFFu, x, offset));
  return x;
}
__device__ __forceinline__ float row_sum(float x) {
#pragma unroll
  for (int offset = 8; offset > 0; offset /= 2)
    x += __shfl_xor_sync(0xFFFFFFFFu, x, offset);
  return x;
}

template <int D>
__global__ void __launch_bounds__(kThreads, 2)
    flash_simt_kernel(const bf16* __restrict__ q, const bf16* __restrict__ k,
                      const bf16* __restrict__ v, float* __restrict__ o, int n, bool causal,
                      float q_scale) {
  using T = Tiles<D>;
  constexpr int kBc = T::kBc, kKpt = T::kKeysPerThread, kGroups = D / 64;
  extern __shared__ __align__(16) float shared[];
  float* q_t = shared;       // [D][kBr]
  float* kv = q_t + T::kQ;   // K^T [D][kBc], then V [kBc][D]
  float* p_t = kv + T::kKv;  // [kBc][kBr]
  const int tid = threadIdx.x, ty = tid / 16, tx = tid % 16;
  // Causal rows further down see more keys: the longest blocks start first.
  const int tile = causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int q0 = tile * kBr;
  const std::size_t head = static_cast<std::size_t>(blockIdx.y) * n * D;
  // Q^T, scaled: lanes take consecutive rows of one 16-byte chunk, so the transposing stores hit
  // 32 different banks. Rows past n load as zeros (their scores are finite and never stored).
  for (int c = tid; c < kBr * D / 8; c += kThreads) {
    const int row = c % kBr, col = c / kBr * 8;
    float values[8];
    widen8(q + head + static_cast<std::size_t>(q0 + row) * D + col, q0 + row < n, values);
#pragma unroll
    for (int e = 0; e < 8; ++e)
      q_t[(col + e) * kBr + row] = values[e] * q_scale;
  }
  float acc[4][4 * kGroups] = {};
  float m[4], l[4];
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.0f;
  }
  const int keys = causal ? min(n, q0 + kBr) : n;  // the last row's keys, when causal
  for (int j0 = 0; j0 < keys; j0 += kBc) {
    for (int c = tid; c < kBc * D / 8; c += kThreads) {  // K^T, as Q^T
      const int key = c % kBc, col = c / kBc * 8;
      float values[8];
      widen8(k + head + static_cast<std::size_t>(j0 + key) * D + col, j0 + key < n, values);
#pragma unroll
      for (int e = 0; e < 8; ++e)
        kv[(col + e) * kBc + key] = values[e];
    }
    __syncthreads();  // Q^T (the first time) and K^T are in
    float s[4][kKpt] = {};
#pragma unroll 8
    for (int c = 0; c < D; ++c) {
      const float4 a = *reinterpret_cast<const float4*>(&q_t[c * kBr + ty * 4]);
      const float rows_q[4] = {a.x, a.y, a.z, a.w};
      float keys_k[kKpt];
      if constexpr (kKpt == 4) {
        const float4 b = *reinterpret_cast<const float4*>(&kv[c * kBc + tx * 4]);
        keys_k[0] = b.x, keys_k[1] = b.y, keys_k[2] = b.z, keys_k[3] = b.w;
      } else {
        const float2 b = *reinterpret_cast<const float2*>(&kv[c * kBc + tx * 2]);
        keys_k[0] = b.x, keys_k[1] = b.y;
      }
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int e = 0; e < kKpt; ++e)
          s[r][e] += rows_q[r] * keys_k[e];
    }
    // The online softmax, row by row: masked scores (past n, or past the row when causal) are
    // -inf, whose exp2 is 0. Every row has key 0 in the first tile, so m is finite from then on.
    float alpha[4], p[4][kKpt];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int row = q0 + ty * 4 + r;
      float tile_max = -INFINITY;
#pragma unroll
      for (int e = 0; e < kKpt; ++e) {
        const int key = j0 + tx * kKpt + e;
        if (key >= n || (causal && key > row))
          s[r][e] = -INFINITY;
        tile_max = fmaxf(tile_max, s[r][e]);
      }
      const float m_new = fmaxf(m[r], row_max(tile_max));
      alpha[r] = exp2f(m[r] - m_new);  // 0 the first time: m = -inf
      float sum = 0.0f;
#pragma unroll
      for (int e = 0; e < kKpt; ++e) {
        p[r][e] = exp2f(s[r][e] - m_new);
        sum += p[r][e];
      }
      l[r] = l[r] * alpha[r] + row_sum(sum);
      m[r] = m_new;
    }
#pragma unroll
    for (int e = 0; e < kKpt; ++e)
      *reinterpret_cast<float4*>(&p_t[(tx * kKpt + e) * kBr + ty * 4]) =
          make_float4(p[0][e], p[1][e], p[2][e], p[3][e]);
    __syncthreads();  // K^T is read, P^T written: V may take K's place
    for (int c = tid; c < kBc * D / 8; c += kThreads) {  // V, row by row as it is stored
      const int key = c / (D / 8), col = c % (D / 8) * 8;
      float values[8];
      widen8(v + head + static_cast<std::size_t>(j0 + key) * D + col, j0 + key < n, values);
      *reinterpret_cast<float4*>(&kv[key * D + col]) =
          make_float4(values[0], values[1], values[2], values[3]);
      *reinterpret_cast<float4*>(&kv[key * D + col + 4]) =
          make_float4(values[4], values[5], values[6], values[7]);
    }
    __syncthreads();
    // The accumulator was summed against the old maxima: rescale it, then add this tile's P V.
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int c = 0; c < 4 * kGroups; ++c)
        acc[r][c] *= alpha[r];
#pragma unroll 4
    for (int key = 0; key < kBc; ++key) {
      const float4 a = *reinterpret_cast<const float4*>(&p_t[key * kBr + ty * 4]);
      const float rows_p[4] = {a.x, a.y, a.z, a.w};
#pragma unroll
      for (int g = 0; g < kGroups; ++g) {
        const float4 b = *reinterpret_cast<const float4*>(&kv[key * D + g * 64 + tx * 4]);
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          acc[r][4 * g + 0] += rows_p[r] * b.x;
          acc[r][4 * g + 1] += rows_p[r] * b.y;
          acc[r][4 * g + 2] += rows_p[r] * b.z;
          acc[r][4 * g + 3] += rows_p[r] * b.w;
        }
      }
    }
    __syncthreads();  // before the next tile's K takes V's place
  }
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int row = q0 + ty * 4 + r;
    if (row >= n)
      continue;
    const float inverse = 1.0f / l[r];
    float* out = o + head + static_cast<std::size_t>(row) * D;
#pragma unroll
    for (int g = 0; g < kGroups; ++g)
      *reinterpret_cast<float4*>(&out[g * 64 + tx * 4]) =
          make_float4(acc[r][4 * g] * inverse, acc[r][4 * g + 1] * inverse,
                      acc[r][4 * g + 2] * inverse, acc[r][4 * g + 3] * inverse);
  }
}
//! [flash_simt_kernel]

template <int D>
void launch(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, bool causal,
            cudaStream_t stream) {
  constexpr std::size_t kBytes = Tiles<D>::kBytes;
  static const bool configured = [] {  // above 48 KB, a block must ask for its shared memory
    CUDA_CHECK(cudaFuncSetAttribute(flash_simt_kernel<D>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(kBytes)));
    return true;
  }();
  (void)configured;
  const float q_scale = 1.4426950408889634f / std::sqrt(static_cast<float>(D));  // log2(e)/sqrt(d)
  const dim3 grid(blocks_for(n, kBr), bh);
  flash_simt_kernel<D><<<grid, kThreads, kBytes, stream>>>(q, k, v, o, n, causal, q_scale);
  CUDA_CHECK_LAST();
}

}  // namespace

void run_flash_simt(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                    bool causal, cudaStream_t stream) {
  if (d == 64)
    launch<64>(q, k, v, o, bh, n, causal, stream);
  else
    launch<128>(q, k, v, o, bh, n, causal, stream);
}

}  // namespace course::lesson13
