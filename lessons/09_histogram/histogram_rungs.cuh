/// @file
/// @brief Lesson 09's rungs, one launcher each, called by histogram() after it has checked the
/// arguments and zeroed the counts; and the small helpers that given code, skeleton and solution
/// share. The given rung and helpers live in histogram_given.cu, the exercises in histogram.cu,
/// the stretch rungs in histogram_stretch.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "histogram.cuh"

namespace course::lesson09 {

/// The letter bin of byte @p c: (c - 'a') / 4 for 'a'...'z', else -1 (the byte is ignored).
__host__ __device__ constexpr int letter_bin(unsigned char c) {
  return c >= 'a' && c <= 'z' ? (c - 'a') / 4 : -1;
}

/// Blocks needed to give each of @p items one of @p per_block slots.
inline unsigned blocks_for(std::size_t items, std::size_t per_block) {
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

/// Given: how many blocks of @p block threads of @p kernel the GPU holds at once (blocks per
/// SM from the occupancy calculator, times the SMs). Asked once per kernel and block size, then
/// remembered, so that a timed call does not pay for the question.
unsigned resident_blocks(const void* kernel, int block);

/// Given: resident_blocks() for a kernel passed by name, e.g.
/// resident_blocks(coarsened_interleaved_kernel, block).
template <class Kernel>
unsigned resident_blocks(Kernel* kernel, int block) {
  return resident_blocks(reinterpret_cast<const void*>(kernel), block);
}

/// Given: @p count uint32 of device scratch memory, kept by the lesson between calls and grown
/// when a call needs more. Its contents are whatever the last call left there.
std::uint32_t* workspace(std::size_t count);

// Each launcher: n > 0, valid non-overlapping buffers, d_bins already zero (the caller's
// cudaMemsetAsync, stream-ordered before the launch); the rung adds its counts into d_bins.
void launch_atomic_global(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                          int block, cudaStream_t stream);
void launch_privatized_global(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                              int block, cudaStream_t stream);
void launch_privatized_shared(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                              int block, cudaStream_t stream);
void launch_coarsened_contiguous(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                                 int block, cudaStream_t stream);
void launch_coarsened_interleaved(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                                  int block, cudaStream_t stream);
void launch_aggregated(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins, int block,
                       cudaStream_t stream);
void launch_register_privatized(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                                cudaStream_t stream);
void launch_bytes256(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                     cudaStream_t stream);

}  // namespace course::lesson09
