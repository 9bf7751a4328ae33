// Lesson 08, the stretch rungs: a kernel tuned to stream at close to the copy bandwidth, and the
// Jacobi driver. Write them after the three exercises in stencil.cu.
#include "course/error.hpp"
#include "stencil_rungs.cuh"
#include "stencil_tma.cuh"  // the TMA's instructions and tensor map, for rung tuned

namespace course::lesson08 {

namespace {
constexpr const char* kHere = "lessons/08_stencil/stencil_stretch.cu";
}  // namespace

//! [tuned_exercise]
// TODO(student), stretch: rung "tuned". Reach for the copy ceiling (the reference: about 94 % of
// it at 512^3 on an H100). Start from register_tiled and remove what it wastes:
//   - Aligned rows, no idle threads: a warp computes 128 points of a row, four per thread (one
//     float4); a tile is 2 x 128 points by 8 rows (16 warps); x-neighbours by shuffles.
//   - Bytes in flight without registers, few load instructions: a ring of 6 planes of the tile
//     (with a one-point halo) in dynamic shared memory (64.7 KB: cudaFuncSetAttribute), 3 planes
//     ahead of the arithmetic. One thread asks the TMA for a plane: 2 boxes of 132 x 10 floats
//     from (x0 - 4, y0 - 1), zeros outside the grid (stencil_tma.cuh; ptx::tensor_map_3d's map
//     is a __grid_constant__ parameter). 8 planes per block.
//   - An mbarrier per ring slot: arrive.expect_tx with the plane's bytes; the n-th fill of a slot
//     completes phase n: wait with parity n % 2 (a wrong parity hangs). One __syncthreads() per
//     plane frees the slot refilled next (then fence_proxy_async(), then the TMA).
//   - The TMA needs compute capability 9.0 and code built for it (#if __CUDA_ARCH__ >= 900 around
//     the body; gpu_info() and cudaFuncGetAttributes' ptxVersion at run time), rows of 16 bytes
//     and aligned buffers. Elsewhere fall back: the same ring filled by cp.async (cuda_pipeline.h)
//     in 128 x 8 tiles, 6 planes per block (or, to start, launch_register_tiled()).
// README.md, "Reaching for the copy bandwidth" and "What closed the gap", explains why.
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
