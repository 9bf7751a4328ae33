// Lesson 08, the stretch rungs: a register-tiled kernel tuned to stream at close to the copy
// bandwidth, and the Jacobi driver. Write them after the three exercises in stencil.cu.
#include "course/error.hpp"
#include "stencil_rungs.cuh"

namespace course::lesson08 {

namespace {
constexpr const char* kHere = "lessons/08_stencil/stencil_stretch.cu";
}  // namespace

//! [tuned_exercise]
// TODO(student), stretch: rung "tuned". Reach for the copy ceiling (the reference reaches 78 % of
// it at 512^3). Start from register_tiled and remove what it wastes:
//   - Align the tile: a block computes 32 x 32 outputs with x0 = 32 * blockIdx.x, so every row
//     a warp loads or stores is one 128-byte line, and no thread only loads halo. The halo
//     points come from extra loads: lanes 0-7 of each warp load the points at x0 - 1 and
//     x0 + 32 of the warp's four rows (even lanes left, odd lanes right), the first and last
//     warp the rows y0 - 1 and y0 + 32. The shared plane is [32 + 2][32 + 2].
//   - Keep more bytes in flight: blocks of 32 x 8 threads, each owning 4 rows (ty, ty + 8, ...),
//     and issue the loads of plane z + 2 (and the halo of z + 1) at the start of step z, into
//     registers you only read in later steps.
//   - Several planes per block, so the z-halo is re-read rarely: 24 planes measured best on an
//     H200 (16 to 64 are within 4 %; more planes means fewer blocks to spread over the SMs).
// Keep the two barriers per step. README.md, "Reaching for the copy bandwidth", explains why.
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
