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
// TODO(student), stretch: rung "register_coarsened". Reach for the copy ceiling with any filter.
// One output per thread leaves two costs: few loads in flight per thread, and (2r + 1)^2 shared
// reads per output. Let each thread compute a strip of outputs down one column (say 16): load the
// block's tile and halo with every load issued before the barrier, then read each input row of
// the strip's window from shared memory once into registers, and add it into every output of
// the strip it contributes to. Keep the accumulators in a fully unrolled register array
// (template<int R>, compile-time loop bounds). The README's "Measured" section has the targets.
void launch_register_coarsened(const float* d_in, float* d_out, int width, int height,
                               const Filter& filter, cudaStream_t stream) {
  throw NotImplemented("register_coarsened", kHere);
}
//! [register_coarsened_exercise]

}  // namespace course::lesson07
