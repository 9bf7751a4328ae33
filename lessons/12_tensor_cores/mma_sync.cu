// Lesson 12, the second exercise: the instructions behind wmma, written out with the wrappers of
// tensor_cores_ptx.cuh. Write the kernel, launch it, and delete the `throw` in its launcher.
#include "course/error.hpp"
#include "tensor_cores_ptx.cuh"
#include "tensor_cores_rungs.cuh"

namespace course::lesson12 {

namespace {
constexpr const char* kHere = "lessons/12_tensor_cores/mma_sync.cu";
}  // namespace

//! [mma_sync_exercise]
// TODO(student): rung "mma_sync". A block of 256 threads (8 warps) owns a 128 x 128 tile of C;
// warp w owns 64 x 32 of it at rows (w / 4) * 64, columns (w % 4) * 32: 4 x 4 tiles of m16n8,
// `float acc[4][4][4]` per thread. The block steps along k by 64, three stages deep.
//   1. Shared memory, dynamic (96 KB: raise the limit once with cudaFuncSetAttribute(...,
//      cudaFuncAttributeMaxDynamicSharedMemorySize, ...)): per stage a 128 x 64 tile of A and
//      one of B (B's columns as rows), 128 bytes per row, 16 KB each.
//   2. Swizzle: chunk c (16 bytes, 0 .. 7) of row r lives at byte r * 128 + ((c ^ (r % 8)) * 16).
//      Without it, chunk c of rows r .. r + 7 shares four banks and every ldmatrix replays eight
//      times (README, "Swizzled shared memory").
//   3. load_stage(stage, kt): each thread issues ptx::cp_async_16 for 4 chunks of A and 4 of B
//      (chunk i of 1024 is row i / 8, chunk i % 8), zero-filled (valid = false) past the edges:
//      row past m or n, or k0 >= k. Keep a valid address in the source even then (A's start).
//   4. The pipeline: load stages 0 and 1, committing a group after each (ptx::cp_async_commit);
//      then for each k-step kt: ptx::cp_async_wait<1>(); __syncthreads(); load k-step kt + 2 into
//      stage (kt + 2) % 3 if there is one, and commit a group either way (wait_group counts
//      groups); compute on stage kt % 3.
//   5. Compute: for each k16 of the stage, ptx::ldmatrix_x4 the warp's 4 A fragments (lane l
//      points at row l % 16, chunk 2 kk + l / 16 of its m16 tile) and its B fragments (two n8
//      tiles per ldmatrix_x4: lane l at column l / 16 * 8 + l % 8, chunk 2 kk + l / 8 % 2; the four
//      registers are b[n][0], b[n][1], b[n + 1][0], b[n + 1][1]), then 16 ptx::mma_16816.
//   6. Store: lane 4 g + q holds rows g and g + 8, columns 2 q and 2 q + 1 of each m16n8 tile
//      (tensor_cores_ptx.cuh, mma_16816). Store what lies inside C; a float2 only where n is even
//      and C is 8-byte aligned.
// Wrap the body in `#if __CUDA_ARCH__ >= 800 ... #endif`. Use __launch_bounds__(256, 2) and check
// with -Xptxas -v that nothing spills. Launch with grid (blocks_for(p.n, 128),
// blocks_for(p.m, 128)), 256 threads and the dynamic shared memory.
__global__ void mma_sync_kernel(Problem p) {}
//! [mma_sync_exercise]

void launch_mma_sync(const Problem& p, cudaStream_t stream) {
  throw NotImplemented("mma_sync", kHere);
}

}  // namespace course::lesson12
