// Lesson 07, the exercises solved: constant memory for the filter, then two ways to tile the
// image in shared memory. Each rung changes one thing in the rung before it.
#include "convolution_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson07 {

//! [constant_filter_buffer]
// The filter in constant memory: at most 225 weights, never written by a kernel, and read by
// all the threads of a warp at the same address in the same order: the access constant memory
// is built for. The constant cache hands one word to the whole warp in one step, off the
// load/store path that the pixels take. (Where the index is known at compile time, as in the
// stretch rungs, the weight even becomes an operand of the multiply-add: no load at all.)
__constant__ float c_filter[kMaxTaps];
//! [constant_filter_buffer]

namespace {

//! [constant_filter_upload]
// In stream order, like launch_basic's upload: the kernels before this one on the stream finish
// with the old weights first.
void upload_filter(const Filter& filter, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyToSymbolAsync(c_filter, filter.weights.data(),
                                     filter.weights.size() * sizeof(float), 0,
                                     cudaMemcpyHostToDevice, stream));
}
//! [constant_filter_upload]

//! [constant_filter_kernel]
// basic_kernel with the weights read from c_filter instead of a global pointer; nothing else
// changes. Half of the loads are gone: 2 FLOP per 4 bytes loaded (0.5 OP/B).
__global__ void constant_filter_kernel(const float* __restrict__ in, float* __restrict__ out,
                                       int radius, int width, int height) {
  const int out_col = blockIdx.x * blockDim.x + threadIdx.x;
  const int out_row = blockIdx.y * blockDim.y + threadIdx.y;
  if (out_col >= width || out_row >= height)
    return;
  const int side = 2 * radius + 1;
  float sum = 0.0f;
  for (int f_row = 0; f_row < side; ++f_row) {
    for (int f_col = 0; f_col < side; ++f_col) {
      const int in_row = out_row - radius + f_row;
      const int in_col = out_col - radius + f_col;
      if (in_row >= 0 && in_row < height && in_col >= 0 && in_col < width)
        sum += c_filter[f_row * side + f_col] * in[at(in_row, in_col, width)];
    }
  }
  out[at(out_row, out_col, width)] = sum;
}
//! [constant_filter_kernel]

//! [tiled_halo_kernel]
// One thread per pixel of a kTile x kTile *input* tile: the block's output tile, (kTile - 2r)
// pixels square, and a halo of r pixels around it. Every thread loads one pixel (0 for a ghost
// cell), so the whole tile arrives in one coalesced pass; then only the threads of the output
// tile compute, each from shared memory alone. Each input pixel is loaded once per block
// instead of up to (2r + 1)^2 times; the price is the 4r (kTile - r) halo threads that idle while
// the others compute, and halo pixels loaded by two or four blocks.
__global__ void tiled_halo_kernel(const float* __restrict__ in, float* __restrict__ out, int radius,
                                  int width, int height) {
  __shared__ float tile[kTile][kTile];
  const int out_tile = kTile - 2 * radius;
  // The pixel this thread loads; for the threads of the output tile, also the one it computes.
  const int col = blockIdx.x * out_tile + threadIdx.x - radius;
  const int row = blockIdx.y * out_tile + threadIdx.y - radius;
  const bool inside = row >= 0 && row < height && col >= 0 && col < width;
  tile[threadIdx.y][threadIdx.x] = inside ? in[at(row, col, width)] : 0.0f;
  // Every pixel of the tile must be in place before any thread reads its neighbours' pixels.
  __syncthreads();
  // The halo threads only load: their windows would run off the tile.
  const int tile_col = threadIdx.x - radius;
  const int tile_row = threadIdx.y - radius;
  if (tile_col >= 0 && tile_col < out_tile && tile_row >= 0 && tile_row < out_tile && inside) {
    const int side = 2 * radius + 1;
    float sum = 0.0f;
    for (int f_row = 0; f_row < side; ++f_row)
      for (int f_col = 0; f_col < side; ++f_col)
        sum += c_filter[f_row * side + f_col] * tile[tile_row + f_row][tile_col + f_col];
    out[at(row, col, width)] = sum;
  }
}
//! [tiled_halo_kernel]

//! [tiled_cached_halo_kernel]
// Tile = output tile: kTile x kTile threads, each loading its own pixel and computing it. No
// thread idles and the tile edge does not depend on r. A window that reaches past the tile reads
// those halo pixels from global memory: they belong to the neighbouring blocks' tiles, which
// loaded them recently, so the L1 or L2 cache usually serves them. The cost moves into the loop:
// every tap now asks "in the tile?" and, if not, "in the image?".
__global__ void tiled_cached_halo_kernel(const float* __restrict__ in, float* __restrict__ out,
                                         int radius, int width, int height) {
  __shared__ float tile[kTile][kTile];
  const int col = blockIdx.x * kTile + threadIdx.x;
  const int row = blockIdx.y * kTile + threadIdx.y;
  // Pixels past the image's right or bottom edge are ghost cells: 0, like the rest.
  tile[threadIdx.y][threadIdx.x] = row < height && col < width ? in[at(row, col, width)] : 0.0f;
  __syncthreads();
  if (row >= height || col >= width)
    return;  // after the barrier, which every thread must reach
  const int side = 2 * radius + 1;
  float sum = 0.0f;
  for (int f_row = 0; f_row < side; ++f_row) {
    for (int f_col = 0; f_col < side; ++f_col) {
      const float weight = c_filter[f_row * side + f_col];
      const int tile_row = threadIdx.y - radius + f_row;
      const int tile_col = threadIdx.x - radius + f_col;
      if (tile_row >= 0 && tile_row < kTile && tile_col >= 0 && tile_col < kTile) {
        sum += weight * tile[tile_row][tile_col];
      } else {
        const int in_row = row - radius + f_row;
        const int in_col = col - radius + f_col;
        if (in_row >= 0 && in_row < height && in_col >= 0 && in_col < width)
          sum += weight * in[at(in_row, in_col, width)];  // a halo pixel, from the caches
      }
    }
  }
  out[at(row, col, width)] = sum;
}
//! [tiled_cached_halo_kernel]

}  // namespace

void launch_constant_filter(const float* d_in, float* d_out, int width, int height,
                            const Filter& filter, cudaStream_t stream) {
  upload_filter(filter, stream);
  constant_filter_kernel<<<pixel_blocks(width, height), dim3(kBlockX, kBlockY), 0, stream>>>(
      d_in, d_out, filter.radius, width, height);
  CUDA_CHECK_LAST();
}

void launch_tiled_halo(const float* d_in, float* d_out, int width, int height, const Filter& filter,
                       cudaStream_t stream) {
  upload_filter(filter, stream);
  // Blocks step by the output tile, so neighbouring blocks' input tiles overlap by 2r.
  const int out_tile = kTile - 2 * filter.radius;
  const dim3 grid((width + out_tile - 1) / out_tile, (height + out_tile - 1) / out_tile);
  tiled_halo_kernel<<<grid, dim3(kTile, kTile), 0, stream>>>(d_in, d_out, filter.radius, width,
                                                             height);
  CUDA_CHECK_LAST();
}

void launch_tiled_cached_halo(const float* d_in, float* d_out, int width, int height,
                              const Filter& filter, cudaStream_t stream) {
  upload_filter(filter, stream);
  const dim3 grid((width + kTile - 1) / kTile, (height + kTile - 1) / kTile);
  tiled_cached_halo_kernel<<<grid, dim3(kTile, kTile), 0, stream>>>(d_in, d_out, filter.radius,
                                                                    width, height);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson07
