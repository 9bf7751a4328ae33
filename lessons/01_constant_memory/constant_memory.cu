// Lesson 01, the exercises: constant memory. Write each piece, then delete the `throw` in it.
// Work top to bottom and run the grader after each (README.md, "How to work on this lesson").
#include "constant_memory_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson01 {

namespace {
constexpr const char* kHere = "lessons/01_constant_memory/constant_memory.cu";
}  // namespace

// TODO(student): rung "poly_constant", part 1. Declare the coefficient buffer in constant memory,
// at namespace scope, sized for every set a launch may use:
//     __constant__ float c_coefficients[kMaxCoefficients];
// (kMaxCoefficients comes from constant_memory.cuh; include it.)

//! [poly_constant_exercise]
// TODO(student): rung "poly_constant", part 2. Copy poly_global_kernel from
// constant_memory_given.cu (its loop structure: kPointsPerThread points per thread) and read the
// coefficients from c_coefficients instead of a pointer argument. Every thread of a warp reads
// the same coefficient at the same time: the constant cache broadcasts it to the whole warp in
// one step.
__global__ void poly_constant_kernel(int degree, const float* __restrict__ x,
                                     float* __restrict__ y, unsigned n) {}
//! [poly_constant_exercise]

void copy_to_constant(const float* h_coefficients, int count) {
  // TODO(student): rung "poly_constant", part 3. Copy `count` floats from h_coefficients into
  // c_coefficients with cudaMemcpyToSymbol (wrapped in CUDA_CHECK).
  throw NotImplemented("poly_constant", kHere);
}

void launch_poly_constant(int degree, const float* d_x, float* d_y, unsigned n, int block,
                          cudaStream_t stream) {
  // TODO(student): rung "poly_constant", part 4. Launch poly_constant_kernel over
  // poly_blocks_for(n, block) blocks of `block` threads on `stream`, then CUDA_CHECK_LAST().
  throw NotImplemented("poly_constant", kHere);
}

// TODO(student): rung "poly_constant_divergent". The same polynomial evaluation, but point i
// uses coefficient set s = i % sets, stored at c_coefficients[s * (degree + 1)]; launch it like
// poly_constant_kernel. Threads of one warp now read *different* constant addresses: predict
// what that does to the time, then measure it with the demo.
__global__ void poly_constant_divergent_kernel(int degree, int sets, const float* __restrict__ x,
                                               float* __restrict__ y, unsigned n) {}

void launch_poly_constant_divergent(int degree, int sets, const float* d_x, float* d_y,
                                    unsigned n, int block, cudaStream_t stream) {
  throw NotImplemented("poly_constant_divergent", kHere);
}

void copy_from_constant(float* h_coefficients, int count) {
  // TODO(student): rung "readback". Copy the first `count` floats of c_coefficients back to
  // h_coefficients with cudaMemcpyFromSymbol.
  throw NotImplemented("readback", kHere);
}

}  // namespace course::lesson01
