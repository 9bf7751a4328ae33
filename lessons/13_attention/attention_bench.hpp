/// @file
/// @brief Lesson 13's timed work: how the speed tests and the demo time a rung, in one place.
///
/// A Bench holds the device buffers of one shape; trial() describes one rung's timed launch to
/// course::measure() (course/bench.hpp): fresh BF16 inputs before every launch, the given unfused
/// rung's FP32 output for those same values as the expected O, and every timed O compared with it
/// on the GPU. The tests and the demo both time through it, so the share the demo prints is the
/// share that is graded.
#pragma once

#include "attention.cuh"
#include "course/bench.hpp"
#include "course/buffer.hpp"

namespace course::lesson13::bench {

/// How far a rung's O may lie from the exact attention of the same BF16 inputs (or from the
/// unfused rung's FP32 O: the bound counts the FP32 rounding of both), for rows of @p n keys of
/// dimension @p d, values of magnitude at most @p max_abs_v, and scores whose terms sum to at
/// most @p magnitude in magnitude (max_j sum_c |q_c k_jc| / sqrt(d): at most sqrt(d) for inputs
/// in [-1, 1]). atol = max|V| (2^-7 + (8 d magnitude + 6 n) 2^-24), rtol = 0: the derivation is
/// in attention_bench.cu and the README ("How exact is exact enough?").
[[nodiscard]] Tolerance output_tolerance(int n, int d, double max_abs_v, double magnitude);

/// The buffers of one shape and the trials that time the rungs on them.
class Bench {
 public:
  /// Allocates Q, K, V (BF16), O and the expected O for @p shape (within attention()'s limits).
  explicit Bench(Shape shape);
  Bench(const Bench&) = delete;  // the trials point into this object
  Bench& operator=(const Bench&) = delete;

  /// The timed launch of @p variant: attention(variant, ...) on uniform inputs in [-1, 1), which
  /// must leave Q, K and V as loaded.
  [[nodiscard]] Trial trial(Variant variant);
  /// The shape timed.
  [[nodiscard]] Shape shape() const noexcept { return shape_; }
  /// 4 bh n^2 d, half of it when causal: the FLOP of one call (attention_flops()).
  [[nodiscard]] double flops() const noexcept { return attention_flops(shape_); }
  /// The bytes one call of @p variant moves between DRAM and the SMs: Q, K and V read once in
  /// BF16 and O written once in FP32 by every rung; and for the two unfused rungs the scores'
  /// traffic, 4 bytes per score: S written once and read three times, P written and read once
  /// (unfused: 6 passes), or S written once and read twice (online_softmax: 3 passes). Causal
  /// counts the scores j <= i alone.
  [[nodiscard]] double bytes(Variant variant) const;

 private:
  Shape shape_;
  DeviceBuffer<float> values_;  // one input's values as floats, before they are rounded to BF16
  DeviceBuffer<bf16> q_, k_, v_;
  DeviceBuffer<float> o_, expected_;
  Tolerance tolerance_;
};

}  // namespace course::lesson13::bench
