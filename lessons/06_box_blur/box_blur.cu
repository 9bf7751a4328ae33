// Lesson 06, the exercises: a shared-memory blur, then every way of moving the vector between
// host and GPU. Write each piece and delete the `throw` in it; run the grader after each one
// (README.md, "How to work on this lesson").
#include "box_blur_rungs.cuh"
#include "course/error.hpp"
#include "course/stream.hpp"

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
void launch_sliding_window(const float* d_in, float* d_out, std::size_t n, int radius, Range range,
                           int block, cudaStream_t stream) {
  throw NotImplemented("sliding_window", kHere);
}

// The trips. Each is handed its vectors already in the host memory of its rung (trip_memory()
// in box_blur.cuh: the caller allocated them, the technique is in which kind they are), two
// device buffers, and a stream. Enqueue the whole trip on that stream and return: the caller
// times it there, with its own events, and reads h_out once the stream is done.

// TODO(student): rung "pinned". h_in is HostMemory::Pinned (cudaHostAlloc) and h_out
// HostMemory::PinnedMallocHost (cudaMallocHost): page-locked, both. Enqueue the same three phases
// as trip_pageable (box_blur_given.cu) on `stream`; serial_trip does exactly that. Then predict
// before you run the demo: which phase changes, and by how much?
void trip_pinned(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                 const PipelineOptions& options, cudaStream_t stream) {
  throw NotImplemented("pinned", kHere);
}

// TODO(student): rung "write_combined". The input is HostMemory::WriteCombined, the output
// ordinary pinned memory: again the three phases of serial_trip on `stream`. Which of the two
// vectors must not be write-combined, and why?
void trip_write_combined(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                         const PipelineOptions& options, cudaStream_t stream) {
  throw NotImplemented("write_combined", kHere);
}

// TODO(student): rung "mapped". Both vectors are HostMemory::Mapped: the kernel can use them in
// place, with no copy at all. Ask CUDA for their device addresses (cudaHostGetDevicePointer,
// inside CUDA_CHECK; h_in needs a const_cast), then launch_blur(options.kernel, in, out, n,
// options.radius, Range{0, n}, options.block, stream). The device buffers stay unused.
void trip_mapped(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                 const PipelineOptions& options, cudaStream_t stream) {
  throw NotImplemented("mapped", kHere);
}

// TODO(student): rung "streams". Both vectors are pinned. Cut the vector into options.chunks
// chunks (chunk k = [n k / chunks, n (k + 1) / chunks), in 64-bit arithmetic: n k reaches 2^34;
// no more chunks than elements). `stream` blurs; two course::Stream objects of your own carry the
// copies, one up and one down.
//   0. Fork: record a course::Event on `stream`; make both of your streams wait for it
//      (Stream::wait), so that nothing of the trip starts before the work the caller enqueued.
//   1. Upload: copy the input in, in order, in pieces cut R elements after the chunks (piece
//      k = [begin_k + R, end_k + R), the first starting at 0, the last ending at n, all clipped
//      to n): piece k brings chunk k and its right halo. Record an Event after each.
//   2. Blur, on `stream`: for each chunk, wait (cudaStreamWaitEvent) for piece k's event, then
//      launch_blur(..., Range{begin_k, end_k}, ...) from device.d_in to device.d_out, and record
//      a second event.
//   3. Download: for each chunk, wait for its blur's event, then copy it out to h_out.
//   4. Join: record an event after the last download and make `stream` wait for it before you
//      return. Every upload is already behind `stream` (the blurs waited for them).
void trip_streams(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                  const PipelineOptions& options, cudaStream_t stream) {
  throw NotImplemented("streams", kHere);
}

}  // namespace course::lesson06
