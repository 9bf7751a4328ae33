// Lesson 12, the first exercise: the tensor cores through CUDA C++'s fragment API. Write the
// kernel, launch it, and delete the `throw` in its launcher. Run the grader after (README.md,
// "How to work on this lesson").
#include <mma.h>

#include "course/error.hpp"
#include "tensor_cores_rungs.cuh"

namespace course::lesson12 {

namespace {
constexpr const char* kHere = "lessons/12_tensor_cores/wmma.cu";
}  // namespace

//! [wmma_exercise]
// TODO(student): rung "wmma". A block of 256 threads (8 warps) owns a 128 x 128 tile of C and
// steps along k by 32; warp w owns the 64 x 32 piece at rows (w / 4) * 64, columns (w % 4) * 32
// of the block's tile, as 4 x 2 accumulator fragments of 16 x 16
// (`nvcuda::wmma::fragment<wmma::accumulator, 16, 16, 16, float>`, filled with 0).
//   1. Shared tiles `__shared__ __align__(32) bf16 a_tile[128][40], b_tile[128][40];` A's rows
//      as they are, B's columns as they are (b_tile[col][p]); 40, not 32: the padding keeps the
//      rows a fragment load reads out of one bank.
//   2. Each step, each thread copies 2 chunks of 8 values of each operand (16 bytes, one uint4:
//      multiply() promises k % 8 == 0 and 16-byte aligned A and B): chunk i of the 512 is row
//      i / 4, values (i % 4) * 8 .. + 7. A chunk outside A or B (row past m or n, or k0 >= k)
//      is stored as zeros. Then __syncthreads().
//   3. For kk = 0 and 16: load the warp's 4 fragments of A (matrix_a, row_major, from
//      &a_tile[row][kk], leading dimension 40) and 2 of B (matrix_b, col_major: B is stored
//      column by column), then wmma::mma_sync for each of the 4 x 2 accumulators.
//      __syncthreads() before the next step's copies.
//   4. A fragment's layout in registers is not specified: store each accumulator with
//      wmma::store_matrix_sync into a 16 x 16 float square of shared memory of the warp's own,
//      __syncwarp(), and let the 32 lanes copy the elements that lie inside C. __syncwarp() again
//      before the next fragment reuses the square.
// Wrap the body in `#if __CUDA_ARCH__ >= 800 ... #endif`: BF16 fragments exist from sm_80 on, and
// the course also compiles for older GPUs (which never launch this rung).
// Launch with grid (blocks_for(p.n, 128), blocks_for(p.m, 128)) and 256 threads.
__global__ void wmma_kernel(Problem p) {}
//! [wmma_exercise]

void launch_wmma(const Problem& p, cudaStream_t stream) {
  throw NotImplemented("wmma", kHere);
}

}  // namespace course::lesson12
