// Lesson 13, the stretch rung (bonus points): FlashAttention on Hopper, with the wrappers of
// attention_ptx.cuh and lesson 12's wgmma as the model. Finish flash_mma first. This file alone is
// compiled for sm_90a, and only in a build for compute capability 9.0 (lesson 12's README,
// "Building for Hopper").
#include "attention_ptx.cuh"
#include "attention_rungs.cuh"
#include "course/error.hpp"
#include "course/gpu.hpp"
#include "course/indexing.hpp"

namespace course::lesson13 {

namespace {
constexpr const char* kHere = "lessons/13_attention/flash_wgmma.cu";
}  // namespace

//! [flash_wgmma_exercise]
// TODO(student), stretch: rung "flash_wgmma" (FlashAttention-3's kernel). A block of 384 threads
// (three warpgroups of 128) works on 128 rows of Q of one head at a time: warpgroup 0 produces,
// warpgroups 1 and 2 consume, each 64 of the rows. Keys come in tiles of 128: S is one wgmma
// m64n128 accumulator, `float s[64]` a thread. Template the kernel on D (64 or 128).
//   1. Persistent grid: one block per SM (gpu_info().sm_count); block b takes units b, b + grid,
//      ... A unit is one Q tile, or when causal the pair of tiles i and q_tiles - 1 - i of one
//      head (q_tiles + 1 tiles of keys in all: every unit weighs the same). Units head-major, so
//      that the blocks at work share a few heads' K and V in L2. Producer and consumers walk the
//      same list.
//   2. The host: ptx::tensor_map_3d for Q, K and V (bh heads x n rows x D columns, boxes of 128
//      rows and 64 columns: 128 bytes, CU_TENSOR_MAP_SWIZZLE_128B), passed by value as
//      `const __grid_constant__ CUtensorMap`. Rows past n arrive as zeros.
//   3. Shared memory (dynamic, 1024-byte aligned tiles, each D / 64 column blocks of [rows][64],
//      one TMA box each): Q's 128 rows, and a ring of K tiles and of V tiles, 2 slots at d = 128
//      (160 KB in all), 3 at d = 64. mbarriers q_full, q_empty, k_full[s], k_empty[s], v_full[s],
//      v_empty[s]: a full one for 1 arrival plus the bytes, an empty one for 2 (one per consumer).
//      Thread 0 initializes them, ptx::fence_barrier_init(); then __syncthreads().
//   4. Producer (ptx::setmaxnreg_decrease<40>(), then thread 0 alone), for each Q tile: wait for
//      q_empty, load Q; then K_0, and for j = 0, 1, ...: K_(j+1) (if any) before V_j, the order in
//      which the consumers need them. Each load: ptx::mbarrier_wait(&empty[slot], phase ^ 1) (a
//      fresh barrier counts its phase -1 as complete), ptx::mbarrier_arrive_expect_bytes(
//      &full[slot], the tile's bytes), ptx::tma_load_3d of each column block. The n-th tile
//      through the ring goes to slot n % slots, fill n / slots, parity (n / slots) % 2; the count
//      runs on across the block's Q tiles (Q's parity counts Q tiles).
//   5. Consumers (ptx::setmaxnreg_increase<232>()). S = Q K^T: ptx::wgmma_fence(), D / 16
//      ptx::wgmma_m64n128k16_ss (Q at the consumer's 64 rows and K, both K-major: descriptors
//      ptx::smem_descriptor(tile + ..., 1024, ptx::Swizzle::Bytes128), 16 columns further a k16
//      step, the next column block after 64; accumulate = false on the first step),
//      ptx::wgmma_commit_group(). O += P V: 8 ptx::wgmma_m64n128k16_rs (d = 128) or
//      ptx::wgmma_m64n64k16_rs (d = 64), A = P's fragment of the k16 step, B = V as MN-major:
//      ptx::smem_descriptor(V's tile + 16 kk rows, 1024, ptx::Swizzle::Bytes128, 16384: the
//      distance between V's column blocks). ptx::fence_registers() on S, O and P around every
//      issue and wait: the compiler does not know the wgmma write them.
//   6. The softmax, in registers on the accumulator layout (lesson 12's: thread t holds rows
//      16 w + g and 16 w + g + 8 of its warpgroup's 64, four threads a row): as flash_mma's, with
//      m through __shfl_xor_sync 1 and 2 and ptx::exp2_approx; mask the tiles that reach past n
//      or cross the warpgroup's diagonal. P into registers: p[kk][r] = ptx::pack_bf16x2(
//      s[8 kk + 2 r], s[8 kk + 2 r + 1]), `std::uint32_t p[8][4]`, without a shuffle.
//   7. The overlap, per Q tile, once q_full says Q is in. S_0 alone: wait for k_full, issue,
//      ptx::wgmma_wait_group<0>(), one thread of the warpgroup arrives on k_empty (and q_empty,
//      if it was the only tile), softmax, P_0. Then for j = 1, 2, ...: wait for K_j and V_(j-1);
//      issue S_j; multiply O by alpha (of tile j - 1); issue O += P_(j-1) V_(j-1);
//      ptx::wgmma_wait_group<1>() (S_j is in, P V may still run); release K_j (and Q, after the
//      last S); mask and softmax S_j while the tensor cores do P V; wait_group<0>; release
//      V_(j-1); P_j. After the loop, the last P V, O rescaled first. The softmax of one tile then
//      runs under the other product (a step further, FlashAttention-3's ping-pong, has the
//      consumers take turns with ptx::named_barrier_sync).
//   8. When causal, a Q tile stops at the tile of keys that holds its last row. Store
//      O = acc / l (l summed over the row's four threads) for the rows < n.
// __launch_bounds__(384, 1): setmaxnreg needs the register cap at entry.
void run_flash_wgmma(const bf16* q, const bf16* k, const bf16* v, float* o, int bh, int n, int d,
                     bool causal, cudaStream_t stream) {
  throw NotImplemented("flash_wgmma", kHere);
}
//! [flash_wgmma_exercise]

}  // namespace course::lesson13
