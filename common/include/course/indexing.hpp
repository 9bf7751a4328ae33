/// @file
/// @brief The index arithmetic that kernels and launchers of several lessons share: a row-major
/// element, the blocks that cover an extent, a pointer's 16-byte alignment.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace course {

/// Row-major element (row, col) of a matrix (or image) with @p cols columns, in 64-bit
/// arithmetic so that large matrices do not overflow.
__host__ __device__ inline std::size_t at(int row, int col, int cols) {
  return static_cast<std::size_t>(row) * cols + col;
}

/// Blocks needed to cover @p extent in steps of @p tile.
__host__ __device__ constexpr int blocks_for(int extent, int tile) {
  return (extent + tile - 1) / tile;
}

/// True when @p pointer is 16-byte aligned: float4 (and int4) accesses are possible.
inline bool aligned16(const void* pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0;
}

}  // namespace course
