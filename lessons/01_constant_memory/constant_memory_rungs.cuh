/// @file
/// @brief Lesson 01's rungs, one launcher each, called by the interface functions after they
/// have checked the arguments. The given rungs live in constant_memory_given.cu, the exercises
/// in constant_memory.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace course::lesson01 {

// Arguments are valid and n > 0 (checked by the caller).
void launch_table(float* d_y, unsigned n, float step, int block, cudaStream_t stream);
void launch_poly_global(const float* d_coefficients, int degree, const float* d_x, float* d_y,
                        unsigned n, int block, cudaStream_t stream);
void copy_to_constant(const float* h_coefficients, int count);
void launch_poly_constant(int degree, const float* d_x, float* d_y, unsigned n, int block,
                          cudaStream_t stream);
void launch_poly_constant_divergent(int degree, int sets, const float* d_x, float* d_y,
                                    unsigned n, int block, cudaStream_t stream);
void copy_from_constant(float* h_coefficients, int count);

/// Blocks of @p block threads covering @p n elements.
inline unsigned blocks_for(unsigned n, int block) {
  return (n + static_cast<unsigned>(block) - 1) / static_cast<unsigned>(block);
}

/// Points each thread of the polynomial kernels evaluates: every coefficient it reads then
/// feeds this many independent multiply-adds.
inline constexpr int kPointsPerThread = 4;

/// Blocks of @p block threads covering @p n points, kPointsPerThread per thread.
inline unsigned poly_blocks_for(unsigned n, int block) {
  const unsigned per_block = static_cast<unsigned>(block) * kPointsPerThread;
  return static_cast<unsigned>((static_cast<unsigned long long>(n) + per_block - 1) / per_block);
}

}  // namespace course::lesson01
