/// @file
/// @brief Lesson 02's rungs, one launcher each, called by transpose() after it has checked the
/// arguments. The given rungs live in transpose_given.cu, the exercises in transpose.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace course::lesson02 {

/// The tile edge of every rung but Vectorized: one warp wide.
inline constexpr int kTile = 32;

/// Row-major element (row, col) of a matrix with @p cols columns, in 64-bit arithmetic so that
/// large matrices do not overflow.
__host__ __device__ inline std::size_t at(int row, int col, int cols) {
  return static_cast<std::size_t>(row) * cols + col;
}

// Each launcher: rows, cols > 0, valid non-overlapping buffers (checked by the caller).
void launch_copy(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream);
void launch_naive(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream);
void launch_tiled(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream);
void launch_padded(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream);
void launch_coarsened(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream);
void launch_vectorized(const float* d_in, float* d_out, int rows, int cols, cudaStream_t stream);

}  // namespace course::lesson02
