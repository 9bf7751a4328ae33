/// @file
/// @brief Lesson 07's timed work, in one place for the speed tests and the demo: how a rung's
/// launch is described to course::measure() (course/bench.hpp), so that the share the demo prints
/// is the share the tests grade.
///
/// Every timed launch gets a fresh image (uniform in [0, 1), from a new seed), and its output is
/// compared on the GPU with the given `basic` rung's output for the same image and filter.
#pragma once

#include <cstddef>

#include "convolution.cuh"
#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "course/compare.hpp"

namespace course::lesson07 {

/// The graded image width: the speed tests' size, and the demo's default.
inline constexpr int kSpeedWidth = 8192;
/// The graded image height.
inline constexpr int kSpeedHeight = 8192;
/// The graded filter radius (a Gaussian filter).
inline constexpr int kSpeedRadius = 2;

/// How far a timed output may be from the `basic` rung's for the same inputs, for a filter of
/// @p radius with non-negative weights and an image in [0, 1). Both are float sums within
/// gamma_k * sum |F N| of the exact result, k = (2r + 1)^2 + 2 (README.md, "Accuracy"); with
/// no negative term, sum |F N| is the exact result itself, so the two differ by at most
/// 2 gamma_k / (1 - gamma_k) of basic's value: a relative tolerance (3.2e-6 at r = 2).
[[nodiscard]] Tolerance timed_tolerance(int radius);

/// Device buffers for timing the rungs on one image size and filter, and the course::Trial of
/// each rung over them. The Trials refer to this object: keep it alive while they are measured.
class ConvolutionBench {
 public:
  /// Allocates the input, the output and the reference output of a @p width x @p height image.
  /// @pre 1 <= width, height, width * height <= kMaxPixels; @p filter's weights are all >= 0
  ///      (the tolerance relies on it; every filter the tests and the demo time has them).
  /// @throws std::invalid_argument otherwise.
  ConvolutionBench(int width, int height, Filter filter);

  /// The timed work of @p variant: load() fills the input with uniform [0, 1) pixels made from
  /// the seed (course::fill_uniform_floats), reference() runs the given `basic` rung into the
  /// reference buffer, launch() runs @p variant, and its output is compared with basic's within
  /// timed_tolerance().
  [[nodiscard]] Trial trial(Variant variant);

  /// The bytes a rung must move at least: each pixel read once and written once.
  [[nodiscard]] double bytes() const noexcept { return 2.0 * sizeof(float) * count(); }
  /// The image width.
  [[nodiscard]] int width() const noexcept { return width_; }
  /// The image height.
  [[nodiscard]] int height() const noexcept { return height_; }
  /// The filter every Trial convolves with.
  [[nodiscard]] const Filter& filter() const noexcept { return filter_; }

 private:
  [[nodiscard]] std::size_t count() const noexcept {
    return static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_);
  }
  int width_;
  int height_;
  Filter filter_;
  DeviceBuffer<float> in_;
  DeviceBuffer<float> out_;
  DeviceBuffer<float> expected_;
};

}  // namespace course::lesson07
