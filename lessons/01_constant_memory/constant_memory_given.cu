// Lesson 01, the given rungs: a first kernel (a table of sin(sqrt(x))) and a polynomial whose
// coefficients every thread reads from global memory.
#include <algorithm>

#include "constant_memory_rungs.cuh"
#include "course/error.hpp"
#include "course/gpu.hpp"

namespace course::lesson01 {

namespace {

//! [table_kernel]
// A grid-stride loop: the grid is sized to fill the GPU once (launch_table asks the occupancy
// calculator how many blocks fit), and each thread walks the table in steps of the whole grid's
// width. Consecutive threads write consecutive floats, so each warp's store is one 128-byte
// line; nothing is read. With one element per thread instead, the blocks would be so short that
// starting them, not storing, would set the pace (measured on an H200: 39 % of the copy ceiling).
// The intrinsic __sinf (a scaling and one special-function-unit instruction) replaces the
// accurate sinf (some forty instructions); for arguments below 32 it stays within 4e-6 of the
// true sine, inside the lesson's tolerance.
__global__ void table_kernel(float* __restrict__ y, unsigned n, float step) {
  const unsigned stride = gridDim.x * blockDim.x;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = __sinf(sqrtf(static_cast<float>(i) * step));
}
//! [table_kernel]

//! [poly_global_kernel]
// Horner's rule, p(x) = c0 + x (c1 + x (c2 + ...)): one fused multiply-add per coefficient.
// Each thread evaluates kPointsPerThread points, blockDim.x apart so that a warp's loads and
// stores stay coalesced; every coefficient it reads then feeds four independent multiply-adds.
// All threads of a warp read the same coefficient at the same time from global memory: the
// cache serves the warp with one access, but each read is still a load instruction of its own.
__global__ void poly_global_kernel(const float* __restrict__ coefficients, int degree,
                                   const float* __restrict__ x, float* __restrict__ y, unsigned n) {
  const unsigned first = blockIdx.x * blockDim.x * kPointsPerThread + threadIdx.x;
  float xi[kPointsPerThread];
  float value[kPointsPerThread];
#pragma unroll
  for (int p = 0; p < kPointsPerThread; ++p) {
    const unsigned i = first + p * blockDim.x;
    xi[p] = i < n ? x[i] : 0.0f;
    value[p] = coefficients[degree];
  }
#pragma unroll 4
  for (int k = degree - 1; k >= 0; --k) {
    const float c = coefficients[k];
#pragma unroll
    for (int p = 0; p < kPointsPerThread; ++p) value[p] = fmaf(value[p], xi[p], c);
  }
#pragma unroll
  for (int p = 0; p < kPointsPerThread; ++p) {
    const unsigned i = first + p * blockDim.x;
    if (i < n) y[i] = value[p];
  }
}
//! [poly_global_kernel]

}  // namespace

void launch_table(float* d_y, unsigned n, float step, int block, cudaStream_t stream) {
  // As many blocks as the GPU holds at once, never more than the table needs.
  int blocks_per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, table_kernel, block, 0));
  const unsigned resident = static_cast<unsigned>(blocks_per_sm * gpu_info().sm_count);
  table_kernel<<<std::min(blocks_for(n, block), resident), block, 0, stream>>>(d_y, n, step);
  CUDA_CHECK_LAST();
}

void launch_poly_global(const float* d_coefficients, int degree, const float* d_x, float* d_y,
                        unsigned n, int block, cudaStream_t stream) {
  poly_global_kernel<<<poly_blocks_for(n, block), block, 0, stream>>>(d_coefficients, degree, d_x, d_y, n);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson01
