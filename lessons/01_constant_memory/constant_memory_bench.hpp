/// @file
/// @brief Lesson 01's timed work: how the tests and the demo time a rung, in one place.
///
/// Each rung is described to course::measure() (course/bench.hpp) as a course::Trial. Before
/// every launch it loads fresh inputs made from the launch's seed: for the table a new step, for
/// the polynomials new points x (made on the GPU) and new coefficients (uploaded to global
/// memory for poly_global, to the __constant__ buffer with upload_coefficients() for the others).
/// The expected output comes from small trusted kernels of this file, never from the rung under
/// test, and the whole output is compared after every timed launch within the lesson's
/// tolerances.
#pragma once

#include <cstddef>
#include <vector>

#include "constant_memory.cuh"
#include "course/bench.hpp"
#include "course/buffer.hpp"

namespace course::lesson01 {

/// What a Bench times: the demo's options, and the speed tests' defaults.
struct BenchConfig {
  std::size_t n = std::size_t{1} << 26;  ///< elements (points, or table entries)
  int degree = kMaxDegree;               ///< polynomial degree
  int sets = 32;                         ///< coefficient sets of poly_constant_divergent
  int block = kDefaultBlock;             ///< threads per block
};

/// The buffers for timing the ladder at one configuration, and each timed rung's Trial over
/// them. The Trials refer to this object: keep it alive (and in place) while they are measured.
class Bench {
 public:
  /// Allocates the points, the output and the expected output for @p config.
  /// @throws std::invalid_argument for a configuration the launchers refuse, or n = 0.
  explicit Bench(BenchConfig config);
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  /// The Trial that times @p variant (Table, PolyGlobal, PolyConstant or PolyConstantDivergent;
  /// Readback is not timed: std::invalid_argument).
  [[nodiscard]] Trial trial(Variant variant);

  /// Bytes the table writes: 4 per element (it reads nothing).
  [[nodiscard]] double table_bytes() const { return 4.0 * static_cast<double>(config_.n); }
  /// Floating-point operations of the table, for the roofline: a multiply (i * step), a square
  /// root and a sine per element, each counted as one operation (3 n).
  [[nodiscard]] double table_flops() const { return 3.0 * static_cast<double>(config_.n); }
  /// Floating-point operations of a polynomial rung: one multiply and one add per coefficient
  /// after the first, for every point (2 * degree * n).
  [[nodiscard]] double poly_flops() const {
    return 2.0 * config_.degree * static_cast<double>(config_.n);
  }
  /// Bytes a polynomial rung must move between DRAM and the SMs, for the roofline: each point
  /// read and each result written once (8 per point), and the coefficients read once (@p sets
  /// sets of degree + 1 floats: 1 for poly_global and poly_constant).
  [[nodiscard]] double poly_bytes(int sets) const {
    return 8.0 * static_cast<double>(config_.n) + 4.0 * sets * (config_.degree + 1);
  }
  /// The configuration.
  [[nodiscard]] const BenchConfig& config() const { return config_; }

 private:
  void load_points(std::uint64_t seed, int sets, bool to_constant, cudaStream_t stream);

  BenchConfig config_;
  float step_ = 0.0f;  ///< the table's step for the inputs just loaded
  DeviceBuffer<float> x_;
  DeviceBuffer<float> y_;
  DeviceBuffer<float> expected_;
  DeviceBuffer<float> coefficients_;  ///< the loaded coefficients in global memory
  std::vector<float> host_coefficients_;
};

}  // namespace course::lesson01
