// Lesson 04's timed work (aat_bench.hpp): a fresh A before every launch, cuBLAS's A·Aᵀ of it as
// the expected C, and a tolerance for the difference that rounding alone can make.
#include "aat_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "course/data.hpp"
#include "course/error.hpp"
#include "course/product_check.hpp"

namespace course::lesson04::bench {

namespace {

constexpr double kUnitRoundoff = 0x1p-24;  // u: float rounds to within u |x|

std::size_t count(int rows, int cols) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}

}  // namespace

// The kernel's C[i][j] and cuBLAS's are both float sums of the k terms A[i][p] A[j][p], added in
// different orders, so they differ by rounding alone. Adding term p rounds the partial sum S_p
// with a relative error of at most u = 2^-24, random in sign, so the error of one result is
// sum_p d_p S_p, with standard deviation at most u / sqrt(3) * sqrt(sum_p S_p^2). For A uniform
// in [-1, 1):
//  - off the diagonal the terms have random signs, E[S_p^2] = p / 9, which gives at most
//    u k / sqrt(54) = 0.14 u k per result, 0.19 u k for the difference of two;
//  - on the diagonal every term A[i][p]^2 is positive and C[i][i] is about k / 3: S_p grows like
//    p / k C[i][i], which gives at most u C[i][i] sqrt(k) / 3 per result, 0.47 u sqrt(k) C[i][i]
//    for two.
// atol = 4 u k is 21 such standard deviations and rtol = 4 u sqrt(k) 8.5: no correct kernel
// fails, on any of the 16.7 M elements of C at n = k = 4096, in any timed launch. At k = 4096,
// atol = 9.8e-4 and rtol = 1.5e-5 (2e-2 on the diagonal, about 1365), while what a cheat produces
// is far off: NaN (a poisoned C), the previous launch's C (off by about sqrt(2 k) / 3 = 30, about
// 27 on the diagonal), a skipped tile of k (about 1). Up to k = 16 the proven bound of both
// results, 2 gamma_k k, is allowed instead, where it is the larger: with few terms, rounding is
// not yet random.
Tolerance product_tolerance(int k) {
  double atol = 4.0 * kUnitRoundoff * k;
  if (k <= 16)
    atol = std::max(atol, 2.0 * product::dot_error_bound(k) * k);
  return Tolerance{atol, 4.0 * kUnitRoundoff * std::sqrt(static_cast<double>(k))};
}

Bench::Bench(int n, int k)
    : n_(n), k_(k), a_(count(n, k)), c_(count(n, n)), expected_(count(n, n)) {
  require(n > 0 && k > 0, "lesson04::bench::Bench: n and k must be positive");
}

Trial Bench::trial(Variant variant) {
  Trial trial;
  trial.rung = std::string(name_of(variant));
  trial.load = [this](std::uint64_t seed, cudaStream_t stream) {
    fill_uniform_floats(a_.data(), a_.size(), seed, -1.0f, 1.0f, stream);
  };
  trial.reference = [this](cudaStream_t stream) {
    product::multiply(a_.data(), nullptr, expected_.data(), n_, n_, k_,
                      product::Second::ATransposed, stream);
  };
  trial.launch = [this, variant](cudaStream_t stream) {
    aat(variant, a_.data(), c_.data(), n_, k_, stream);
  };
  // All n x n elements: the triangle a symmetric rung computes and the one it mirrors.
  const OutputCheck check{OutputCheck::Kind::Float32, product_tolerance(k_)};
  trial.outputs = {{"C", c_.data(), c_.bytes(), expected_.data(), check}};
  // A is const: after each launch it must hold what load() wrote.
  trial.inputs = {{"A", a_.data(), a_.bytes()}};
  return trial;
}

}  // namespace course::lesson04::bench
