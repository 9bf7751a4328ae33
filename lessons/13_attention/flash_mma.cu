// Lesson 13, the third exercise: flash_simt's algorithm on the tensor cores, with the wrappers of
// attention_ptx.cuh and lesson 12's mma_sync as the model. Write the kernel, launch it, and
// delete the `throw` in run_flash_mma.
#include "attention_ptx.cuh"
#include "attention_rungs.cuh"
#include "course/error.hpp"
#include "course/indexing.hpp"

namespace course::lesson13 {

namespace {
constexpr const char* kHere = "lessons/13_attention/flash_mma.cu";
}  // namespace

//! [flash_mma_exercise]
// TODO(student): rung "flash_mma" (FlashAttention-2's kernel). A block of 128 threads (4 warps)
// owns 128 rows of Q of one head; warp w owns rows 32 w .. 32 w + 31, two m16 tiles that share
// every fragment of K and V (half the ldmatrix traffic of 16 rows a warp). Keys come in tiles of
// 64, through two stages. Template the kernel on D (64 or 128).
//   1. Shared memory (dynamic; raise the limit once with cudaFuncSetAttribute(...,
//      cudaFuncAttributeMaxDynamicSharedMemorySize, ...)): 2 stages of a K tile and a V tile
//      (64 x D BF16 each), rows of 2 D bytes; at d = 128 also Q's tile (128 x D): 96 KB. At d = 64,
//      Q's fragments stay in registers (32 of them), and its tile passes through stage 1's space
//      before the pipeline first fills it: 32 KB. Swizzle each row's 16-byte chunks (chunk c of
//      row r at c ^ (r % 8)) so that ldmatrix reads 8 rows without a bank conflict (lesson 12).
//   2. Copies: ptx::cp_async_16 for every 16-byte chunk, consecutive threads along a row;
//      zero-filled past n (valid = false, the source still a valid address, such as the head's
//      start). The prologue: Q's 128 rows (into their own tile, or stage 1's space) and tile 0 of
//      K and V (into stage 0), one group (ptx::cp_async_commit). At d = 64 then:
//      ptx::cp_async_wait<0>(), __syncthreads(), and the warp's 2 x 4 A fragments of Q by
//      ptx::ldmatrix_x4 (lane l at row l % 16, chunk 2 kk + l / 16 of each m16 tile).
//   3. For tile t: ptx::cp_async_wait<0>(); __syncthreads() (tile t has landed for everyone, and
//      everyone is done with tile t - 1); start tile t + 1 into the other stage, if there is one;
//      commit a group either way; compute on tile t while the copy runs.
//   4. S = Q K^T, `float s[2][8][4]` a thread: per k16 step, Q's fragments (from registers, or at
//      d = 128 ldmatrix_x4 from Q's tile), and per pair of n8 tiles of keys one ptx::ldmatrix_x4
//      of K's rows (lane l at key l / 16 * 8 + l % 8, chunk 2 kk + l / 8 % 2: registers {0, 1}
//      and {2, 3} are the B fragments of the two n8 tiles), each used by both m16 tiles
//      (ptx::mma_16816). Lane 4 g + t holds rows g and g + 8 of an m16 tile, keys 8 j + 2 t and
//      8 j + 2 t + 1 of n8 tile j.
//   5. Mask, on the tiles that reach past n or cross the warp's part of the diagonal alone: a key
//      >= n, or > its row when causal, scores -INFINITY. When causal, a warp skips (after the
//      copy of step 3) a tile whose first key lies past its last row.
//   6. The online softmax in registers, in base 2 with the scale folded in: scale_log2 =
//      log2(e) / sqrt(d). Per row: m_new = max(m, its 16 scores), then __shfl_xor_sync with
//      offsets 1 and 2 (the quad shares the row); alpha = ptx::exp2_approx(m scale_log2 -
//      m_new scale_log2) (0 the first time: m = -inf); p = ptx::exp2_approx(fmaf(s, scale_log2,
//      -m_new scale_log2)) in place of s; l = l alpha + this lane's sum of p (the unrounded p;
//      README, "How exact is exact enough?"); multiply the row's accumulators of O by alpha. A
//      row whose keys were all masked keeps m = -inf: subtract 0 then, never -inf - -inf.
//   7. P never leaves the registers: the accumulators of S's n8 tiles 2 kk and 2 kk + 1 lie as
//      the A fragment of P's k16 step kk, so ptx::pack_bf16x2 turns 8 floats into its 4
//      registers. O += P V, `float acc[2][D / 8][4]`: V is stored [key][d], and B wants two keys
//      in a register: ptx::ldmatrix_x4_trans (lane l at key 16 kk + l % 16, chunk 2 dp + l / 16)
//      gives the B fragments of two n8 tiles of d.
//   8. Store O = acc / l for the rows < n (l summed over the quad first), as float2.
//   9. When causal, stop after the tile that holds the block's last row, and launch the heaviest
//      Q tiles first (tile gridDim.x - 1 - blockIdx.x): the last wave is then made of light ones.
// Wrap the body in `#if __CUDA_ARCH__ >= 800 ... #endif` (and the __device__ helpers it calls in
// `#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800`, or a build for 7.5 warns that they go
// unused); use __launch_bounds__(128, 2) (two blocks an SM) and check with -Xptxas -v that
// nothing spills (the solution takes 255 registers at d = 128). Launch with grid
// (blocks_for(n, 128), bh).
__global__ void flash_mma_kernel() {}
//! [flash_mma_exercise]

void run_flash_mma(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                   bool causal, cudaStream_t stream) {
  throw NotImplemented("flash_mma", kHere);
}

}  // namespace course::lesson13
