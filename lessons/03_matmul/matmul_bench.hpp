/// @file
/// @brief Lesson 03's timed work: how the speed tests and the demo time a rung, in one place.
///
/// A Bench holds the device buffers of one shape; trial() describes one rung's timed launch to
/// course::measure() (course/bench.hpp): fresh inputs before every launch, cuBLAS's product of
/// those inputs as the expected C, and every timed C compared with it on the GPU. The tests and
/// the demo both time through it, so the share the demo prints is the share that is graded.
#pragma once

#include <string>

#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "matmul.cuh"

namespace course::lesson03::bench {

/// The inputs of the timed launches.
enum class Input {
  Uniform,    ///< A and B uniform in [-1, 1), from a fresh seed before every launch
  LabReport,  ///< the matmul lab report's matrices (README), negated or not by each launch's seed
};

/// How far a float product C = A·B of depth @p k, computed by one kernel, may lie from cuBLAS's
/// product of the same inputs, when every element of A and B has a magnitude below @p scale.
/// The derivation is in matmul_bench.cu.
[[nodiscard]] Tolerance product_tolerance(int k, double scale);

/// The buffers of one shape M x N x K and the trials that time the rungs on them.
class Bench {
 public:
  /// Allocates A, B, C and the expected C for @p m x @p n x @p k (within multiply()'s limits,
  /// all positive).
  Bench(int m, int n, int k, Input input);
  Bench(const Bench&) = delete;  // the trials point into this object
  Bench& operator=(const Bench&) = delete;

  /// The timed launch of @p variant: multiply(variant, ...).
  [[nodiscard]] Trial trial(Variant variant);
  /// The timed launch of the tiled rung at tile edge @p tile: multiply_tiled(tile, ...).
  [[nodiscard]] Trial trial_tiled(int tile);
  /// 2 M N K, the floating-point operations of one product.
  [[nodiscard]] double flops() const { return 2.0 * m_ * n_ * static_cast<double>(k_); }
  /// 4 (M K + K N + M N), the bytes one product must move between DRAM and the SMs: A and B
  /// read once, C written once. What the L2 serves again (tiles reread by other blocks) is the
  /// cache's work, not the algorithm's, and is not counted.
  [[nodiscard]] double bytes() const {
    return 4.0 * (static_cast<double>(m_) * k_ + static_cast<double>(k_) * n_ +
                  static_cast<double>(m_) * n_);
  }

 private:
  // A trial with everything but the launch: the inputs, the reference and the output.
  [[nodiscard]] Trial base(std::string rung);

  int m_, n_, k_;
  Input input_;
  DeviceBuffer<float> a_, b_, c_, expected_;
  DeviceBuffer<float> lab_report_a_, lab_report_minus_a_, lab_report_b_;  // Input::LabReport only
  Tolerance tolerance_;
};

}  // namespace course::lesson03::bench
