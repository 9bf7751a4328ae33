// Lesson 08, the stretch rungs: a kernel tuned to stream at close to the copy bandwidth, and the
// Jacobi driver. Write them after the three exercises in stencil.cu.
#include "course/error.hpp"
#include "stencil_rungs.cuh"

namespace course::lesson08 {

namespace {
constexpr const char* kHere = "lessons/08_stencil/stencil_stretch.cu";
}  // namespace

//! [tuned_exercise]
// TODO(student), stretch: rung "tuned". Reach for the copy ceiling (the reference reaches 84 % of
// it at 512^3 on the H100 of slides/results). Start from register_tiled and remove what it wastes:
//   - Too few bytes in flight: stage the planes through a ring of a few planes in shared memory
//     (6 in the reference), filled with asynchronous copies (__pipeline_memcpy_async,
//     __pipeline_commit, __pipeline_wait_prior from <cuda_pipeline.h>) several planes ahead of
//     the arithmetic. Copies in flight cost no registers.
//   - Idle and misaligned threads: let a warp own a row of 128 points, four per thread (one
//     16-byte copy), starting on a 512-byte boundary; a block stacks 8 such rows. Two warps
//     also copy the rows just beyond the tile, two lanes per warp the points just left and
//     right of it; the x-neighbours inside the warp come from __shfl_up_sync/__shfl_down_sync.
//   - Two barriers per step: with the ring, one __syncthreads() per plane is enough (after it,
//     plane z + 1 has landed for everyone and nobody still reads the slot you refill next).
//   - Short blocks: 6 planes per block measured best on an H200 (32 planes: 5 points less).
// README.md, "Reaching for the copy bandwidth", explains why.
void launch_tuned(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                  cudaStream_t stream) {
  throw NotImplemented("tuned", kHere);
}
//! [tuned_exercise]

//! [jacobi_exercise]
// TODO(student), stretch: the Jacobi driver. Run `sweeps` sweeps of `kernel` (call
// stencil(kernel, src, dst, grid, c, stream)), each reading what the sweep before wrote: start
// with src = d_a, dst = d_b, and swap the two pointers after each sweep (ping-pong). Return the
// buffer the last sweep wrote (d_a when sweeps == 0). No copies and no allocations: the two
// buffers take turns.
float* run_jacobi(float* d_a, float* d_b, Grid grid, const Coefficients& c, int sweeps,
                  Variant kernel, cudaStream_t stream) {
  throw NotImplemented("jacobi", kHere);
}
//! [jacobi_exercise]

}  // namespace course::lesson08
