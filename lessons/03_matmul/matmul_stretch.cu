// Lesson 03, the stretch rungs (bonus points): where a hand-written kernel meets cuBLAS. Finish
// tiled and register_1d in matmul.cu first. Write each kernel, launch it, and delete the `throw`.
#include "course/error.hpp"
#include "matmul_rungs.cuh"

namespace course::lesson03 {

namespace {
constexpr const char* kHere = "lessons/03_matmul/matmul_stretch.cu";
}  // namespace

//! [register_2d_exercise]
// TODO(student), stretch: rung "register_2d". register_1d grown in the second dimension: a block
// of 256 threads owns a 128 x 128 tile of C and steps along k by 8; thread tid computes the
// 8 x 8 square at rows (tid / 16) * 8 .., columns (tid % 16) * 8 .. of the block's tile.
//   1. Store A's tile transposed, `__shared__ __align__(16) float a_tile[8][128]` indexed
//      [p][row], and B's as `b_tile[8][128]` indexed [p][col]. Each thread loads 4 elements of
//      each tile per step (1024 / 256), zeros outside A and B.
//   2. For each p: read the thread's 8 values of A (a_tile[p][ty * 8 .. ty * 8 + 7]) and 8 of B
//      into register arrays, with 16-byte loads (*reinterpret_cast<const float4*>(...)): the
//      transposed layout is what makes A's 8 values consecutive.
//   3. acc[i][j] += a_frag[i] * b_frag[j]: 64 multiply-adds per 4 shared loads.
//   4. Store the outputs that lie inside C.
// Launch with grid (blocks_for(n, 128), blocks_for(m, 128)) and 256 threads per block.
__global__ void register_2d_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int m, int n, int k) {}
//! [register_2d_exercise]

void launch_register_2d(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                        cudaStream_t stream) {
  throw NotImplemented("register_2d", kHere);
}

//! [warptiled_exercise]
// TODO(student), stretch: rung "warptiled". Take register_2d to 70 % of cuBLAS or more:
//   - Warp tiles: a block of 256 threads owns 128 x 256 of C, each of its 8 warps 64 x 64. A
//     warp's lanes form a 4 x 8 grid; each lane computes 4 x 2 sub-tiles of 4 x 4 (rows 16 apart,
//     columns 32 apart), 16 x 8 outputs, and a quarter-warp reads one float4 of A (a broadcast)
//     and 8 consecutive float4s of B (every bank once): README, "Napkin math".
//   - A ring of 4 stages, each a 16 x 128 tile of A stored transposed (rows padded to 132 floats)
//     and a 16 x 256 tile of B: 97 KB of dynamic shared memory (cudaFuncSetAttribute once). Fill
//     it with cp.async (README, "Towards cuBLAS"): start tiles 0, 1, 2, one commit_group each;
//     then per step s: wait_group 2, __syncthreads(), start tile s + 3 into the stage of tile
//     s - 1, commit (also when nothing is left to copy), compute tile s. Why is that one barrier
//     enough? Compute the copies' pointers and shared addresses once, then add a tile per step.
//   - 16-byte copies and float4 stores when m, n, k are multiples of 128, 256, 16 and the pointers
//     16-byte aligned; else 4-byte copies, zero-filled outside A and B, and checked stores.
//   - __launch_bounds__(256, 1); check with -Xptxas -v that nothing spills. cp.async needs compute
//     capability 8.0: put `#if __CUDA_ARCH__ >= 800` around the kernel's body, and on an older GPU
//     (gpu_info()), or where the code that runs is older PTX (cudaFuncGetAttributes' ptxVersion
//     < 80: a 75-virtual build, whose body is empty), launch register_2d's tiles instead.
// Launch with grid (blocks_for(n, 256), blocks_for(m, 128)), 256 threads and 97 KB per block.
void launch_warptiled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                      cudaStream_t stream) {
  throw NotImplemented("warptiled", kHere);
}
//! [warptiled_exercise]

}  // namespace course::lesson03
