// Lesson 13, the first exercise: the softmax step of the three-kernel pipeline, in one pass over
// S. Write the kernel and its launch, and delete the `throw` in run_online_softmax. Run the
// grader after (README.md, "How to work on this lesson").
#include <cmath>

#include "attention_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson13 {

namespace {
constexpr const char* kHere = "lessons/13_attention/online_softmax.cu";
}  // namespace

//! [online_softmax_exercise]
// TODO(student): rung "online_softmax". The given pipeline (three_kernels(), attention_given.cu)
// writes S = scale Q K^T into a ScoreBlock and multiplies by V after your step; the given unfused
// rung's step reads each row of S three times (max, sum, normalize) and writes P. Yours reads it
// once and writes one float per row, its log-sum-exp; the product then forms exp(s - lse) itself.
//   1. One warp per row of the block: row_index = global thread index / 32, which is
//      h * block.rows + i; the row is block.s + row_index * block.n, and it has
//      len = block.causal ? min(block.n, block.row0 + i + 1) : block.n scores (the rest of a
//      causal row was never written: do not read it). Return the whole warp if row_index is past
//      block.heads * block.rows, before any shuffle.
//   2. Lane t visits j = t, t + 32, ... < len, keeping m, the largest score it has seen
//      (start at -INFINITY), and l = sum of exp(s_j - m) over its scores so far (start at 0).
//      When a score x beats m, the sum so far was taken against the old m: rescale it,
//      l = l * exp(m - x) + 1, then m = x. Otherwise l += exp(x - m). Every exp is at most 1, so
//      nothing overflows: a softmax without the max overflows on the tests' rows whose scores
//      reach 100 (exp(88.7) is FP32's largest).
//   3. Merge the 32 lanes' (m, l) with __shfl_xor_sync, offsets 16, 8, 4, 2, 1: with M the larger
//      of two maxima, l = l1 * exp(m1 - M) + l2 * exp(m2 - M), m = M. A lane that saw no score
//      has m = -inf; two of them merged must stay (-inf, 0), not NaN (exp(-inf - -inf)).
//   4. Lane 0 writes block.lse[row_index] = m + log(l).
// Launch 8 rows per block of 256 threads on `stream`, and CUDA_CHECK_LAST().
// Then run_online_softmax is one call: three_kernels(q, k, v, o, bh, n, d, causal, stream,
// <your launcher>, SoftmaxOutput::LogSumExp).
__global__ void online_softmax_kernel(ScoreBlock block) {}
//! [online_softmax_exercise]

void run_online_softmax(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                        bool causal, cudaStream_t stream) {
  throw NotImplemented("online_softmax", kHere);
}

}  // namespace course::lesson13
