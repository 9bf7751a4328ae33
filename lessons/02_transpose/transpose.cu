// Lesson 02, the exercises: write each kernel, launch it, and delete the `throw` in its launcher.
// Work top to bottom: each rung changes one thing in the rung before it. Run the grader after
// each one (README.md, "How to work on this lesson").
#include "course/error.hpp"
#include "transpose_rungs.cuh"

namespace course::lesson02 {

namespace {
constexpr const char* kHere = "lessons/02_transpose/transpose.cu";
[[maybe_unused]] dim3 tiles(int rows, int cols) { return dim3((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile); }
}  // namespace

//! [tiled_exercise]
// TODO(student): rung "tiled". Stage a kTile x kTile tile in shared memory so that both the
// global read and the global write are coalesced.
//   1. Declare `__shared__ float tile[kTile][kTile];`
//   2. Each thread reads in[row][col] (as in naive_kernel) into tile[threadIdx.y][threadIdx.x].
//   3. __syncthreads(): the whole tile must be loaded before any thread reads it back.
//   4. Swap the block's coordinates: this block writes output rows blockIdx.x * kTile + ...
//      and output columns blockIdx.y * kTile + ...; each thread writes
//      tile[threadIdx.x][threadIdx.y] so that consecutive threads write consecutive addresses.
//   5. Check bounds on both sides: rows and cols need not be multiples of kTile.
// Launch with blocks of kTile x kTile threads over tiles(rows, cols), like launch_naive.
__global__ void tiled_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                             int cols) {}
//! [tiled_exercise]

void launch_tiled(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream) {
  throw NotImplemented("tiled", kHere);
}

// TODO(student): rung "padded". Copy tiled_kernel and change one thing: declare the tile as
// [kTile][kTile + 1]. Work out why the column read of the tile no longer hits one bank 32 times.
__global__ void padded_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                              int cols) {}

void launch_padded(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream) {
  throw NotImplemented("padded", kHere);
}

// TODO(student): rung "coarsened". Keep the padded kTile x kTile tile but launch blocks of
// kTile x kBlockRows threads (kBlockRows = 8): each thread loads, and later stores, the four
// elements at rows threadIdx.y + 0, 8, 16, 24 of the tile. Fewer, busier threads: each has
// four independent loads in flight before the barrier.
__global__ void coarsened_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                                 int cols) {}

void launch_coarsened(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream) {
  throw NotImplemented("coarsened", kHere);
}

// TODO(student), stretch: rung "vectorized". Reach for the copy ceiling: move 16 bytes per
// load and store (float4) and keep more bytes in flight per block (a larger tile). float4
// needs rows and cols that are multiples of 4 and 16-byte aligned pointers: fall back to your
// coarsened kernel for other shapes. The README's ladder table sketches one design (float4,
// 64 x 64 tiles) and its "Measured" section says what it reaches.
void launch_vectorized(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream) {
  throw NotImplemented("vectorized", kHere);
}

}  // namespace course::lesson02
