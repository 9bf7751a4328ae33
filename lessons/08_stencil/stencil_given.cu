// Lesson 08, the given rung: one thread per point, every neighbour read from global memory.
#include "course/error.hpp"
#include "stencil_rungs.cuh"

namespace course::lesson08 {

namespace {

//! [basic_kernel]
// One thread per point in blocks of 32 x 4 x 4; a warp covers 32 consecutive x of one row, so
// each of its seven loads is one coalesced row segment (shifted by one float for x - 1 and
// x + 1). Counted naively, a point costs seven 4-byte loads for 13 FLOP: 0.46 OP/B. The caches
// do better than that count: the six neighbours of a point are the centres of other threads,
// and most of them are found in L1 or L2, not in DRAM.
__global__ void basic_kernel(const float* __restrict__ in, float* __restrict__ out, Grid g,
                             Coefficients c) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= g.nx || y >= g.ny || z >= g.nz)
    return;
  const std::size_t i = at(x, y, z, g);
  if (!is_interior(x, y, z, g)) {
    out[i] = in[i];  // boundary: copied unchanged
    return;
  }
  const std::size_t row = g.nx;                                     // one step in y
  const std::size_t plane = static_cast<std::size_t>(g.nx) * g.ny;  // one step in z
  out[i] = c.c0 * in[i] + c.c1 * in[i - 1] + c.c2 * in[i + 1] + c.c3 * in[i - row] +
           c.c4 * in[i + row] + c.c5 * in[i - plane] + c.c6 * in[i + plane];
}
//! [basic_kernel]

}  // namespace

void launch_basic(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                  cudaStream_t stream) {
  const dim3 block(kBasicX, kBasicY, kBasicZ);
  const dim3 blocks((grid.nx + kBasicX - 1) / kBasicX, (grid.ny + kBasicY - 1) / kBasicY,
                    (grid.nz + kBasicZ - 1) / kBasicZ);
  basic_kernel<<<blocks, block, 0, stream>>>(d_in, d_out, grid, c);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson08
