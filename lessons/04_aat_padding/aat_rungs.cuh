/// @file
/// @brief Lesson 04's rungs, one launcher each, called by aat() after it has checked the
/// arguments; and the small helpers they share. The given rung lives in aat_given.cu, the
/// exercises in aat.cu, the stretch rung in aat_register.cu.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "course/indexing.hpp"

namespace course::lesson04 {

/// The tile edge of the tiled rungs: one warp wide, so a warp's 32 threads meet 32 banks.
inline constexpr int kTile = 32;

/// A[row][col] of the n x k matrix @p a, or 0 outside it: tiles that hang over the matrix's
/// edge are padded with zeros, which add nothing to a dot product.
__device__ inline float load_or_zero(const float* __restrict__ a, int row, int col, int n, int k) {
  return row < n && col < k ? a[at(row, col, k)] : 0.0f;
}

//! [upper_tile]
/// Tile pairs (bi, bj) with bi <= bj of a T x T grid of tiles, numbered column by column:
/// 0 -> (0, 0), 1 -> (0, 1), 2 -> (1, 1), 3 -> (0, 2), ... Column bj starts at number
/// bj (bj + 1) / 2, so bj is the largest integer with bj (bj + 1) / 2 <= b, which is
/// floor((sqrt(8 b + 1) - 1) / 2). The square root is taken in double (exact enough for any
/// b < 2^31) and the two loops correct a rounding at a column's boundary, so the result is
/// exact whatever the square root's last bit.
__host__ __device__ inline void upper_tile(unsigned b, int& bi, int& bj) {
  const long long number = b;
  long long col =
      static_cast<long long>((sqrt(8.0 * static_cast<double>(number) + 1.0) - 1.0) / 2.0);
  while (col * (col + 1) / 2 > number)
    --col;
  while ((col + 1) * (col + 2) / 2 <= number)
    ++col;
  bj = static_cast<int>(col);
  bi = static_cast<int>(number - col * (col + 1) / 2);
}
//! [upper_tile]

/// Blocks needed to cover the tiles on and above the diagonal of a T x T grid of tiles.
inline unsigned upper_tile_count(int tiles) {
  return static_cast<unsigned>(tiles) * static_cast<unsigned>(tiles + 1) / 2;
}

// Each launcher: n, k > 0, valid non-overlapping buffers (checked by the caller).
void launch_tiled_unpadded(const float* d_a, float* d_c, int n, int k, cudaStream_t stream);
void launch_tiled_padded(const float* d_a, float* d_c, int n, int k, cudaStream_t stream);
void launch_transposed_store(const float* d_a, float* d_c, int n, int k, cudaStream_t stream);
void launch_symmetric(const float* d_a, float* d_c, int n, int k, cudaStream_t stream);
void launch_register_tiled(const float* d_a, float* d_c, int n, int k, cudaStream_t stream);

}  // namespace course::lesson04
