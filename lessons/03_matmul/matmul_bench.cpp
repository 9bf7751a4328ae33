// Lesson 03's timed work (matmul_bench.hpp): fresh inputs before every launch, cuBLAS's product
// of them as the expected C, and a tolerance for the difference that rounding alone can make.
#include "matmul_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "course/data.hpp"
#include "course/error.hpp"
#include "course/product_check.hpp"

namespace course::lesson03::bench {

namespace {

constexpr double kUnitRoundoff = 0x1p-24;  // u: float rounds to within u |x|

std::size_t count(int rows, int cols) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}

DeviceBuffer<float> upload(const std::vector<float>& host) {
  return DeviceBuffer<float>{std::span<const float>(host)};
}

}  // namespace

// The kernel's C and cuBLAS's are both float sums of the K terms t_p = A[i][p] B[p][j], added in
// different orders, so they differ by rounding alone. With |A|, |B| < s, every |t_p| < s^2.
// Adding term p rounds the partial sum S_p with a relative error of at most u = 2^-24, random
// in sign, so the error of one result is sum_p d_p S_p, with standard deviation at most
// u / sqrt(3) * sqrt(sum_p S_p^2):
//  - terms of random sign (uniform inputs in [-s, s)): E[S_p^2] = p s^4 / 9, which gives at most
//    u s^2 K / sqrt(54) = 0.14 u s^2 K per result, 0.19 u s^2 K for the difference of two;
//  - terms of one sign (the matmul lab report's matrices, |C| about K times the mean term): S_p
//    grows like p / K |C|, which gives at most u |C| sqrt(K) / 3 per result, 0.47 u sqrt(K) |C|
//    for two.
// atol = 4 u s^2 K is 21 such standard deviations and rtol = 4 u sqrt(K) 8.5: no correct kernel
// fails, on any of the 16.7 M elements of a 4096^3 product, in any timed launch. At K = 4096 and
// s = 1, atol = 9.8e-4 and rtol = 1.5e-5, while what a cheat produces is far off: NaN (a
// poisoned C), the previous launch's product (off by about sqrt(2 K) s^2 / 3 = 30), a skipped
// tile of K (about 1). Up to K = 16 the proven bound of both results, 2 gamma_K K s^2, is
// allowed instead, where it is the larger: with few terms, rounding is not yet random.
Tolerance product_tolerance(int k, double scale) {
  const double s2 = scale * scale;
  double atol = 4.0 * kUnitRoundoff * s2 * k;
  if (k <= 16)
    atol = std::max(atol, 2.0 * product::dot_error_bound(k) * k * s2);
  return Tolerance{atol, 4.0 * kUnitRoundoff * std::sqrt(static_cast<double>(k))};
}

Bench::Bench(int m, int n, int k, Input input)
    : m_(m),
      n_(n),
      k_(k),
      input_(input),
      a_(count(m, k)),
      b_(count(k, n)),
      c_(count(m, n)),
      expected_(count(m, n)) {
  require(m > 0 && n > 0 && k > 0, "lesson03::bench::Bench: m, n and k must be positive");
  double scale = 1.0;  // uniform inputs lie in [-1, 1)
  if (input == Input::LabReport) {
    auto a = lab_report_matrix_a(m, k);
    const auto b = lab_report_matrix_b(k, n);
    auto largest = [](const std::vector<float>& x) {
      double most = 0.0;
      for (const float v : x)
        most = std::max(most, std::fabs(static_cast<double>(v)));
      return most;
    };
    scale = std::max(largest(a), largest(b));
    lab_report_a_ = upload(a);
    for (float& v : a)
      v = -v;
    lab_report_minus_a_ = upload(a);
    lab_report_b_ = upload(b);
  }
  tolerance_ = product_tolerance(k, scale);
}

Trial Bench::base(std::string rung) {
  Trial trial;
  trial.rung = std::move(rung);
  trial.load = [this](std::uint64_t seed, cudaStream_t stream) {
    if (input_ == Input::Uniform) {
      fill_uniform_floats(a_.data(), a_.size(), derive_seed(seed, 0), -1.0f, 1.0f, stream);
      fill_uniform_floats(b_.data(), b_.size(), derive_seed(seed, 1), -1.0f, 1.0f, stream);
    } else {
      // The matmul lab report's matrices are fixed; negating A on odd seeds (exactly, in float)
      // negates C, so that no launch's expected C is the one before it.
      const auto& a = seed % 2 == 0 ? lab_report_a_ : lab_report_minus_a_;
      CUDA_CHECK(
          cudaMemcpyAsync(a_.data(), a.data(), a_.bytes(), cudaMemcpyDeviceToDevice, stream));
      CUDA_CHECK(cudaMemcpyAsync(b_.data(), lab_report_b_.data(), b_.bytes(),
                                 cudaMemcpyDeviceToDevice, stream));
    }
  };
  trial.reference = [this](cudaStream_t stream) {
    product::multiply(a_.data(), b_.data(), expected_.data(), m_, n_, k_, product::Second::B,
                      stream);
  };
  trial.outputs = {
      {"C", c_.data(), c_.bytes(), expected_.data(), {OutputCheck::Kind::Float32, tolerance_}}};
  // A and B are const: after each launch they must hold what load() wrote.
  trial.inputs = {{"A", a_.data(), a_.bytes()}, {"B", b_.data(), b_.bytes()}};
  return trial;
}

Trial Bench::trial(Variant variant) {
  Trial trial = base(std::string(name_of(variant)));
  trial.launch = [this, variant](cudaStream_t stream) {
    multiply(variant, a_.data(), b_.data(), c_.data(), m_, n_, k_, stream);
  };
  return trial;
}

Trial Bench::trial_tiled(int tile) {
  Trial trial = base("tiled<" + std::to_string(tile) + ">");
  trial.launch = [this, tile](cudaStream_t stream) {
    multiply_tiled(tile, a_.data(), b_.data(), c_.data(), m_, n_, k_, stream);
  };
  return trial;
}

}  // namespace course::lesson03::bench
