// Lesson 13, the second exercise: FlashAttention's fused kernel on the CUDA cores. One kernel
// does all three steps, and S never leaves the SM. Write the kernel, launch it, and delete the
// `throw` in run_flash_simt.
#include <cmath>

#include "attention_rungs.cuh"
#include "course/error.hpp"
#include "course/indexing.hpp"

namespace course::lesson13 {

namespace {
constexpr const char* kHere = "lessons/13_attention/flash_simt.cu";
}  // namespace

//! [flash_simt_exercise]
// TODO(student): rung "flash_simt". A block of 256 threads owns 64 rows of Q of one head
// (grid: blocks_for(n, 64) x bh); it walks the keys in tiles of kBc (64 when d = 64, 32 when
// d = 128) and keeps, for each of its rows, the running maximum m, the running sum l and the
// unnormalized output acc (d floats), exactly online_softmax's (m, l) with an output attached.
//   1. Shared memory, dynamic (template the kernel on D; raise the limit once with
//      cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...) for the 56 KB
//      of D = 128): Q^T as floats [D][64] (transposed: a thread's 4 rows at one c are one float4),
//      one buffer of D * kBc floats that holds K^T [D][kBc] and then V [kBc][D], and P^T [kBc][64].
//      Load Q^T once, multiplied by log2(e) / sqrt(d): scores come out in base 2, for exp2f.
//      Rows and keys past n load as zeros (attention() gave you 16-byte-aligned rows: use uint4).
//   2. Thread (ty, tx) = (tid / 16, tid % 16) owns rows 4 ty .. 4 ty + 3, in both products: its
//      rows' 16 threads are one half-warp, so a row's max and sum are __shfl_xor_sync with
//      offsets 8, 4, 2, 1. Per tile: load K^T; __syncthreads(); S for its 4 rows x kBc / 16
//      keys (a float4 of Q^T and kBc / 16 floats of K^T per c: lesson 03's register tile).
//   3. Mask: a key >= n, or > the row when causal, scores -INFINITY. Then per row:
//      m_new = max(m, the row's tile max); alpha = exp2f(m - m_new) (0 the first time, m = -inf);
//      p = exp2f(s - m_new); l = l * alpha + the row's sum of p; m = m_new. Store p into P^T.
//   4. __syncthreads() (K^T read, P^T written); load V over K^T; __syncthreads(). Multiply the
//      accumulator by alpha (it was summed against the old maximum: forget this and a row whose
//      maximum grows in a later tile is wrong), then acc += P V: per key, a float4 of P^T and
//      d / 64 float4 of V (columns g * 64 + tx * 4). __syncthreads() before the next K^T.
//   5. When causal, stop at the tile that holds the block's last row: later tiles are all masked.
//      Every row has key 0 in the first tile, so m is finite after it. Do not drop the last,
//      partial tile when n is not a multiple of kBc.
//   6. Store O = acc / l for the rows < n (float4 stores: O's rows are 16-byte aligned).
// __launch_bounds__(256, 2), and check with -Xptxas -v that nothing spills.
__global__ void flash_simt_kernel() {}
//! [flash_simt_exercise]

void run_flash_simt(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                    bool causal, cudaStream_t stream) {
  throw NotImplemented("flash_simt", kHere);
}

}  // namespace course::lesson13
