/// @file
/// @brief Lesson 12's rungs, one launcher each, called by multiply() after it has checked the
/// arguments. The given rung lives in tensor_cores_given.cu, the exercises in wmma.cu and
/// mma_sync.cu, the stretch rung in wgmma.cu (compiled for sm_90a alone).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "course/indexing.hpp"
#include "tensor_cores.cuh"

namespace course::lesson12 {

/// What every launcher receives. multiply() has checked the shape (m, n, k > 0, within the
/// limits) and, for the tensor-core rungs, made the operands what they need: k a multiple of 8
/// and A and B starting on 16-byte boundaries, so that every row of A and every column of B is a
/// whole number of 16-byte chunks. C has only a float's alignment.
struct Problem {
  const bf16* a;  ///< m x k, row-major
  const bf16* b;  ///< k x n, column-major: column j at b + j * k
  float* c;       ///< m x n, row-major
  int m, n, k;
};

// The launchers. simt_bf16 takes any k and alignment; the others the Problem's promise above.
void launch_simt_bf16(const Problem& p, cudaStream_t stream);
void launch_wmma(const Problem& p, cudaStream_t stream);
void launch_mma_sync(const Problem& p, cudaStream_t stream);
/// Defined only in a build that compiles wgmma.cu (CUDA architectures that include 90).
void launch_wgmma(const Problem& p, cudaStream_t stream);

}  // namespace course::lesson12
