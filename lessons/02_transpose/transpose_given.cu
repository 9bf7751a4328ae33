// Lesson 02, the given rungs: a copy and the naive transpose, in the same launch shape.
#include "course/error.hpp"
#include "transpose_rungs.cuh"

namespace course::lesson02 {

namespace {

//! [copy_kernel]
// One thread per element, blocks of 32 x 32. Consecutive threads of a warp (threadIdx.x) touch
// consecutive columns, so every read and every write of a warp is one 128-byte line: the
// fastest this launch shape can move the matrix, and the yardstick for the transposes below.
__global__ void copy_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                            int cols) {
  const int col = blockIdx.x * kTile + threadIdx.x;
  const int row = blockIdx.y * kTile + threadIdx.y;
  if (row < rows && col < cols) out[at(row, col, cols)] = in[at(row, col, cols)];
}
//! [copy_kernel]

//! [naive_kernel]
// The copy with the output index swapped. Reads stay coalesced (a warp reads one row segment),
// but a warp's 32 writes land in 32 different output rows, `rows` floats apart: 32 separate
// memory transactions where the copy needed one.
__global__ void naive_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                             int cols) {
  const int col = blockIdx.x * kTile + threadIdx.x;
  const int row = blockIdx.y * kTile + threadIdx.y;
  if (row < rows && col < cols) out[at(col, row, rows)] = in[at(row, col, cols)];
}
//! [naive_kernel]

dim3 tiles(int rows, int cols) { return dim3((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile); }

}  // namespace

void launch_copy(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream) {
  copy_kernel<<<tiles(rows, cols), dim3(kTile, kTile), 0, stream>>>(d_in, d_out, rows, cols);
  CUDA_CHECK_LAST();
}

void launch_naive(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream) {
  naive_kernel<<<tiles(rows, cols), dim3(kTile, kTile), 0, stream>>>(d_in, d_out, rows, cols);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson02
