/// @file
/// @brief Lesson 08's timed work, in one place for the speed tests and the demo: how a sweep of a
/// kernel rung, and a run of the Jacobi driver, are described to course::measure()
/// (course/bench.hpp), so that the share the demo prints is the share the tests grade.
///
/// Every timed launch gets a fresh field (uniform in [0, 1), from a new seed), and its output is
/// compared on the GPU with what the given `basic` rung computes from the same field.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "course/compare.hpp"
#include "stencil.cuh"

namespace course::lesson08 {

/// The grid the speed tests grade, and the demo's default.
inline constexpr Grid kSpeedGrid{512, 512, 512};

/// How far a timed sweep may be from `basic`'s for the same field, as the correctness tests
/// allow (README.md, "Tolerance"): with non-negative data and weights, each is within
/// 7 * 2^-24 of the exact value, relative, so 1e-5 relative has a wide margin.
inline constexpr Tolerance kTimedTolerance{1e-30, 1e-5};

/// How far the field after @p sweeps timed Jacobi sweeps may be from @p sweeps sweeps of `basic`:
/// each sweep rounds at most 8 times on either side, and with non-negative weights that sum to 1
/// (heat_coefficients) the differences add up over the sweeps without growing, to at most
/// sweeps * 2 * 8 * 2^-24 of the largest value (< 1 here), absolute; the same again relative.
[[nodiscard]] Tolerance jacobi_tolerance(int sweeps);

/// Device buffers for timing one sweep of the kernel rungs on one grid, and the course::Trial of
/// each rung over them. The Trials refer to this object: keep it alive while they are measured.
class StencilBench {
 public:
  /// Allocates the input, the output and the reference output of @p grid.
  /// @pre every extent in [1, kMaxExtent], grid.count() <= kMaxPoints; @p c's weights >= 0 (the
  ///      tolerance relies on it).
  /// @throws std::invalid_argument otherwise.
  StencilBench(Grid grid, const Coefficients& c);

  /// The timed work of @p variant: load() fills the input with uniform [0, 1) values made from
  /// the seed (course::fill_uniform_floats), reference() runs the given `basic` rung, launch()
  /// runs @p variant, and its output is compared with basic's within kTimedTolerance.
  [[nodiscard]] Trial trial(Variant variant);

  /// The bytes a sweep must move at least: every point read once and written once.
  [[nodiscard]] double bytes() const noexcept { return 2.0 * sizeof(float) * grid_.count(); }
  /// The grid.
  [[nodiscard]] Grid grid() const noexcept { return grid_; }

 private:
  Grid grid_;
  Coefficients c_;
  DeviceBuffer<float> in_;
  DeviceBuffer<float> out_;
  DeviceBuffer<float> expected_;
};

/// Device buffers for timing the Jacobi driver (jacobi()) with a kernel rung on one grid.
class JacobiBench {
 public:
  /// Allocates the initial field, the driver's two buffers and the reference's two.
  /// @pre as StencilBench; @p sweeps >= 0; @p c's weights >= 0, summing to at most 1 (as
  ///      heat_coefficients() makes them: the tolerance relies on it).
  /// @throws std::invalid_argument otherwise.
  JacobiBench(Grid grid, const Coefficients& c, int sweeps);

  /// The timed work of the driver running @p kernel: load() fills the initial field with uniform
  /// [0, 1) values made from the seed; reference() runs the sweeps with the given `basic` rung
  /// and given ping-pong code; launch() copies the initial field into the driver's first buffer
  /// (the driver overwrites it; one copy, against `sweeps` sweeps) and calls jacobi(). The
  /// driver's result buffer (the first after an even number of sweeps, the second after an odd
  /// one) is compared with the reference within jacobi_tolerance(); a driver that returns the
  /// other buffer throws std::runtime_error.
  [[nodiscard]] Trial trial(Variant kernel);

  /// The field after the driver's sweeps with @p kernel from @p initial (grid.count() floats,
  /// host memory), untimed: for the demo's picture. Overwrites the buffers the Trials use.
  [[nodiscard]] std::vector<float> run(std::span<const float> initial, Variant kernel);

  /// The bytes the sweeps must move at least: every point read once and written once per sweep.
  [[nodiscard]] double bytes() const noexcept {
    return 2.0 * sizeof(float) * static_cast<double>(grid_.count()) * sweeps_;
  }
  /// The grid.
  [[nodiscard]] Grid grid() const noexcept { return grid_; }
  /// The sweeps of each run.
  [[nodiscard]] int sweeps() const noexcept { return sweeps_; }

 private:
  Grid grid_;
  Coefficients c_;
  int sweeps_;
  DeviceBuffer<float> initial_;
  DeviceBuffer<float> a_;
  DeviceBuffer<float> b_;
  DeviceBuffer<float> reference_a_;
  DeviceBuffer<float> reference_b_;
};

}  // namespace course::lesson08
