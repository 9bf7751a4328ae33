// Lesson 13, the given rung and the pipeline it shares with online_softmax: S = scale Q K^T, a
// softmax step, O = P V, three kernels per block of scores, S held in global memory in between.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>

#include "attention_rungs.cuh"
#include "course/buffer.hpp"
#include "course/error.hpp"
#include "course/indexing.hpp"

namespace course::lesson13 {

namespace {

// The most memory a block of scores (and its log-sum-exps) may take: at the demo's size, 16 of
// its 32 heads, so the pipeline runs twice.
constexpr std::size_t kScoreBudget = std::size_t{1} << 30;

// The scores' memory, kept between calls so that no timed call allocates (growing frees the old
// memory: cudaFree waits for the device). One stream at a time.
std::mutex workspace_mutex;
float* score_workspace(std::size_t count) {
  static DeviceBuffer<float> buffer;
  const std::lock_guard lock(workspace_mutex);
  if (buffer.size() < count)
    buffer = DeviceBuffer<float>(count);
  return buffer.data();
}

// Eight BF16 values (one 16-byte chunk) widened to floats, exactly.
__device__ __forceinline__ void widen8(const uint4& chunk, float (&out)[8]) {
  const auto* values = reinterpret_cast<const bf16*>(&chunk);
#pragma unroll
  for (int e = 0; e < 8; ++e)
    out[e] = __bfloat162float(values[e]);
}

__device__ __forceinline__ uint4 load_chunk(const bf16* from, bool valid) {
  return valid ? *reinterpret_cast<const uint4*>(from) : uint4{0, 0, 0, 0};
}

//! [scores_kernel]
// S = scale Q K^T for one block of scores: lesson 12's simt_bf16 tiles (128 x 128 per block, an
// 8 x 8 square per thread, d in steps of 8), with Q as A and K as B: both are read along d, as
// the dot products run. Each step a thread copies one 16-byte chunk of Q or K and widens it into
// the [p][row] tiles, from which a thread's 8 rows and 8 keys are two float4 each. When causal, a
// tile whose first key lies past its last row is all masked: it is neither computed nor written.
constexpr int kScoreTile = 128;
constexpr int kScoreStep = 8;
constexpr int kScoreThreads = 256;

__global__ void __launch_bounds__(kScoreThreads)
    scores_kernel(const bf16* __restrict__ q, const bf16* __restrict__ k, ScoreBlock block, int d,
                  float scale) {
  __shared__ __align__(16) float q_tile[kScoreStep][kScoreTile];  // [p][row]
  __shared__ __align__(16) float k_tile[kScoreStep][kScoreTile];  // [p][key]
  const int head = blockIdx.z;
  const int row_base = blockIdx.y * kScoreTile;  // in the block's rows
  const int key_base = blockIdx.x * kScoreTile;
  const int last_row = block.row0 + min(row_base + kScoreTile, block.rows) - 1;
  if (block.causal && key_base > last_row)
    return;
  const bf16* q_rows = q + (static_cast<std::size_t>(head) * block.n + block.row0) * d;
  const bf16* k_rows = k + static_cast<std::size_t>(head) * block.n * d;
  const int tid = threadIdx.x;
  const int ty = tid / 16, tx = tid % 16;
  const int r = tid % kScoreTile;  // the row (or key) this thread copies
  float acc[8][8] = {};
  for (int p0 = 0; p0 < d; p0 += kScoreStep) {
    float values[8];
    if (tid < kScoreTile) {
      const int row = row_base + r;
      widen8(load_chunk(q_rows + static_cast<std::size_t>(row) * d + p0, row < block.rows), values);
#pragma unroll
      for (int e = 0; e < 8; ++e)
        q_tile[e][r] = values[e];
    } else {
      const int key = key_base + r;
      widen8(load_chunk(k_rows + static_cast<std::size_t>(key) * d + p0, key < block.n), values);
#pragma unroll
      for (int e = 0; e < 8; ++e)
        k_tile[e][r] = values[e];
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < kScoreStep; ++p) {
      float a[8], b[8];
#pragma unroll
      for (int e = 0; e < 8; e += 4) {
        *reinterpret_cast<float4*>(&a[e]) =
            *reinterpret_cast<const float4*>(&q_tile[p][ty * 8 + e]);
        *reinterpret_cast<float4*>(&b[e]) =
            *reinterpret_cast<const float4*>(&k_tile[p][tx * 8 + e]);
      }
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[i][j] += a[i] * b[j];
    }
    __syncthreads();  // the next step overwrites the tiles
  }
  float* s_rows = block.s + static_cast<std::size_t>(head) * block.rows * block.n;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int row = row_base + ty * 8 + i;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int key = key_base + tx * 8 + j;
      if (row < block.rows && key < block.n)
        s_rows[static_cast<std::size_t>(row) * block.n + key] = scale * acc[i][j];
    }
  }
}
//! [scores_kernel]

//! [softmax_three_pass_kernel]
// The textbook softmax, one warp per row of S, in three passes over the row: its maximum m, then
// l = sum exp(s - m), then P = exp(s - m) / l written over S. Subtracting m keeps every exp at
// most 1: exp(100) overflows a float. Three reads of S and one write per row, all of it DRAM
// traffic at the demo's size (2 GiB of S per pass): this kernel is memory-bound.
__device__ __forceinline__ float warp_max(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    x = fmaxf(x, __shfl_xor_sync(0xFFFFFFFFu, x, offset));
  return x;
}

__device__ __forceinline__ float warp_sum(float x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    x += __shfl_xor_sync(0xFFFFFFFFu, x, offset);
  return x;
}

__global__ void softmax_three_pass_kernel(ScoreBlock block) {
  const int row_index = (blockIdx.x * blockDim.x + threadIdx.x) / 32;  // h * rows + i
  const int lane = threadIdx.x % 32;
  if (row_index >= block.heads * block.rows)
    return;  // the whole warp: no shuffle below misses a lane
  const int i = row_index % block.rows;
  float* row = block.s + static_cast<std::size_t>(row_index) * block.n;
  const int len = block.causal ? min(block.n, block.row0 + i + 1) : block.n;
  float m = -INFINITY;
  for (int j = lane; j < len; j += 32)
    m = fmaxf(m, row[j]);
  m = warp_max(m);
  float l = 0.0f;
  for (int j = lane; j < len; j += 32)
    l += expf(row[j] - m);
  l = warp_sum(l);
  const float inverse = 1.0f / l;
  for (int j = lane; j < len; j += 32)
    row[j] = expf(row[j] - m) * inverse;
}
//! [softmax_three_pass_kernel]

void softmax_three_pass(const ScoreBlock& block, cudaStream_t stream) {
  constexpr int kThreads = 256;  // 8 rows per block
  const long long warps = static_cast<long long>(block.heads) * block.rows;
  softmax_three_pass_kernel<<<static_cast<unsigned>((warps + 7) / 8), kThreads, 0, stream>>>(block);
  CUDA_CHECK_LAST();
}

//! [weighted_sum_kernel]
// O = P V for one block of scores: a block of 256 threads owns 64 rows of O and all D of their
// columns, each thread 4 rows by D / 16 columns, and steps along the keys by 16. P arrives as
// the softmax step left it: probabilities, or scores and each row's log-sum-exp, from which
// p = exp(s - lse) as it is loaded. A key past the row's causal limit, or past n, counts 0.
constexpr int kSumRows = 64;
constexpr int kSumStep = 16;
constexpr int kSumThreads = 256;

template <int D>
__global__ void __launch_bounds__(kSumThreads)
    weighted_sum_kernel(ScoreBlock block, const bf16* __restrict__ v, float* __restrict__ o,
                        bool from_lse) {
  // [key][row], rows padded from 64 to 68 floats: the transposing stores below meet two banks
  // at most, and a thread's 4 rows stay one aligned float4.
  __shared__ __align__(16) float p_tile[kSumStep][kSumRows + 4];
  __shared__ __align__(16) float v_tile[kSumStep][D];  // [key][col]
  constexpr int kGroups = D / 64;                      // float4 columns per thread: 1 or 2
  const int head = blockIdx.y;
  const int row_base = blockIdx.x * kSumRows;
  const int tid = threadIdx.x;
  const int ty = tid / 16, tx = tid % 16;
  const float* s_rows = block.s + static_cast<std::size_t>(head) * block.rows * block.n;
  const bf16* v_head = v + static_cast<std::size_t>(head) * block.n * D;
  // The keys this tile of rows needs: all of them, or up to its last row's when causal.
  const int last_row = block.row0 + min(row_base + kSumRows, block.rows) - 1;
  const int keys = block.causal ? min(block.n, last_row + 1) : block.n;
  // The row and the four keys of each step that this thread copies into p_tile.
  const int p_row = row_base + tid / 4;
  const int p_key = tid % 4 * 4;
  const bool p_in = p_row < block.rows;
  const int p_limit = !p_in ? 0 : block.causal ? min(block.n, block.row0 + p_row + 1) : block.n;
  const float lse = from_lse && p_in ? block.lse[head * block.rows + p_row] : 0.0f;
  float acc[4][4 * kGroups] = {};
  for (int j0 = 0; j0 < keys; j0 += kSumStep) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int j = j0 + p_key + e;
      float p = 0.0f;
      if (j < p_limit) {
        const float x = s_rows[static_cast<std::size_t>(p_row) * block.n + j];
        p = from_lse ? expf(x - lse) : x;
      }
      p_tile[p_key + e][tid / 4] = p;
    }
    if (tid < kSumStep * D / 8) {  // one 16-byte chunk of V each
      const int key = tid / (D / 8), col = tid % (D / 8) * 8;
      const int j = j0 + key;
      float values[8];
      widen8(load_chunk(v_head + static_cast<std::size_t>(j) * D + col, j < keys), values);
#pragma unroll
      for (int e = 0; e < 8; ++e)
        v_tile[key][col + e] = values[e];
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kSumStep; ++kk) {
      const float4 a = *reinterpret_cast<const float4*>(&p_tile[kk][ty * 4]);
      const float rows_p[4] = {a.x, a.y, a.z, a.w};
#pragma unroll
      for (int g = 0; g < kGroups; ++g) {
        const float4 b = *reinterpret_cast<const float4*>(&v_tile[kk][g * 64 + tx * 4]);
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          acc[r][4 * g + 0] += rows_p[r] * b.x;
          acc[r][4 * g + 1] += rows_p[r] * b.y;
          acc[r][4 * g + 2] += rows_p[r] * b.z;
          acc[r][4 * g + 3] += rows_p[r] * b.w;
        }
      }
    }
    __syncthreads();  // the next step overwrites the tiles
  }
  float* o_rows = o + (static_cast<std::size_t>(head) * block.n + block.row0) * D;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int row = row_base + ty * 4 + r;
    if (row >= block.rows)
      continue;
#pragma unroll
    for (int g = 0; g < kGroups; ++g)
      *reinterpret_cast<float4*>(&o_rows[static_cast<std::size_t>(row) * D + g * 64 + tx * 4]) =
          make_float4(acc[r][4 * g], acc[r][4 * g + 1], acc[r][4 * g + 2], acc[r][4 * g + 3]);
  }
}
//! [weighted_sum_kernel]

void launch_scores(const bf16* q, const bf16* k, const ScoreBlock& block, int d,
                   cudaStream_t stream) {
  const dim3 grid(blocks_for(block.n, kScoreTile), blocks_for(block.rows, kScoreTile), block.heads);
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  scores_kernel<<<grid, kScoreThreads, 0, stream>>>(q, k, block, d, scale);
  CUDA_CHECK_LAST();
}

void launch_weighted_sum(const ScoreBlock& block, const bf16* v, float* o, int d,
                         SoftmaxOutput output, cudaStream_t stream) {
  const dim3 grid(blocks_for(block.rows, kSumRows), block.heads);
  const bool from_lse = output == SoftmaxOutput::LogSumExp;
  if (d == 64)
    weighted_sum_kernel<64><<<grid, kSumThreads, 0, stream>>>(block, v, o, from_lse);
  else
    weighted_sum_kernel<128><<<grid, kSumThreads, 0, stream>>>(block, v, o, from_lse);
  CUDA_CHECK_LAST();
}

}  // namespace

void three_kernels(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                   bool causal, cudaStream_t stream, SoftmaxStep softmax, SoftmaxOutput output) {
  // Whole heads per block where one head's scores fit the budget (up to n = 16384), else rows of
  // one head; each row of scores comes with its log-sum-exp.
  const std::size_t row_floats = static_cast<std::size_t>(n) + 1;
  const std::size_t budget = kScoreBudget / sizeof(float);
  int heads = 1, rows = n;
  if (row_floats * n <= budget)
    heads = static_cast<int>(std::min<std::size_t>(bh, budget / (row_floats * n)));
  else
    rows = static_cast<int>(budget / row_floats);
  const std::size_t scores = static_cast<std::size_t>(heads) * rows * n;
  const std::size_t lse_at = (scores + 3) / 4 * 4;  // the log-sum-exps on a 16-byte boundary
  float* const memory = score_workspace(lse_at + static_cast<std::size_t>(heads) * rows);
  const std::size_t head_elements = static_cast<std::size_t>(n) * d;
  for (int h0 = 0; h0 < bh; h0 += heads)
    for (int r0 = 0; r0 < n; r0 += rows) {
      const ScoreBlock block{
          memory, memory + lse_at, std::min(heads, bh - h0), std::min(rows, n - r0), r0, n, causal};
      const std::size_t at = h0 * head_elements;
      launch_scores(q + at, k + at, block, d, stream);
      softmax(block, stream);
      launch_weighted_sum(block, v + at, o + at, d, output, stream);
    }
}

void run_unfused(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                 bool causal, cudaStream_t stream) {
  three_kernels(q, k, v, o, bh, n, d, causal, stream, softmax_three_pass,
                SoftmaxOutput::Probabilities);
}

}  // namespace course::lesson13
