/// @file
/// @brief Lesson 02's timed work: how the tests and the demo time a rung, in one place.
///
/// Each rung is described to course::measure() (course/bench.hpp) as a course::Trial: fresh
/// uniform inputs made on the GPU from each launch's seed, the expected output computed by
/// trusted code (a device-to-device copy for `copy`, a one-line transpose kernel of this file for
/// every other rung: never the rung under test), and the whole output compared bit for bit
/// after every timed launch.
#pragma once

#include <cstddef>

#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "transpose.cuh"

namespace course::lesson02 {

/// The shape the speed tests and the demo time by default.
inline constexpr int kBenchRows = 8192;
/// See kBenchRows.
inline constexpr int kBenchCols = 8192;

/// The buffers for timing the ladder at one shape, and each rung's Trial over them. The Trials
/// refer to this object: keep it alive (and in place) while they are measured.
class Bench {
 public:
  /// Allocates the input, output and expected output of a @p rows x @p cols transpose.
  /// @throws std::invalid_argument for extents outside what transpose() accepts, or 0.
  Bench(int rows, int cols);
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  /// The Trial that times @p variant: the input uniform in [-1, 1) from each launch's seed,
  /// the output checked bit-exact against the trusted reference.
  [[nodiscard]] Trial trial(Variant variant);

  /// The bytes a rung must move at least: every element read once and written once.
  [[nodiscard]] double bytes() const { return 2.0 * static_cast<double>(count()) * sizeof(float); }
  /// Elements of the matrix.
  [[nodiscard]] std::size_t count() const { return static_cast<std::size_t>(rows_) * cols_; }

 private:
  int rows_;
  int cols_;
  DeviceBuffer<float> in_;
  DeviceBuffer<float> out_;
  DeviceBuffer<float> expected_;
};

}  // namespace course::lesson02
