/// @file
/// @brief Lesson 00's timed work: how the demo runs and checks a rung, in one place.
///
/// Each rung is described to course::measure() (course/bench.hpp) as a course::Trial: fresh
/// uniform inputs made on the GPU from each launch's seed, shared memory filled with NaN before
/// each launch (as the tests do), the expected output computed by a one-line kernel of this
/// file (never the rung under test), and the whole output compared bit for bit after every
/// launch. The lab has no speed rows; the demo uses the trials to say which rungs are right.
#pragma once

#include <cstddef>
#include <cstdint>

#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "debugging.cuh"

namespace course::lesson00 {

/// The demo's default length: 2^24 + 1, odd and one past a multiple of the block, so that every
/// bug of the skeleton shows.
inline constexpr std::size_t kBenchLength = (std::size_t{1} << 24) + 1;

/// Poisoned floats after the input: a rung that reads past the end reads NaN.
inline constexpr std::size_t kBenchGuard = 64;

/// The buffers for running the lab at one length, and each rung's Trial over them. The Trials
/// refer to this object: keep it alive (and in place) while they are measured.
class Bench {
 public:
  /// Allocates the input (with kBenchGuard poisoned floats after it), the outputs and the
  /// expected outputs for arrays of @p n floats.
  /// @throws std::invalid_argument for n = 0 or n > kMaxLength.
  explicit Bench(std::size_t n);
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  /// The Trial that runs @p variant: the input uniform in [-1, 1) from each launch's seed,
  /// shared memory poisoned, the output checked bit-exact against the trusted reference.
  [[nodiscard]] Trial trial(Variant variant);

  /// The bytes @p variant must move at least: its input read once, its output written once.
  [[nodiscard]] double bytes(Variant variant) const;

 private:
  /// The reference and the launch of a rung that maps the input array to an output array:
  /// @p reference (a kernel) writes the expected output, @p launch is the rung's entry point.
  void array_rung(Trial& trial, void (*reference)(const float*, float*, std::size_t),
                  void (*launch)(const float*, float*, std::size_t, cudaStream_t));

  std::size_t n_;
  DeviceBuffer<float> in_;
  DeviceBuffer<float> out_;
  DeviceBuffer<float> expected_;
  DeviceBuffer<std::int32_t> count_;
  DeviceBuffer<std::int32_t> expected_count_;
};

}  // namespace course::lesson00
