// Lesson 13, the online_softmax rung solved: the given three-kernel pipeline with a softmax step
// that reads each row of S once. It keeps a running maximum and a running sum, and leaves each
// row's log-sum-exp for the product kernel, which forms p = exp(s - lse) as it reads S: P is
// never written.
#include <cmath>

#include "attention_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson13 {

namespace {

//! [online_softmax_kernel]
// Two partial softmax sums of one row, (m1, l1) and (m2, l2), each l = sum exp(s - m) over its
// own scores, merged into one: both rescaled to the larger maximum. An empty part (no score yet,
// m = -inf, l = 0) contributes nothing; two empty parts stay empty (exp(-inf + inf) is NaN).
__device__ __forceinline__ void merge(float& m, float& l, float other_m, float other_l) {
  const float largest = fmaxf(m, other_m);
  if (largest == -INFINITY)
    return;
  l = l * expf(m - largest) + other_l * expf(other_m - largest);
  m = largest;
}

// One warp per row of S, one pass over it. Lane t visits keys t, t + 32, ... (the warp reads 128
// consecutive bytes at a time) and keeps the largest score m it has seen and l = sum exp(s - m)
// over its keys. A score above m moves m: the sum so far was taken against the old maximum, so
// it is rescaled by exp(m_old - m_new) before the new term, exp(0) = 1, is added. Five rounds of
// shuffles merge the 32 lanes' (m, l); lane 0 writes lse = m + log(l), which is all the product
// needs: p_j = exp(s_j - m) / l = exp(s_j - lse). One read of S, where the three-pass softmax
// reads it three times and writes P.
__global__ void online_softmax_kernel(ScoreBlock block) {
  const int row_index = (blockIdx.x * blockDim.x + threadIdx.x) / 32;  // h * rows + i
  const int lane = threadIdx.x % 32;
  if (row_index >= block.heads * block.rows)
    return;  // the whole warp: no shuffle below misses a lane
  const int i = row_index % block.rows;
  const float* row = block.s + static_cast<std::size_t>(row_index) * block.n;
  const int len = block.causal ? min(block.n, block.row0 + i + 1) : block.n;
  float m = -INFINITY, l = 0.0f;
  for (int j = lane; j < len; j += 32) {
    const float x = row[j];
    if (x > m) {
      l = l * expf(m - x) + 1.0f;  // exp(-inf) = 0 for the first score
      m = x;
    } else {
      l += expf(x - m);
    }
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other_m = __shfl_xor_sync(0xFFFFFFFFu, m, offset);
    const float other_l = __shfl_xor_sync(0xFFFFFFFFu, l, offset);
    merge(m, l, other_m, other_l);
  }
  if (lane == 0)
    block.lse[row_index] = m + logf(l);
}
//! [online_softmax_kernel]

void online_softmax(const ScoreBlock& block, cudaStream_t stream) {
  constexpr int kThreads = 256;  // 8 rows per block
  const long long warps = static_cast<long long>(block.heads) * block.rows;
  online_softmax_kernel<<<static_cast<unsigned>((warps + 7) / 8), kThreads, 0, stream>>>(block);
  CUDA_CHECK_LAST();
}

}  // namespace

void run_online_softmax(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                        bool causal, cudaStream_t stream) {
  three_kernels(q, k, v, o, bh, n, d, causal, stream, online_softmax, SoftmaxOutput::LogSumExp);
}

}  // namespace course::lesson13
