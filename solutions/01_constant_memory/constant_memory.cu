// Lesson 01, the exercises solved: constant memory.
#include "constant_memory.cuh"
#include "constant_memory_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson01 {

//! [constant_buffer]
// 64 KB of constant memory is visible to every kernel of the program. It is cached per SM and
// built for one pattern: all threads of a warp reading the same address, which one access
// serves to the whole warp.
__constant__ float c_coefficients[kMaxCoefficients];
//! [constant_buffer]

namespace {

//! [poly_constant_kernel]
// poly_global_kernel with the coefficients in constant memory, and nothing else changed. The
// loop index k is the same in every thread, so each read is a broadcast from the constant cache.
__global__ void poly_constant_kernel(int degree, const float* __restrict__ x,
                                     float* __restrict__ y, unsigned n) {
  const unsigned first = blockIdx.x * blockDim.x * kPointsPerThread + threadIdx.x;
  float xi[kPointsPerThread];
  float value[kPointsPerThread];
#pragma unroll
  for (int p = 0; p < kPointsPerThread; ++p) {
    const unsigned i = first + p * blockDim.x;
    xi[p] = i < n ? x[i] : 0.0f;
    value[p] = c_coefficients[degree];
  }
#pragma unroll 4
  for (int k = degree - 1; k >= 0; --k) {
    const float c = c_coefficients[k];
#pragma unroll
    for (int p = 0; p < kPointsPerThread; ++p) value[p] = fmaf(value[p], xi[p], c);
  }
#pragma unroll
  for (int p = 0; p < kPointsPerThread; ++p) {
    const unsigned i = first + p * blockDim.x;
    if (i < n) y[i] = value[p];
  }
}
//! [poly_constant_kernel]

//! [poly_constant_divergent_kernel]
// The same evaluation with a coefficient set per point, set = i mod sets. Neighbouring threads
// now read different constant addresses; the constant cache serves one address per step, so a
// warp whose threads want m different words waits m steps for every coefficient.
__global__ void poly_constant_divergent_kernel(int degree, int sets, const float* __restrict__ x,
                                               float* __restrict__ y, unsigned n) {
  const unsigned first = blockIdx.x * blockDim.x * kPointsPerThread + threadIdx.x;
  float xi[kPointsPerThread];
  float value[kPointsPerThread];
  const float* c[kPointsPerThread];
#pragma unroll
  for (int p = 0; p < kPointsPerThread; ++p) {
    const unsigned i = first + p * blockDim.x;
    xi[p] = i < n ? x[i] : 0.0f;
    c[p] = c_coefficients + (i % static_cast<unsigned>(sets)) * (degree + 1);
    value[p] = c[p][degree];
  }
#pragma unroll 4
  for (int k = degree - 1; k >= 0; --k) {
#pragma unroll
    for (int p = 0; p < kPointsPerThread; ++p) value[p] = fmaf(value[p], xi[p], c[p][k]);
  }
#pragma unroll
  for (int p = 0; p < kPointsPerThread; ++p) {
    const unsigned i = first + p * blockDim.x;
    if (i < n) y[i] = value[p];
  }
}
//! [poly_constant_divergent_kernel]

}  // namespace

//! [constant_copies]
void copy_to_constant(const float* h_coefficients, int count) {
  CUDA_CHECK(cudaMemcpyToSymbol(c_coefficients, h_coefficients, count * sizeof(float)));
}

void copy_from_constant(float* h_coefficients, int count) {
  CUDA_CHECK(cudaMemcpyFromSymbol(h_coefficients, c_coefficients, count * sizeof(float)));
}
//! [constant_copies]

void launch_poly_constant(int degree, const float* d_x, float* d_y, unsigned n, int block,
                          cudaStream_t stream) {
  poly_constant_kernel<<<poly_blocks_for(n, block), block, 0, stream>>>(degree, d_x, d_y, n);
  CUDA_CHECK_LAST();
}

void launch_poly_constant_divergent(int degree, int sets, const float* d_x, float* d_y,
                                    unsigned n, int block, cudaStream_t stream) {
  poly_constant_divergent_kernel<<<poly_blocks_for(n, block), block, 0, stream>>>(degree, sets, d_x,
                                                                              d_y, n);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson01
