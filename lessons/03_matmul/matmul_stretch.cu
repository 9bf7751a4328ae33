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
//   - Warp tiles: arrange each warp's 32 lanes so that the 8 lanes of a quarter-warp read one
//     float4 of A (a broadcast) and 8 consecutive float4s of B (every bank once). The README's
//     "Napkin math" section ("A warp layout without bank conflicts") shows one layout: 32 x 64
//     warp tiles, lanes in a 4 x 8 grid, each lane 2 x 2 sub-tiles of 4 x 4.
//   - Double buffering: two copies of each shared tile; load the next step's tiles from global
//     memory into registers before computing on the current copy, store them into the other
//     copy after. Work out why one __syncthreads() per step is then enough.
//   - float4 global loads and stores when m, n are multiples of 128, k of 8, and the pointers are
//     16-byte aligned; a checked path (zeros outside, guarded stores) for every other shape.
//   - __launch_bounds__(256, 2), and check with -Xptxas -v that nothing spills.
// Launch with grid (blocks_for(n, 128), blocks_for(m, 128)) and 256 threads per block.
void launch_warptiled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                      cudaStream_t stream) {
  throw NotImplemented("warptiled", kHere);
}
//! [warptiled_exercise]

}  // namespace course::lesson03
