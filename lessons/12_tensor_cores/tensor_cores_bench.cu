// Lesson 12's timed work (tensor_cores_bench.hpp): fresh BF16 inputs before every launch,
// cuBLAS's FP32 product of the same values as the expected C, and a tolerance for the difference
// that the tensor cores' rounding alone can make.
#include "tensor_cores_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "course/data.hpp"
#include "course/error.hpp"
#include "course/product_check.hpp"

namespace course::lesson12::bench {

namespace {

constexpr double kUnitRoundoff = 0x1p-24;  // u: FP32 rounds to nearest within u |x|

std::size_t count(int rows, int cols) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}

}  // namespace

// The kernel's C and cuBLAS's are FP32 sums of the same K terms t_p = A[i][p] B[p][j], each exact
// in FP32 (two 8-bit significands make 16 bits), added in different orders; with |A|, |B| <= s,
// every |t_p| <= s^2. Lesson 03 (matmul_bench.cpp) bounds the difference of two sums that round
// to nearest, u = 2^-24 per addition, random in sign: 0.14 u s^2 K per result for uniform inputs,
// which its atol = 4 u s^2 K and rtol = 4 u sqrt(K) cover many times over. cuBLAS (pedantic FP32)
// still sums so; the tensor cores do not. Each mma adds a block of b >= 8 products to the FP32
// accumulator in one step: the operands are aligned to the largest exponent, the bits shifted
// out are dropped, and the sum is normalised by truncation, towards zero (Fasi et al., "Numerical
// behavior of NVIDIA tensor cores", 2021; Khattak and Mikaitis, "Accurate models of NVIDIA
// tensor cores", 2025). Two things change:
//  - a dropped bit is worth up to 2u of the accumulator, not u: the random part of the error
//    doubles, to 0.28 u s^2 K per result;
//  - truncation is biased: each of the K / b normalisations loses 0.7 u |S| on average (S the
//    partial sum), a total that follows C (its mean is 0.36 u (K / b) |C|, at most 0.05 u K |C|)
//    and spreads around that by 0.07 u s^2 K sqrt(K) / b, 0.8 u s^2 K at K = 8192 for b = 8.
// Hence twice lesson 03's: atol = 8 u s^2 K and rtol = 8 u sqrt(K). Up to K = 8192 the rtol takes
// the bias's mean twice over, and the atol is 9 standard deviations of the rest (13 at K = 4096):
// no correct kernel fails, on any of the 67 M elements of an 8192^3 product, in any timed launch.
// A cheat is far off: NaN (a poisoned C), the previous launch's product (about sqrt(2 K) s^2 / 3),
// a skipped block of K (about s^2). Beyond K = 8192 (long thin products) the bias outgrows both:
// atol then grows like K sqrt(K) and rtol like K, as the bias does. Measured on an H100 (wmma,
// mma_sync and wgmma alike): the bias's mean is 0.017 u K |C| (as for b = 16), and the worst
// element of C uses a quarter of this tolerance or less, at every K from 4096 to 2^20. Up to K =
// 16, where rounding is not yet random, the proven bound is allowed instead where it is larger:
// lesson 03's 2 gamma_K K s^2 for two sums that round, doubled for a sum that truncates (2u for u).
Tolerance product_tolerance(int k, double scale) {
  const double s2 = scale * scale;
  const double kd = k;
  double atol = 8.0 * kUnitRoundoff * s2 * kd * std::sqrt(std::max(1.0, kd / 8192.0));
  if (k <= 16)
    atol = std::max(atol, 4.0 * product::dot_error_bound(k) * kd * s2);
  return Tolerance{atol, 8.0 * kUnitRoundoff * std::max(std::sqrt(kd), kd / 128.0)};
}

Bench::Bench(int m, int n, int k, Input input)
    : m_(m),
      n_(n),
      k_(k),
      input_(input),
      a_(count(m, k)),
      b_(count(k, n)),
      a_float_(count(m, k)),
      b_float_(count(k, n)),
      c_(count(m, n)),
      expected_(count(m, n)) {
  require(m > 0 && n > 0 && k > 0, "lesson12::bench::Bench: m, n and k must be positive");
  // Integers of magnitude 4 at most: |C| <= 16 K, exact in FP32 while 16 K <= 2^24.
  require(input != Input::SmallIntegers || k <= (1 << 20),
          "lesson12::bench::Bench: small-integer inputs are exact only up to k = 2^20");
  // Uniform inputs lie in [-1, 1), which BF16 rounding may turn into [-1, 1].
  tolerance_ = input == Input::SmallIntegers ? Tolerance{0.0, 0.0} : product_tolerance(k, 1.0);
}

Trial Bench::trial(Variant variant) {
  Trial trial;
  trial.rung = std::string(name_of(variant));
  trial.load = [this](std::uint64_t seed, cudaStream_t stream) {
    const bool integers = input_ == Input::SmallIntegers;
    auto make = [&](DeviceBuffer<float>& values, DeviceBuffer<bf16>& out, std::uint64_t s) {
      if (integers)
        fill_uniform_ints(reinterpret_cast<std::int32_t*>(values.data()), values.size(), s, -4, 4,
                          stream);
      else
        fill_uniform_floats(values.data(), values.size(), s, -1.0f, 1.0f, stream);
      // The float copy keeps the rounded values: cuBLAS's reference multiplies what the rung does.
      round_to_bf16(values.data(), out.data(), values.size(), stream, integers);
    };
    make(a_float_, a_, derive_seed(seed, 0));
    make(b_float_, b_, derive_seed(seed, 1));
  };
  trial.reference = [this](cudaStream_t stream) {
    product::multiply(a_float_.data(), b_float_.data(), expected_.data(), m_, n_, k_,
                      product::Second::BColumnMajor, stream);
  };
  trial.launch = [this, variant](cudaStream_t stream) {
    multiply(variant, a_.data(), b_.data(), c_.data(), m_, n_, k_, stream);
  };
  // Float32 with a zero tolerance for the integers: exact, yet 0 and -0 both pass.
  trial.outputs = {
      {"C", c_.data(), c_.bytes(), expected_.data(), {OutputCheck::Kind::Float32, tolerance_}}};
  // A and B are const in the interface: after every launch they must hold what load() wrote.
  trial.inputs = {{"A", a_.data(), a_.bytes()}, {"B", b_.data(), b_.bytes()}};
  return trial;
}

}  // namespace course::lesson12::bench
