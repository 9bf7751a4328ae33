// Lesson 01's tests: each rung against the double-precision reference over sizes, degrees and
// coefficient sets; speed as ratios measured in this run; the entry points' refusal of bad
// arguments. Names, thresholds and points: lessons/01_constant_memory/README.md.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "constant_memory.cuh"
#include "constant_memory_cpu.hpp"
#include "course/testing.hpp"

namespace {

using namespace course;
using namespace course::lesson01;

// Around a warp and a block (of points: 4 per thread), a prime; the demo's default size is
// checked once per rung (kLarge), since its double-precision reference takes seconds.
std::vector<std::size_t> sizes() { return {1, 31, 32, 33, 255, 256, 257, 1023, 1025, 1000003}; }
constexpr std::size_t kLarge = std::size_t{1} << 26;

// For x < 1024: sqrtf is within 1.9e-6 (half an ulp of 32) and __sinf within about 4e-6 of the
// true sine for arguments below 32, so the table is within 6e-6 of sin(sqrt(x)) in double.
constexpr Tolerance kTableTolerance{1e-5, 1e-5};

// Horner's rule in float is within 2 * degree * 2^-24 * sum|c_k| of the exact value for |x| <= 1:
// 7.5e-6 * sum|c_k| at degree 63. The tests allow 1e-5 * sum|c_k|, plus 1e-5 relative.
Tolerance poly_tolerance(std::span<const float> coefficients, int degree, int sets) {
  return {1e-5 * coefficient_bound(coefficients, degree, sets), 1e-5};
}

std::string describe_input(const char* rung, std::size_t n, int degree, int sets, int block,
                           std::uint64_t seed) {
  return std::string(rung) + " n " + std::to_string(n) + ", degree " + std::to_string(degree) +
         ", sets " + std::to_string(sets) + ", block " + std::to_string(block) + ", seed " +
         std::to_string(seed);
}

enum class Poly { Global, Constant, Divergent };

// Evaluates random polynomials at random points with @p how and compares with the reference.
void check_poly(Poly how, int degree, int sets, std::size_t n, int block, std::uint64_t seed) {
  const auto x = uniform_floats(n, seed, -1.0f, 1.0f);
  const auto coefficients =
      uniform_floats(static_cast<std::size_t>(sets) * (degree + 1), derive_seed(seed, 1), -1.0f, 1.0f);
  DeviceBuffer<float> d_x{std::span<const float>(x)};
  DeviceBuffer<float> d_y(n);
  d_y.poison();
  const char* rung = "poly_global";
  if (how == Poly::Global) {
    DeviceBuffer<float> d_c{std::span<const float>(coefficients)};
    poly_global(d_c.data(), degree, d_x.data(), d_y.data(), n, {}, block);
    CUDA_CHECK(cudaDeviceSynchronize());
  } else {
    upload_coefficients(coefficients.data(), degree, sets);
    if (how == Poly::Constant) {
      rung = "poly_constant";
      poly_constant(degree, d_x.data(), d_y.data(), n, {}, block);
    } else {
      rung = "poly_constant_divergent";
      poly_constant_divergent(degree, sets, d_x.data(), d_y.data(), n, {}, block);
    }
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto got = d_y.to_host();
  const auto expected = poly_reference(coefficients, degree, sets, x);
  COURSE_CHECK_MATCH(compare_close(got, expected, poly_tolerance(coefficients, degree, sets), {n}),
                     describe_input(rung, n, degree, sets, block, seed));
}

void check_poly_rung(Poly how) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  const std::vector<int> set_counts = how == Poly::Divergent ? std::vector<int>{1, 2, 32, 64}
                                                             : std::vector<int>{1};
  for (const int sets : set_counts)
    for (const int degree : {0, 1, 7, 63}) {
      if (sets * (degree + 1) > kMaxCoefficients) continue;
      for (const std::size_t n : sizes()) check_poly(how, degree, sets, n, kDefaultBlock, derive_seed(base, stream++));
    }
  for (const int block : {32, 96, 1024})  // other block sizes, one past a block's points
    check_poly(how, 7, how == Poly::Divergent ? 3 : 1, std::size_t(block) * 4 * 5 + 1, block, derive_seed(base, stream++));
  if (!quick_mode()) check_poly(how, kMaxDegree, how == Poly::Divergent ? 32 : 1, kLarge, kDefaultBlock, derive_seed(base, stream++));
}

constexpr std::size_t kSpeedElements = kLarge;
constexpr int kSpeedDegree = 63;

// poly_constant against poly_global and the FP32 ceiling, at the demo's default size.
SpeedSample measure_poly_constant() {
  const std::size_t n = kSpeedElements;
  const std::uint64_t seed = derive_seed(base_seed(), 2000);
  const auto x = uniform_floats(n, seed);
  const auto coefficients = uniform_floats(kSpeedDegree + 1, derive_seed(seed, 1));
  DeviceBuffer<float> d_x{std::span<const float>(x)}, d_c{std::span<const float>(coefficients)};
  DeviceBuffer<float> d_y(n);
  d_y.poison();
  upload_coefficients(coefficients.data(), kSpeedDegree);
  poly_constant(kSpeedDegree, d_x.data(), d_y.data(), n);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto expected = poly_reference(coefficients, kSpeedDegree, 1, x);
  REQUIRE_MESSAGE(compare_close(d_y.to_host(), expected, poly_tolerance(coefficients, kSpeedDegree, 1), {n}).ok,
                  "poly_constant is wrong at the timed size; fix correctness first");
  auto time = [](auto&& launch) { return time_on_gpu(launch).median_ms; };
  SpeedSample sample;
  sample.time_ms = time([&](cudaStream_t s) { poly_constant(kSpeedDegree, d_x.data(), d_y.data(), n, s); });
  sample.speedup = time([&](cudaStream_t s) {
                     poly_global(d_c.data(), kSpeedDegree, d_x.data(), d_y.data(), n, s);
                   }) / sample.time_ms;
  sample.baseline = "poly_global";
  const double flops = 2.0 * kSpeedDegree * static_cast<double>(n);
  sample.share = gflop_per_s(flops, sample.time_ms) / ceilings::cublas_sgemm(4096, 4096, 4096).value;
  sample.ceiling = "cuBLAS SGEMM";
  return sample;
}

}  // namespace

TEST_CASE("table.correct") {
  auto table_sizes = sizes();
  if (!quick_mode()) table_sizes.push_back(kLarge);
  for (const std::size_t n : table_sizes) {
    for (const float step : {0.0f, 1000.0f / static_cast<float>(n), 0.37f}) {
      if (static_cast<double>(n - 1) * step >= kMaxTableArgument) continue;
      for (const int block : {kDefaultBlock, 32, 1024}) {
        if (n == kLarge && (block != kDefaultBlock || step != 1000.0f / static_cast<float>(n))) continue;
        DeviceBuffer<float> d_y(n);
        d_y.poison();
        sin_sqrt_table(d_y.data(), n, step, {}, block);
        CUDA_CHECK(cudaDeviceSynchronize());
        COURSE_CHECK_MATCH(compare_close(d_y.to_host(), sin_sqrt_reference(n, step), kTableTolerance, {n}),
                           "table n " + std::to_string(n) + ", step " + std::to_string(step) +
                               ", block " + std::to_string(block));
      }
    }
  }
}

TEST_CASE("table.share") {
  COURSE_CHECK_SPEED("table.share", Graded::Share, [] {
    const std::size_t n = kSpeedElements;
    const float step = 1000.0f / static_cast<float>(n);
    DeviceBuffer<float> d_y(n);
    SpeedSample sample;
    sample.time_ms = time_on_gpu([&](cudaStream_t s) { sin_sqrt_table(d_y.data(), n, step, s); }).median_ms;
    // Write-only: the bytes written, against a copy's bytes read + written per second.
    sample.share = gb_per_s(4.0 * n, sample.time_ms) / ceilings::device_copy().value;
    sample.ceiling = "device copy";
    return sample;
  });
}

TEST_CASE("poly_global.correct") { check_poly_rung(Poly::Global); }
TEST_CASE("poly_constant.correct") { check_poly_rung(Poly::Constant); }
TEST_CASE("poly_constant_divergent.correct") { check_poly_rung(Poly::Divergent); }

TEST_CASE("poly_constant.speed") {
  COURSE_CHECK_SPEED("poly_constant.speed", Graded::Speedup, measure_poly_constant);
}
TEST_CASE("poly_constant.share") {
  COURSE_CHECK_SPEED("poly_constant.share", Graded::Share, measure_poly_constant);
}

TEST_CASE("readback.correct") {
  const std::uint64_t seed = derive_seed(base_seed(), 3000);
  const auto coefficients = uniform_floats(kMaxCoefficients, seed);
  upload_coefficients(coefficients.data(), kMaxDegree, kMaxCoefficients / (kMaxDegree + 1));
  for (const int count : {1, 64, 1000, kMaxCoefficients}) {
    std::vector<float> back(count, -7.0f);
    download_coefficients(back.data(), count);
    COURSE_CHECK_MATCH(compare_exact<float>(back, std::span(coefficients).first(count), {std::size_t(count)}),
                       "readback of " + std::to_string(count) + " coefficients, seed " + std::to_string(seed));
  }
  // A second, smaller upload overwrites the start of the buffer and leaves the rest.
  const auto fewer = uniform_floats(8, derive_seed(seed, 1));
  upload_coefficients(fewer.data(), 7);
  std::vector<float> back(16);
  download_coefficients(back.data(), 16);
  CHECK(std::equal(fewer.begin(), fewer.end(), back.begin()));
  CHECK(std::equal(back.begin() + 8, back.end(), coefficients.begin() + 8));
}

// Runs without a GPU: every check happens before anything touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  float host[8] = {};
  CHECK_THROWS_WITH_AS(poly_global(fake, 64, fake, fake, 10), doctest::Contains("[0, 63]"), std::invalid_argument);
  CHECK_THROWS_AS(poly_global(fake, -1, fake, fake, 10), std::invalid_argument);
  CHECK_THROWS_AS(poly_global(nullptr, 3, fake, fake, 10), std::invalid_argument);
  CHECK_THROWS_AS(poly_global(fake, 3, nullptr, fake, 10), std::invalid_argument);
  CHECK_THROWS_WITH_AS(poly_global(fake, 3, fake, fake, 10, {}, 33), doctest::Contains("multiple of 32"),
                       std::invalid_argument);
  CHECK_THROWS_AS(poly_global(fake, 3, fake, fake, std::size_t{1} << 31), std::invalid_argument);
  CHECK_THROWS_AS(poly_constant(64, fake, fake, 10), std::invalid_argument);
  CHECK_THROWS_AS(poly_constant(3, fake, nullptr, 10), std::invalid_argument);
  CHECK_THROWS_WITH_AS(upload_coefficients(host, 63, 65), doctest::Contains("constant buffer"),
                       std::invalid_argument);
  CHECK_THROWS_AS(upload_coefficients(host, 64), std::invalid_argument);
  CHECK_THROWS_AS(upload_coefficients(host, 3, 0), std::invalid_argument);
  CHECK_THROWS_AS(upload_coefficients(nullptr, 3), std::invalid_argument);
  CHECK_THROWS_AS(poly_constant_divergent(7, 0, fake, fake, 10), std::invalid_argument);
  CHECK_THROWS_AS(poly_constant_divergent(63, 65, fake, fake, 10), std::invalid_argument);
  CHECK_THROWS_AS(download_coefficients(host, kMaxCoefficients + 1), std::invalid_argument);
  CHECK_THROWS_AS(download_coefficients(nullptr, 4), std::invalid_argument);
  CHECK_THROWS_AS(sin_sqrt_table(fake, 10, -1.0f), std::invalid_argument);
  CHECK_THROWS_AS(sin_sqrt_table(fake, 10, std::numeric_limits<float>::quiet_NaN()), std::invalid_argument);
  CHECK_THROWS_WITH_AS(sin_sqrt_table(fake, 2000, 1.0f), doctest::Contains("below 1024"), std::invalid_argument);
  CHECK_THROWS_AS(sin_sqrt_table(nullptr, 10, 1.0f), std::invalid_argument);
  // n = 0 (and count = 0) is a no-op, even with null pointers.
  CHECK_NOTHROW(sin_sqrt_table(nullptr, 0, 1.0f));
  CHECK_NOTHROW(poly_global(nullptr, 3, nullptr, nullptr, 0));
  CHECK_NOTHROW(poly_constant(3, nullptr, nullptr, 0));
  CHECK_NOTHROW(poly_constant_divergent(3, 2, nullptr, nullptr, 0));
  CHECK_NOTHROW(download_coefficients(nullptr, 0));
}
