/// @file
/// @brief Lesson 03's rungs, one launcher each, called by multiply() after it has checked the
/// arguments. The given rungs live in matmul_given.cu, the exercises in matmul.cu and the
/// stretch rungs in matmul_stretch.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "course/indexing.hpp"

namespace course::lesson03 {

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
