// Lesson 07, the stretch rungs (bonus points): write each kernel, launch it, and delete the
// `throw` in its launcher. The reference solution's comments explain one design for each.
#include "convolution_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson07 {

namespace {
constexpr const char* kHere = "lessons/07_convolution/convolution_stretch.cu";
}  // namespace

//! [separable_exercise]
// TODO(student), stretch: rung "separable". A separable filter is the outer product
// weights[i][j] = filter.column[i] * filter.row[j] (convolve() checks that the filter has both
// vectors). Filter every row with `row` first, then every column of that result with `column`:
// 2 (2r + 1) multiply-adds per output instead of (2r + 1)^2.
//   * Give this file its own __constant__ arrays for the two vectors (a __constant__ variable
//     belongs to the file that defines it) and upload them with cudaMemcpyToSymbolAsync.
//   * Keep the intermediate image in shared memory: a block loads its output tile plus a halo of
//     r on every side (0 for ghost cells), runs the row pass over every row of that tile, halo
//     rows included, into a second shared array, __syncthreads(), then the column pass.
//   * A template<int R> kernel, launched through a switch on filter.radius, lets the compiler
//     unroll the filter loops.
void launch_separable(const float* d_in, float* d_out, int width, int height, const Filter& filter,
                      cudaStream_t stream) {
  throw NotImplemented("separable", kHere);
}
//! [separable_exercise]

//! [register_coarsened_exercise]
// TODO(student), stretch: rung "register_coarsened". Reach for the copy ceiling with any filter
// (the README's "Measured" gives the reference's share at 8192^2, r = 2).
//   * Let each thread own four adjacent columns (one float4; two from r = 4 on) and walk a
//     strip of rows, one per blockIdx.y (8 rows up to r = 3, 32 beyond, in the reference).
//     Step t reads input row begin - r + t and adds it into the 2r + 1 output rows it feeds
//     (row begin + t - 2r + k through filter row 2r - k): accumulators in a register array
//     indexed by t mod (2r + 1), a compile-time index (template<int R>, loops unrolled).
//   * Take the r columns left and right of a thread's four from the neighbouring lanes
//     (__shfl_up_sync, __shfl_down_sync); only the warp's edge lanes need them from memory.
//   * Keep rows in flight without spending registers: copy them into a small ring in shared
//     memory per warp with __pipeline_memcpy_async (<cuda_pipeline.h>), several rows ahead.
//   * Then close the gap (README, "What closed the gap"). Odd strips walk *up* (step t reads
//     row end - 1 + r - t, finishes row end - 1 - (t - 2r), filter row k where walking down
//     takes 2r - k), so that neighbouring strips read their shared rows together (L2). And a
//     full strip's walk (8 + 2r steps) is unrolled whole, so that the multiply-adds into rows
//     outside the strip drop out at compile time; a shorter last strip can keep a loop.
void launch_register_coarsened(const float* d_in, float* d_out, int width, int height,
                               const Filter& filter, cudaStream_t stream) {
  throw NotImplemented("register_coarsened", kHere);
}
//! [register_coarsened_exercise]

}  // namespace course::lesson07
