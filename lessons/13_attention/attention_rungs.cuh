/// @file
/// @brief Lesson 13's rungs, one launcher each, called by attention() after it has checked the
/// arguments; and the three-kernel pipeline that the two unfused rungs share. The given rung
/// lives in attention_given.cu, the exercises in online_softmax.cu, flash_simt.cu and
/// flash_mma.cu, the stretch rung in flash_wgmma.cu (compiled for sm_90a alone).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "attention.cuh"

namespace course::lesson13 {

// The launchers. attention() has checked the shape (1 <= bh, 1 <= n <= kMaxN, d 64 or 128,
// within kMaxElements: an empty call never reaches a launcher) and made q, k, v and o 16-byte
// aligned, so every row of each (d BF16 values or d floats) is a whole number of 16-byte chunks.
// Every launcher must order all its work on `stream`.
void run_unfused(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                 bool causal, cudaStream_t stream);
void run_online_softmax(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                        bool causal, cudaStream_t stream);
void run_flash_simt(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                    bool causal, cudaStream_t stream);
void run_flash_mma(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                   bool causal, cudaStream_t stream);
/// Defined only in a build that compiles flash_wgmma.cu (CUDA architectures that include 90).
void run_flash_wgmma(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                     bool causal, cudaStream_t stream);

// ---------------------------------------------------------------------------------------------
// The three-kernel pipeline (given, attention_given.cu): scores, a softmax step, the product.
// ---------------------------------------------------------------------------------------------

/// One block of scores that the three kernels hold in global memory at once: query rows
/// [row0, row0 + rows) of `heads` consecutive heads, against all n keys. At the demo's size the
/// whole S would take 2 GiB, so three_kernels() walks the problem in blocks of at most 1 GiB.
struct ScoreBlock {
  /// heads x rows x n scores, row-major: s[(h * rows + i) * n + j] = scale q_(row0+i) . k_j of
  /// the block's head h. When causal, only keys j <= row0 + i of a row are written (and read):
  /// the rest of the row holds whatever an earlier block left there.
  float* s;
  /// heads x rows floats: where a softmax step that leaves SoftmaxOutput::LogSumExp writes each
  /// row's log-sum-exp, log(sum_j exp(s_j)).
  float* lse;
  int heads;    ///< heads in the block
  int rows;     ///< query rows of each head in the block
  int row0;     ///< the first query row of the block, in every one of its heads
  int n;        ///< keys per head: the length of a row of s
  bool causal;  ///< row row0 + i sees keys j <= row0 + i only
};

/// What a softmax step leaves for the product O = P V.
enum class SoftmaxOutput {
  Probabilities,  ///< P itself, written over S: row i of s holds softmax(s_i), the product reads it
  LogSumExp,      ///< S untouched, lse written: the product forms p = exp(s - lse) as it reads S
};

/// A softmax step: launches its kernels on @p stream for @p block, with its result as the
/// three_kernels() call says (SoftmaxOutput).
using SoftmaxStep = void (*)(const ScoreBlock& block, cudaStream_t stream);

/// Attention in three kernels per block of scores, on @p stream: (1) S = scale Q K^T into the
/// block (register-tiled FFMA, tiles above the diagonal skipped when causal), (2) @p softmax,
/// (3) O = P V for the block's rows (register-tiled FFMA), P read as @p output says. The blocks'
/// memory is the lesson's, kept between calls so that no timed call allocates. The arguments are
/// those of the launchers above. run_unfused() is three_kernels() with the given three-pass
/// softmax.
void three_kernels(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                   bool causal, cudaStream_t stream, SoftmaxStep softmax, SoftmaxOutput output);

}  // namespace course::lesson13
