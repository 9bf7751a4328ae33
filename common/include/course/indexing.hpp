/// @file
/// @brief The index arithmetic that kernels and launchers of several lessons share: a row-major
/// element, the blocks that cover an extent, a pointer's 16-byte alignment, whether two buffers
/// overlap.
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

/// Whether the @p a_count elements at @p a and the @p b_count elements at @p b share a byte (an
/// empty buffer overlaps nothing). The addresses are compared as integers, so the two may come
/// from different allocations, and the element types may differ.
template <class A, class B>
bool overlap(const A* a, std::size_t a_count, const B* b, std::size_t b_count) {
  const auto x = reinterpret_cast<std::uintptr_t>(a);
  const auto y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + b_count * sizeof(B) && y < x + a_count * sizeof(A);
}

/// Whether the @p count elements at @p a and the @p count elements at @p b share a byte.
template <class T>
bool overlap(const T* a, const T* b, std::size_t count) {
  return overlap(a, count, b, count);
}

}  // namespace course
