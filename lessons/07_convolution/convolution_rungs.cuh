/// @file
/// @brief Lesson 07's rungs, one launcher each, called by convolve() after it has checked the
/// arguments. The given rung lives in convolution_given.cu, the exercises in convolution.cu, the
/// stretch rungs in convolution_stretch.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "convolution.cuh"
#include "course/indexing.hpp"

namespace course::lesson07 {

/// Threads per block along x of the one-output-per-thread rungs (Basic, ConstantFilter).
inline constexpr int kBlockX = 32;
/// Threads per block along y of the one-output-per-thread rungs.
inline constexpr int kBlockY = 8;
/// The square tile edge of TiledHalo (input tile) and TiledCachedHalo (output tile).
inline constexpr int kTile = 32;

/// Blocks of kBlockX x kBlockY threads covering a width x height image, one thread per pixel.
inline dim3 pixel_blocks(int width, int height) {
  return dim3((width + kBlockX - 1) / kBlockX, (height + kBlockY - 1) / kBlockY);
}

// Each launcher: width, height > 0, a checked filter (radius in range, weights matching it, and
// separable for launch_separable), valid non-overlapping buffers (all checked by the caller).
void launch_basic(const float* d_in, float* d_out, int width, int height, const Filter& filter,
                  cudaStream_t stream);
void launch_constant_filter(const float* d_in, float* d_out, int width, int height,
                            const Filter& filter, cudaStream_t stream);
void launch_tiled_halo(const float* d_in, float* d_out, int width, int height, const Filter& filter,
                       cudaStream_t stream);
void launch_tiled_cached_halo(const float* d_in, float* d_out, int width, int height,
                              const Filter& filter, cudaStream_t stream);
void launch_separable(const float* d_in, float* d_out, int width, int height, const Filter& filter,
                      cudaStream_t stream);
void launch_register_coarsened(const float* d_in, float* d_out, int width, int height,
                               const Filter& filter, cudaStream_t stream);

}  // namespace course::lesson07
