/// @file
/// @brief Lesson 03's rungs, one launcher each, called by multiply() after it has checked the
/// arguments. The given rungs live in matmul_given.cu, the exercises in matmul.cu and the
/// stretch rungs in matmul_stretch.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace course::lesson03 {

/// Row-major element (row, col) of a matrix with @p cols columns, in 64-bit arithmetic.
__host__ __device__ inline std::size_t at(int row, int col, int cols) {
  return static_cast<std::size_t>(row) * cols + col;
}

/// Blocks needed to cover @p extent in steps of @p tile.
__host__ __device__ constexpr int blocks_for(int extent, int tile) {
  return (extent + tile - 1) / tile;
}

/// True when @p pointer is 16-byte aligned: float4 accesses are possible.
inline bool aligned16(const void* pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0;
}

// Each launcher: m, n, k > 0, valid non-overlapping buffers, shape within the limits (checked
// by the caller, which also handles k = 0 and empty products).
void launch_naive_uncoalesced(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                              cudaStream_t stream);
void launch_naive(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                  cudaStream_t stream);
// tile is one of 4, 8, 16, 32.
void launch_tiled(int tile, const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                  cudaStream_t stream);
void launch_register_1d(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                        cudaStream_t stream);
void launch_register_2d(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                        cudaStream_t stream);
void launch_warptiled(const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                      cudaStream_t stream);

}  // namespace course::lesson03
