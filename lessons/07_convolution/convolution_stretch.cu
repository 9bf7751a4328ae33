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
// (the README's "Measured" gives the reference's share at 8192^2, r = 2). One output per thread
// leaves three costs: few loads in flight, (2r + 1)^2 shared reads per output, and blocks that
// load, then compute.
//   * Let each thread own four adjacent columns (one float4; the reference takes two from
//     r = 4 on, so that the accumulators fit in registers) and walk down a strip of rows
//     (32 in the reference). Each input row adds into the 2r + 1 output rows it belongs to
//     (output row t - 2r + k through filter row 2r - k); keep those accumulators in a register
//     array indexed by t mod (2r + 1), and unroll the walk 2r + 1 rows at a time so that every
//     index is a compile-time constant (template<int R>).
//   * Take the r columns left and right of a thread's four from the neighbouring lanes
//     (__shfl_up_sync, __shfl_down_sync); only the warp's edge lanes need them from memory.
//   * Keep rows in flight without spending registers: copy them into a small ring in shared
//     memory per warp with __pipeline_memcpy_async (<cuda_pipeline.h>), several rows ahead.
void launch_register_coarsened(const float* d_in, float* d_out, int width, int height,
                               const Filter& filter, cudaStream_t stream) {
  throw NotImplemented("register_coarsened", kHere);
}
//! [register_coarsened_exercise]

}  // namespace course::lesson07
