/// @file
/// @brief Lesson 12's timed work: how the speed tests and the demo time a rung, in one place.
///
/// A Bench holds the device buffers of one shape; trial() describes one rung's timed launch to
/// course::measure() (course/bench.hpp): fresh BF16 inputs before every launch, cuBLAS's FP32
/// product of those same values as the expected C, and every timed C compared with it on the
/// GPU. The tests and the demo both time through it, so the share the demo prints is the share
/// that is graded.
#pragma once

#include <string>

#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "tensor_cores.cuh"

namespace course::lesson12::bench {

/// The inputs of the timed launches, made on the GPU from a fresh seed before every launch.
enum class Input {
  Uniform,  ///< A and B uniform in [-1, 1), rounded to BF16
  /// A and B integers in [-4, 4]: every product and every partial sum is an integer below 2^24,
  /// exact in FP32 in any order, so every correct kernel gives cuBLAS's C bit for bit, and an
  /// error in a fragment's layout cannot hide in the rounding (k at most 2^20).
  SmallIntegers,
};

/// How far an FP32 product C = A·B of depth @p k from BF16 inputs, computed by one kernel on the
/// tensor cores, may lie from cuBLAS's FP32 product of the same values, when every element of A
/// and B has a magnitude of at most @p scale. The derivation is in tensor_cores_bench.cu.
[[nodiscard]] Tolerance product_tolerance(int k, double scale);

/// The buffers of one shape M x N x K and the trials that time the rungs on them.
class Bench {
 public:
  /// Allocates A, B (BF16, and their float copies for the reference), C and the expected C for
  /// @p m x @p n x @p k (within multiply()'s limits, all positive).
  Bench(int m, int n, int k, Input input);
  Bench(const Bench&) = delete;  // the trials point into this object
  Bench& operator=(const Bench&) = delete;

  /// The timed launch of @p variant: multiply(variant, ...), which must leave A and B as loaded.
  [[nodiscard]] Trial trial(Variant variant);
  /// 2 M N K, the floating-point operations of one product.
  [[nodiscard]] double flops() const { return 2.0 * m_ * n_ * static_cast<double>(k_); }
  /// 2 (M K + K N) + 4 M N, the bytes one product must move between DRAM and the SMs: A and B
  /// read once in BF16, C written once in FP32. What the L2 serves again is not counted.
  [[nodiscard]] double bytes() const {
    return 2.0 * (static_cast<double>(m_) * k_ + static_cast<double>(k_) * n_) +
           4.0 * static_cast<double>(m_) * n_;
  }

 private:
  int m_, n_, k_;
  Input input_;
  DeviceBuffer<bf16> a_, b_;               // what the rung multiplies: A row-major, B column-major
  DeviceBuffer<float> a_float_, b_float_;  // the same values in float, for cuBLAS's reference
  DeviceBuffer<float> c_, expected_;
  Tolerance tolerance_;
};

}  // namespace course::lesson12::bench
