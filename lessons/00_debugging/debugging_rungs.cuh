/// @file
/// @brief Lesson 00's rungs, one launcher each, called by the functions of debugging.cuh after
/// they have checked the arguments. The kernels and their launchers live in debugging.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace course::lesson00 {

/// Threads per block of every kernel of the lab, and the length of the shared tiles.
inline constexpr int kBlock = 256;

/// Blocks of kBlock threads that cover @p items threads.
inline unsigned blocks_for(int items) {
  return static_cast<unsigned>((items + kBlock - 1) / kBlock);
}

// Each launcher: 1 <= n <= kMaxLength, valid non-overlapping buffers (checked by the caller).
void launch_count(const float* d_in, std::int32_t* d_count, int n, cudaStream_t stream);
void launch_downsample(const float* d_in, float* d_out, int n, cudaStream_t stream);
void launch_reverse(const float* d_in, float* d_out, int n, cudaStream_t stream);
void launch_smooth(const float* d_in, float* d_out, int n, cudaStream_t stream);

}  // namespace course::lesson00
