/// @file
/// @brief Lesson 02's rungs, one launcher each, called by transpose() after it has checked the
/// arguments. The given rungs live in transpose_given.cu, the exercises in transpose.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "course/indexing.hpp"

namespace course::lesson02 {

/// The tile edge of every rung but Vectorized: one warp wide.
inline constexpr int kTile = 32;

// Each launcher: rows, cols > 0, valid non-overlapping buffers (checked by the caller).
void launch_copy(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream);
void launch_naive(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream);
void launch_tiled(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream);
void launch_padded(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream);
void launch_coarsened(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream);
void launch_vectorized(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream);

}  // namespace course::lesson02
