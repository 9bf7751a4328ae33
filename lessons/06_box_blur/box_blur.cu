// Lesson 06, the exercises: a shared-memory blur, then every way of moving the vector between
// host and GPU. Write each piece and delete the `throw` in it; run the grader after each one
// (README.md, "How to work on this lesson").
#include <algorithm>
#include <vector>

#include "box_blur_rungs.cuh"
#include "course/buffer.hpp"
#include "course/error.hpp"
#include "course/stream.hpp"
#include "course/timer.hpp"

namespace course::lesson06 {

namespace {
constexpr const char* kHere = "lessons/06_box_blur/box_blur.cu";
}  // namespace

//! [shared_halo_exercise]
// TODO(student): rung "shared_halo". Stage the block's inputs in shared memory once, then sum
// the neighbours from there.
//   1. `extern __shared__ float tile[];` holds blockDim.x + 2 * radius floats (the launch below
//      passes that size as its third <<< >>> argument).
//   2. The block's first output is block_first = range.begin + blockIdx.x * blockDim.x. Element
//      g = block_first - radius + t goes to tile[t], for t = threadIdx.x, threadIdx.x +
//      blockDim.x, ... below blockDim.x + 2 * radius: the block's elements and a halo of R on
//      each side. Load only g in [max(0, range.begin - R), min(n, range.end + R)); store 0
//      elsewhere. Never read past the ends of the vector.
//   3. __syncthreads(): threads read elements that other threads loaded.
//   4. Output i = block_first + threadIdx.x (skip i >= range.end): copy the input unchanged when
//      i < R or i + R >= n, else average tile[threadIdx.x + radius + j] for j = -R..R, summing
//      in that order and dividing by 2R + 1, as global_kernel does.
__global__ void shared_halo_kernel(const float* __restrict__ in, float* __restrict__ out,
                                   std::size_t n, int radius, Range range) {}
//! [shared_halo_exercise]

void launch_shared_halo(const float* d_in, float* d_out, std::size_t n, int radius, Range range,
                        int block, cudaStream_t stream) {
  // TODO(student): launch shared_halo_kernel over ceil((range.end - range.begin) / block)
  // blocks of `block` threads with (block + 2 * radius) * sizeof(float) bytes of dynamic shared
  // memory on `stream`, then CUDA_CHECK_LAST().
  throw NotImplemented("shared_halo", kHere);
}

// TODO(student), stretch: rung "sliding_window". Let each thread compute several consecutive
// outputs from a running sum (add the element entering the window, subtract the one leaving),
// so that the cost per output no longer grows with R. Stage the block's inputs in shared memory
// as in shared_halo, and mind the bank of each thread's first element.
void launch_sliding_window(const float* d_in, float* d_out, std::size_t n, int radius,
                           Range range, int block, cudaStream_t stream) {
  throw NotImplemented("sliding_window", kHere);
}

// TODO(student): rung "pinned". As pipeline_pageable (box_blur_given.cu), with both vectors in
// page-locked memory: the input in HostMemory::Pinned (cudaHostAlloc), the output in
// HostMemory::PinnedMallocHost (cudaMallocHost). Read staged_trip to see what that changes.
PipelineTimes pipeline_pinned(std::span<const float> input, std::span<float> output,
                              const PipelineOptions& options) {
  throw NotImplemented("pinned", kHere);
}

// TODO(student): rung "write_combined". As pinned, with the *input* in
// HostMemory::WriteCombined. Which of the two vectors must not be write-combined, and why?
PipelineTimes pipeline_write_combined(std::span<const float> input, std::span<float> output,
                                      const PipelineOptions& options) {
  throw NotImplemented("write_combined", kHere);
}

// TODO(student): rung "mapped". Put both vectors in HostMemory::Mapped buffers and let the kernel
// use them in place: launch_blur(options.kernel, h_in.device_data(), h_out.device_data(), n,
// options.radius, Range{0, n}, options.block, nullptr). No copies; time the kernel with an
// EventTimer and report it as both kernel_ms and total_ms.
PipelineTimes pipeline_mapped(std::span<const float> input, std::span<float> output,
                              const PipelineOptions& options) {
  throw NotImplemented("mapped", kHere);
}

// TODO(student): rung "streams". Pinned buffers, the vector cut into options.chunks chunks
// (chunk k = [n k / chunks, n (k + 1) / chunks)), and three course::Stream objects: upload,
// compute, download.
//   1. On upload: copy the input in, in order, in pieces cut R elements after the chunks (piece
//      k = [begin_k + R, end_k + R), the first starting at 0, the last ending at n, all clipped
//      to n): piece k brings chunk k and its right halo. Record a course::Event after each.
//   2. On compute: for each chunk, wait (Stream::wait) for piece k's event, then
//      launch_blur(..., Range{begin, end}, ...), and record a second event.
//   3. On download: for each chunk, wait for its blur's event, then copy it out.
// Time the whole trip with an EventTimer started on the upload stream; before stopping it, make
// that stream wait for an event recorded after the last download. Report total_ms only.
PipelineTimes pipeline_streams(std::span<const float> input, std::span<float> output,
                               const PipelineOptions& options) {
  throw NotImplemented("streams", kHere);
}

}  // namespace course::lesson06
