// Lesson 06, the given rungs: the global-memory blur, and the pageable trip that every
// host-memory rung is measured against.
#include "box_blur_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson06 {

namespace {

//! [global_kernel]
// One thread per output. Each reads its 2R + 1 neighbours straight from global memory; the
// neighbouring threads read almost the same elements, so the L1 cache serves most of the
// 2R + 1 loads, but every one is still an instruction and a trip through the load pipeline.
// The R elements at each end have no full neighbourhood: they are copied unchanged.
__global__ void global_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                              int radius, Range range) {
  const std::size_t i =
      range.begin + blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= range.end)
    return;
  const std::size_t r = static_cast<std::size_t>(radius);
  if (i < r || i + r >= n) {
    out[i] = in[i];
    return;
  }
  float sum = 0.0f;
  for (std::size_t j = i - r; j <= i + r; ++j)
    sum += in[j];
  out[i] = sum / static_cast<float>(2 * radius + 1);
}
//! [global_kernel]

}  // namespace

void launch_global(const float* d_in, float* d_out, std::size_t n, int radius, Range range,
                   int block, cudaStream_t stream) {
  const std::size_t blocks = (range.end - range.begin + block - 1) / block;
  global_kernel<<<static_cast<unsigned>(blocks), block, 0, stream>>>(d_in, d_out, n, radius, range);
  CUDA_CHECK_LAST();
}

void launch_blur(Kernel kernel, const float* d_in, float* d_out, std::size_t n, int radius,
                 Range range, int block, cudaStream_t stream) {
  switch (kernel) {
    case Kernel::Global:
      return launch_global(d_in, d_out, n, radius, range, block, stream);
    case Kernel::SharedHalo:
      return launch_shared_halo(d_in, d_out, n, radius, range, block, stream);
    case Kernel::SlidingWindow:
      return launch_sliding_window(d_in, d_out, n, radius, range, block, stream);
  }
}

//! [serial_trip]
// The box-blur article's three phases, one after the other on one stream: copy in, blur, copy out.
// Each waits for the one before. From pageable memory the driver must first copy the data into a
// page-locked staging buffer of its own, piece by piece, before the DMA engine can move it (and the
// host waits for it); from page-locked memory the DMA engine reads and writes the vector itself,
// and the calls return at once.
void serial_trip(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                 const PipelineOptions& options, cudaStream_t stream) {
  const std::size_t bytes = n * sizeof(float);
  CUDA_CHECK(cudaMemcpyAsync(device.d_in, h_in, bytes, cudaMemcpyHostToDevice, stream));
  launch_blur(options.kernel, device.d_in, device.d_out, n, options.radius, Range{0, n},
              options.block, stream);
  CUDA_CHECK(cudaMemcpyAsync(h_out, device.d_out, bytes, cudaMemcpyDeviceToHost, stream));
}
//! [serial_trip]

//! [trip_pageable]
// Both vectors in ordinary, pageable memory, as most programs have them (trip_memory()).
void trip_pageable(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                   const PipelineOptions& options, cudaStream_t stream) {
  serial_trip(h_in, h_out, n, device, options, stream);
}
//! [trip_pageable]

}  // namespace course::lesson06
