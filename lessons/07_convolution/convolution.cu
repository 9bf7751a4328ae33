// Lesson 07, the exercises: write each kernel, launch it, and delete the `throw` in its launcher.
// Work top to bottom: each rung changes one thing in the rung before it. Run the grader after
// each one (README.md, "How to work on this lesson").
#include "convolution_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson07 {

namespace {
constexpr const char* kHere = "lessons/07_convolution/convolution.cu";
}  // namespace

//! [constant_filter_exercise]
// TODO(student): rung "constant_filter". Move the filter from global to constant memory.
//   1. Declare the weights at namespace scope (here, outside any function):
//        __constant__ float c_filter[kMaxTaps];
//   2. In launch_constant_filter, upload them before the launch, in stream order:
//        CUDA_CHECK(cudaMemcpyToSymbolAsync(c_filter, filter.weights.data(),
//                                           filter.weights.size() * sizeof(float), 0,
//                                           cudaMemcpyHostToDevice, stream));
//   3. Write the kernel: copy basic_kernel (convolution_given.cu), drop its `filter` parameter
//      and read c_filter[f_row * side + f_col] instead. Nothing else changes.
// Launch it like launch_basic: pixel_blocks(width, height) blocks of kBlockX x kBlockY threads.
__global__ void constant_filter_kernel(const float* __restrict__ in, float* __restrict__ out,
                                       int radius, int width, int height) {}
//! [constant_filter_exercise]

void launch_constant_filter(const float* d_in, float* d_out, int width, int height,
                            const Filter& filter, cudaStream_t stream) {
  throw NotImplemented("constant_filter", kHere);
}

//! [tiled_halo_exercise]
// TODO(student): rung "tiled_halo". Blocks of kTile x kTile threads, one per pixel of an *input*
// tile: an output tile of out_tile = kTile - 2 * radius pixels square plus a halo of radius
// pixels on every side. Use the c_filter of the rung before.
//   1. Declare `__shared__ float tile[kTile][kTile];`
//   2. The pixel this thread loads: col = blockIdx.x * out_tile + threadIdx.x - radius (and the
//      same for row with y). Store it in tile[threadIdx.y][threadIdx.x], or 0.0f when it lies
//      outside the image (a ghost cell; col and row may be negative here).
//   3. __syncthreads(): the tile must be complete before any thread reads its neighbours.
//   4. Only the threads of the output tile compute: tile_col = threadIdx.x - radius and
//      tile_row = threadIdx.y - radius must both lie in [0, out_tile), and (row, col) must lie
//      inside the image. Such a thread sums c_filter[f_row * side + f_col] *
//      tile[tile_row + f_row][tile_col + f_col] and writes out[row][col]. The halo threads
//      write nothing: their windows would run off the tile.
// Launch: blocks step by the output tile, so the grid is ceil(width / out_tile) x
// ceil(height / out_tile) blocks of dim3(kTile, kTile).
__global__ void tiled_halo_kernel(const float* __restrict__ in, float* __restrict__ out, int radius,
                                  int width, int height) {}
//! [tiled_halo_exercise]

void launch_tiled_halo(const float* d_in, float* d_out, int width, int height, const Filter& filter,
                       cudaStream_t stream) {
  throw NotImplemented("tiled_halo", kHere);
}

//! [tiled_cached_halo_exercise]
// TODO(student): rung "tiled_cached_halo". Now the tile is the *output* tile: blocks of
// kTile x kTile threads over ceil(width / kTile) x ceil(height / kTile) blocks, each thread
// loading its own pixel (col = blockIdx.x * kTile + threadIdx.x; 0.0f past the right or bottom
// edge) into `__shared__ float tile[kTile][kTile]`, and computing that same pixel.
//   1. Load, then __syncthreads(). Threads outside the image return only *after* the barrier.
//   2. For each tap, tile_row = threadIdx.y - radius + f_row (same for tile_col). If it lies in
//      [0, kTile) both ways, read tile[tile_row][tile_col]. Otherwise it is a halo pixel: read
//      it from global memory at (row - radius + f_row, col - radius + f_col), if that lies in
//      the image (else it is a ghost cell and adds nothing). Neighbouring blocks loaded it
//      recently, so the caches usually serve it.
__global__ void tiled_cached_halo_kernel(const float* __restrict__ in, float* __restrict__ out,
                                         int radius, int width, int height) {}
//! [tiled_cached_halo_exercise]

void launch_tiled_cached_halo(const float* d_in, float* d_out, int width, int height,
                              const Filter& filter, cudaStream_t stream) {
  throw NotImplemented("tiled_cached_halo", kHere);
}

}  // namespace course::lesson07
