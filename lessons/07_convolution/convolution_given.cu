// Lesson 07, the given rung: one thread per output pixel, the filter in global memory.
#include "convolution_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson07 {

namespace {

// The filter's weights in global memory: a `__device__` array is an ordinary global-memory
// buffer with a name, so the launcher can fill it without allocating anything per call.
__device__ float g_filter[kMaxTaps];

//! [basic_kernel]
// One thread per output pixel; a warp covers 32 neighbouring pixels of one row. Each of the
// (2r + 1)^2 steps loads one input pixel and one weight from global memory and does one
// multiply-add: 2 FLOP per 8 bytes loaded (0.25 OP/B). The caches serve most of these loads (the
// 32 threads of a warp read the same weight, and neighbouring threads the same pixels), but
// every one is still an instruction through the load pipeline. Ghost cells (outside the image)
// are skipped, which is the same as reading them as 0.
__global__ void basic_kernel(const float* __restrict__ in, const float* __restrict__ filter,
                             float* __restrict__ out, int radius, int width, int height) {
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
        sum += filter[f_row * side + f_col] * in[at(in_row, in_col, width)];
    }
  }
  out[at(out_row, out_col, width)] = sum;
}
//! [basic_kernel]

}  // namespace

void launch_basic(const float* d_in, float* d_out, int width, int height, const Filter& filter,
                  cudaStream_t stream) {
  // Upload in stream order, so that a kernel still running with the previous filter finishes
  // first. A pageable source is staged by the driver before this call returns.
  CUDA_CHECK(cudaMemcpyToSymbolAsync(g_filter, filter.weights.data(),
                                     filter.weights.size() * sizeof(float), 0,
                                     cudaMemcpyHostToDevice, stream));
  float* d_filter = nullptr;
  CUDA_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&d_filter), g_filter));
  basic_kernel<<<pixel_blocks(width, height), dim3(kBlockX, kBlockY), 0, stream>>>(
      d_in, d_filter, d_out, filter.radius, width, height);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson07
