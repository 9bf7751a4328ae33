// Lesson 03, the exercises: write each kernel, launch it, and delete the `throw` in its launcher.
// Work top to bottom: each rung changes one thing in the rung before it. Run the grader after
// each one (README.md, "How to work on this lesson"). The stretch rungs are in matmul_stretch.cu.
#include <stdexcept>
#include <string>

#include "course/error.hpp"
#include "matmul_rungs.cuh"

namespace course::lesson03 {

namespace {
constexpr const char* kHere = "lessons/03_matmul/matmul.cu";
}  // namespace

//! [tiled_exercise]
// TODO(student): rung "tiled". Start from naive_kernel (matmul_given.cu) and stage A and B
// through shared memory, one TILE x TILE tile of each at a time. The block has TILE x TILE
// threads and owns the TILE x TILE tile of C at (blockIdx.y * TILE, blockIdx.x * TILE); thread
// (threadIdx.y, threadIdx.x) computes C[row][col] as naive_kernel does.
//   1. Declare `__shared__ float a_tile[TILE][TILE], b_tile[TILE][TILE];`
//   2. Loop t = 0, TILE, 2 TILE, ... while t < k. In each step every thread loads ONE element of
//      each tile: a_tile[ty][tx] = A[row][t + tx] and b_tile[ty][tx] = B[t + ty][col] (tx, ty
//      are threadIdx.x, threadIdx.y). Load 0.0f where the element lies outside A or B: zeros add
//      nothing, so M, N and K need not be multiples of TILE.
//   3. __syncthreads(): every element of both tiles must be in place before anyone reads them.
//   4. sum += a_tile[ty][p] * b_tile[p][tx] for p = 0 .. TILE - 1.
//   5. __syncthreads() again, before the next step's loads overwrite the tiles.
//   6. After the loop, store sum if (row, col) lies inside C.
// Careful: a thread outside C must not return early; it still loads its share and must reach
// every barrier. Do not index the tiles the other way round (a_tile[tx][ty]): it works, but
// with bank conflicts.
// Launch with grid (blocks_for(n, TILE), blocks_for(m, TILE)) and block dim3(TILE, TILE), for
// each TILE in 4, 8, 16 and 32 (switch on `tile`; the demo's --sweep tile times all four).
template <int TILE>
__global__ void tiled_kernel(const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ c, int m, int n, int k) {}
//! [tiled_exercise]

void launch_tiled(int tile, const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                  cudaStream_t stream) {
  throw NotImplemented("tiled", kHere);
}

//! [register_1d_exercise]
// TODO(student): rung "register_1d". The tiled kernel with eight outputs per thread: a block of
// 512 threads (1D: blockDim.x = 512) owns a 64 x 64 tile of C and steps along k by 8.
//   1. `__shared__ float a_tile[64][8], b_tile[8][64];` Each step, each thread loads one element
//      of each: a_tile[tid / 8][tid % 8] and b_tile[tid / 64][tid % 64] (zeros outside A, B).
//   2. Thread tid computes column col = tid % 64 of the block's tile, rows row0 .. row0 + 7 with
//      row0 = tid / 64 * 8, in `float acc[8]` (registers: index it only with constants, i.e.
//      in fully unrolled loops).
//   3. Between the two barriers: for p in 0..7, read b_tile[p][col] once into a register, then
//      acc[i] += a_tile[row0 + i][p] * that register, for i in 0..7.
//   4. Store the eight outputs that lie inside C.
// Why it is faster: count the shared-memory loads per multiply-add, here and in tiled_kernel.
// Launch with grid (blocks_for(n, 64), blocks_for(m, 64)) and 512 threads per block.
__global__ void register_1d_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ c, int m, int n, int k) {}
//! [register_1d_exercise]

void launch_register_1d(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                        cudaStream_t stream) {
  throw NotImplemented("register_1d", kHere);
}

}  // namespace course::lesson03
