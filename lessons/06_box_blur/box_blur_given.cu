// Lesson 06, the given rungs: the global-memory blur, and the pageable trip that every
// host-memory rung is measured against.
#include <algorithm>

#include "box_blur_rungs.cuh"
#include "course/buffer.hpp"
#include "course/error.hpp"
#include "course/timer.hpp"

namespace course::lesson06 {

namespace {

//! [global_kernel]
// One thread per output. Each reads its 2R + 1 neighbours straight from global memory; the
// neighbouring threads read almost the same elements, so the L1 cache serves most of the
// 2R + 1 loads, but every one is still an instruction and a trip through the load pipeline.
// The R elements at each end have no full neighbourhood: they are copied unchanged.
__global__ void global_kernel(const float* __restrict__ in, float* __restrict__ out,
                              std::size_t n, int radius, Range range) {
  const std::size_t i = range.begin + blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= range.end) return;
  const std::size_t r = static_cast<std::size_t>(radius);
  if (i < r || i + r >= n) {
    out[i] = in[i];
    return;
  }
  float sum = 0.0f;
  for (std::size_t j = i - r; j <= i + r; ++j) sum += in[j];
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
    case Kernel::Global: return launch_global(d_in, d_out, n, radius, range, block, stream);
    case Kernel::SharedHalo: return launch_shared_halo(d_in, d_out, n, radius, range, block, stream);
    case Kernel::SlidingWindow:
      return launch_sliding_window(d_in, d_out, n, radius, range, block, stream);
  }
}

//! [serial_trip]
// The seed's three timed phases, one after the other. Each copy waits for the one before: with
// pageable memory the driver must first copy the data into a page-locked staging buffer of its
// own, chunk by chunk, before the DMA engine can move it.
PipelineTimes serial_trip(const float* h_in, float* h_out, std::size_t n,
                          const PipelineOptions& options) {
  DeviceBuffer<float> d_in(n), d_out(n);
  const std::size_t bytes = n * sizeof(float);
  EventTimer total, phase;
  PipelineTimes times;
  total.start();
  phase.start();
  CUDA_CHECK(cudaMemcpyAsync(d_in.data(), h_in, bytes, cudaMemcpyHostToDevice));
  times.h2d_ms = phase.stop();
  phase.start();
  launch_blur(options.kernel, d_in.data(), d_out.data(), n, options.radius, Range{0, n},
              options.block, nullptr);
  times.kernel_ms = phase.stop();
  phase.start();
  CUDA_CHECK(cudaMemcpyAsync(h_out, d_out.data(), bytes, cudaMemcpyDeviceToHost));
  times.d2h_ms = phase.stop();
  times.total_ms = total.stop();
  return times;
}
//! [serial_trip]

//! [staged_trip]
PipelineTimes staged_trip(std::span<const float> input, std::span<float> output,
                          const PipelineOptions& options, HostMemory input_memory,
                          HostMemory output_memory) {
  HostBuffer<float> h_in(input.size(), input_memory);
  HostBuffer<float> h_out(input.size(), output_memory);
  std::copy(input.begin(), input.end(), h_in.begin());
  const PipelineTimes times = serial_trip(h_in.data(), h_out.data(), input.size(), options);
  std::copy(h_out.begin(), h_out.end(), output.begin());
  return times;
}
//! [staged_trip]

//! [pipeline_pageable]
// Both vectors in ordinary, pageable memory, as most programs have them.
PipelineTimes pipeline_pageable(std::span<const float> input, std::span<float> output,
                                const PipelineOptions& options) {
  return staged_trip(input, output, options, HostMemory::Pageable, HostMemory::Pageable);
}
//! [pipeline_pageable]

}  // namespace course::lesson06
