// Lesson 13's timed work (attention_bench.hpp): fresh BF16 inputs before every launch, the given
// unfused rung's FP32 output of the same values as the expected O, and a tolerance for the
// difference that rounding alone can make.
#include "attention_bench.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "attention_rungs.cuh"
#include "course/data.hpp"
#include "course/error.hpp"

namespace course::lesson13::bench {

namespace {

constexpr double kUnitRoundoff = 0x1p-24;  // u: FP32 rounds to nearest within u |x|

std::size_t count_of(Shape shape) {
  return static_cast<std::size_t>(shape.bh) * shape.n * shape.d;
}

}  // namespace

// O_i = sum_j P_ij V_j with P_ij = exp(s_ij - m_i) / l_i is a convex combination of the rows of V,
// so every error below is a fraction of max|V|. Three roundings move it:
//  - The scores. s_ij sums d products of BF16 values, each exact in FP32, so an FP32 sum errs by
//    at most d u M_i (M_i = max_j sum_c |q_ic k_jc| / sqrt(d), the `magnitude`; 2u per step for a
//    tensor core's truncating sum). A softmax turns errors e_j of the scores into
//    dP_j = P_j (e_j - sum_k P_k e_k), so |dO| <= 2 max|e| max|V| <= 4 d u M max|V|.
//  - P in BF16 (the tensor-core rungs, before P V): each P_ij gains a relative error of at most
//    2^-8, so |dO| <= 2^-8 max|V|, and twice that when l is summed from the rounded P too. The
//    CUDA-core rungs keep P in FP32, where this term is u instead of 2^-8.
//  - The sums over the keys: O's n products and l's n terms in FP32, (n u + n u) max|V|, again
//    doubled for truncation; exp and the rescaling by exp(m_old - m_new) add a few u each.
// A rung and the unfused reference both err so (the reference without the BF16 P), so the FP32
// terms count twice: atol = max|V| (2^-7 + (8 d M + 6 n) u), rtol = 0. For the timed inputs
// (uniform in [-1, 1), M <= sqrt(d)) at 32 x 4096 x 128 that is 0.0100. The bounds are worst
// cases; simulated on the tests' inputs (FP32 scores, BF16 P, 64-key tiles) the largest error of
// a correct rung is a fifth of atol, while each classic mistake -- no max subtraction, no
// rescaling of the accumulator, a causal mask one key off, the last partial tile of keys
// dropped -- misses by 5 to 500 atol on some row, or leaves a NaN. A cheat in a timed launch (a
// stale O of other inputs, a NaN) is off by about |O| itself, many times atol at every row.
Tolerance output_tolerance(int n, int d, double max_abs_v, double magnitude) {
  const double fp32 = (8.0 * d * magnitude + 6.0 * n) * kUnitRoundoff;
  return Tolerance{max_abs_v * (0x1p-7 + fp32), 0.0};
}

Bench::Bench(Shape shape)
    : shape_(shape),
      values_(count_of(shape)),
      q_(count_of(shape)),
      k_(count_of(shape)),
      v_(count_of(shape)),
      o_(count_of(shape)),
      expected_(count_of(shape)) {
  require(shape.bh >= 1 && shape.n >= 1 && (shape.d == 64 || shape.d == 128) &&
              static_cast<long long>(shape.bh) * shape.n * shape.d <= kMaxElements,
          "lesson13::bench::Bench: the shape is outside attention()'s limits");
  // Uniform inputs lie in [-1, 1), which BF16 rounding may turn into [-1, 1]: |V| <= 1, and a
  // score's terms sum to at most d in magnitude, M <= d / sqrt(d).
  tolerance_ = output_tolerance(shape.n, shape.d, 1.0, std::sqrt(static_cast<double>(shape.d)));
}

double Bench::bytes(Variant variant) const {
  const double n = shape_.n;
  const double io = static_cast<double>(count_of(shape_)) * (3 * sizeof(bf16) + sizeof(float));
  const double scores = shape_.bh * (shape_.causal ? n * (n + 1) / 2 : n * n);
  if (variant == Variant::Unfused)
    return io + 6.0 * sizeof(float) * scores;
  if (variant == Variant::OnlineSoftmax)
    return io + 3.0 * sizeof(float) * scores;
  return io;
}

Trial Bench::trial(Variant variant) {
  Trial trial;
  trial.rung = std::string(name_of(variant));
  trial.load = [this](std::uint64_t seed, cudaStream_t stream) {
    DeviceBuffer<bf16>* inputs[3] = {&q_, &k_, &v_};
    for (int i = 0; i < 3; ++i) {
      fill_uniform_floats(values_.data(), values_.size(), derive_seed(seed, i), -1.0f, 1.0f,
                          stream);
      round_to_bf16(values_.data(), inputs[i]->data(), values_.size(), stream);
    }
  };
  // The given rung, FP32 throughout, is the trusted reference: checked itself against the
  // double-precision CPU reference by the tests (unfused.correct).
  trial.reference = [this](cudaStream_t stream) {
    run_unfused(q_.data(), k_.data(), v_.data(), expected_.data(), shape_.bh, shape_.n, shape_.d,
                shape_.causal, stream);
  };
  trial.launch = [this, variant](cudaStream_t stream) {
    attention(variant, q_.data(), k_.data(), v_.data(), o_.data(), shape_, stream);
  };
  trial.outputs = {
      {"O", o_.data(), o_.bytes(), expected_.data(), {OutputCheck::Kind::Float32, tolerance_}}};
  // Q, K and V are const in the interface: after every launch they must hold what load() wrote.
  trial.inputs = {
      {"Q", q_.data(), q_.bytes()}, {"K", k_.data(), k_.bytes()}, {"V", v_.data(), v_.bytes()}};
  return trial;
}

}  // namespace course::lesson13::bench
