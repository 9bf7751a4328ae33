/// @file
/// @brief The splitmix64 hash behind every seeded input, written once for the CPU and the GPU.
///
/// An input made on the GPU (course/bench.hpp's fill_uniform_*, a lesson's own input kernels) must
/// hold the same numbers as the CPU generators of course/data.hpp, so that a test can compute a
/// CPU reference of what a timed launch used: both call this one function.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define COURSE_HOST_DEVICE __host__ __device__
#else
#define COURSE_HOST_DEVICE
#endif

namespace course {

/// The splitmix64 hash: a well-mixed 64-bit value for each (seed, index), the same bits on the
/// CPU and the GPU.
[[nodiscard]] COURSE_HOST_DEVICE constexpr std::uint64_t hash64(std::uint64_t seed,
                                                                std::uint64_t index) noexcept {
  std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace course
