// Lesson 11, the given code: the library baseline (thrust) and the float-key flip every rung
// shares.
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include "course/error.hpp"
#include "sorting_rungs.cuh"

namespace course::lesson11 {

namespace {

//! [flip_kernel]
// IEEE 754 floats of one sign are ordered like their bit patterns read as integers: larger
// magnitude, larger pattern. Setting the sign bit of a positive float moves it above every
// negative one; inverting all bits of a negative float reverses its order and moves it below.
// The result sorts as an unsigned integer in totalOrder: -NaN < -inf < ... < -0 < +0 < ... <
// +inf < +NaN. The radix rungs need integer digits; the networks reuse it so that every rung
// orders -0.0, +0.0 and NaNs the same way.
__device__ inline std::uint32_t flip(std::uint32_t bits) {
  return (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
}
__device__ inline std::uint32_t unflip(std::uint32_t bits) {
  return (bits & 0x80000000u) != 0 ? bits & 0x7FFFFFFFu : ~bits;
}

__global__ void flip_kernel(std::uint32_t* keys, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    keys[i] = flip(keys[i]);
}

__global__ void unflip_kernel(std::uint32_t* keys, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    keys[i] = unflip(keys[i]);
}
//! [flip_kernel]

unsigned flip_blocks(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  return static_cast<unsigned>(blocks < 65536 ? blocks : 65536);
}

}  // namespace

void flip_float_keys(std::uint32_t* d_keys, std::size_t n, cudaStream_t stream) {
  flip_kernel<<<flip_blocks(n), 256, 0, stream>>>(d_keys, n);
  CUDA_CHECK_LAST();
}

void unflip_float_keys(std::uint32_t* d_keys, std::size_t n, cudaStream_t stream) {
  unflip_kernel<<<flip_blocks(n), 256, 0, stream>>>(d_keys, n);
  CUDA_CHECK_LAST();
}

//! [thrust_rung]
// The baseline: one library call. For uint32 keys thrust dispatches to CUB's radix sort; the
// stable variant promises what the radix rungs promise (equal keys keep their order). Thrust
// allocates its own scratch memory on each call, as most programs that call it do.
void launch_thrust(const Problem& problem, Workspace& /*workspace*/, cudaStream_t stream) {
  const auto policy = thrust::cuda::par.on(stream);
  std::uint32_t* first = problem.keys;
  std::uint32_t* last = problem.keys + problem.count();
  if (problem.values != nullptr)
    thrust::stable_sort_by_key(policy, first, last, problem.values);
  else
    thrust::stable_sort(policy, first, last);
  CUDA_CHECK_LAST();
}
//! [thrust_rung]

}  // namespace course::lesson11
