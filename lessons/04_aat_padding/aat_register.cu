// Lesson 04, the stretch rung: register tiling on top of symmetry, reaching for cuBLAS SSYRK.
// Write the kernel, launch it, and delete the `throw` in its launcher.
#include "aat_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson04 {

namespace {
constexpr const char* kHere = "lessons/04_aat_padding/aat_register.cu";
}  // namespace

//! [register_tiled_exercise]
// TODO(student), stretch: rung "register_tiled". Keep the symmetric rung's idea (blocks only
// for tiles with bi <= bj, mirrors written by the block) and give each thread far more work:
//   - 128 x 128 tiles of C per block of 256 threads; each thread keeps 8 x 8 sums in registers.
//   - Per stage of 8 columns of A, stage both strips (rows i0.. and rows j0.. of A) in shared
//     memory k-major, stage[q][r] = A[row0 + r][p0 + q], so that a thread's rows are
//     consecutive floats: read them as float4 (rows ty*4.. and 64 + ty*4.. avoid conflicts).
//   - Load A with float4 when k % 4 == 0 and A is 16-byte aligned; otherwise element by element,
//     guarded at the ragged end of k.
//   - Double-buffer the stages: load the next stage into registers before computing on this
//     one, store it into the other buffer after; one __syncthreads() per stage.
//   - __launch_bounds__(256, 2) caps the registers so that two blocks share an SM.
// Launch upper_tile_count((n + 127) / 128) blocks of 256 threads. README, "Register tiling"
// walks through the arithmetic; the symmetric rung is the correctness reference to beat.
void launch_register_tiled(const float* d_a, float* d_c, int n, int k, cudaStream_t stream) {
  throw NotImplemented("register_tiled", kHere);
}
//! [register_tiled_exercise]

}  // namespace course::lesson04
