// Lesson 01's tests: each rung against the double-precision reference over sizes, degrees and
// coefficient sets; speed as ratios measured in this run; the entry points' refusal of bad
// arguments. Names, thresholds and points: lessons/01_constant_memory/README.md.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "constant_memory.cuh"
#include "constant_memory_bench.hpp"
#include "constant_memory_cpu.hpp"
#include "course/testing.hpp"

namespace {

using namespace course;
using namespace course::lesson01;

// Around a warp and a block (of points: 4 per thread), a prime; the demo's default size is
// checked once per rung (kLarge), since its double-precision reference takes seconds.
std::vector<std::size_t> sizes() {
  return fewer_under_sanitizer<std::size_t>({1, 31, 32, 33, 255, 256, 257, 1023, 1025, 1000003},
                                            {1, 33, 257, 1025});
}
constexpr std::size_t kLarge = std::size_t{1} << 26;

// Every block size a launcher accepts: a configuration of every rung (under the sanitizers, the
// smallest, an odd multiple of a warp and the largest).
std::vector<int> all_blocks() {
  if (sanitize_mode())
    return {32, 96, 1024};
  std::vector<int> blocks;
  for (int block = 32; block <= 1024; block += 32)
    blocks.push_back(block);
  return blocks;
}

// Where the vectors start: @p x and @p y floats past the start of their allocations. Each
// allocation ends where its data ends (also under compute-sanitizer, so memcheck sees an access
// past it), and each pointer is offset on its own: a rung may not assume any one's alignment.
struct Offsets {
  std::size_t x = 0;
  std::size_t y = 0;
};

std::string offsets_text(Offsets offsets) {
  return offset_text("x", offsets.x, "{} float(s) past 16-byte alignment") +
         offset_text("y", offsets.y, "{} float(s) past 16-byte alignment");
}

// For x < 1024: sqrtf is correctly rounded, within half an ulp of its result below 32 (9.5e-7),
// and __sinf within about 4e-6 of the true sine for arguments below 32, so the table is within
// 6e-6 of sin(sqrt(x)) in double.
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

const char* rung_name(Poly how) {
  return how == Poly::Global     ? "poly_global"
         : how == Poly::Constant ? "poly_constant"
                                 : "poly_constant_divergent";
}

// The vectors of one polynomial run, each at its offset into an allocation that ends with it.
struct PolyBuffers {
  PolyBuffers(std::size_t n, Offsets offsets)
      : n(n), offsets(offsets), x_all(n + offsets.x), y_all(n + offsets.y) {}
  float* x() { return x_all.data() + offsets.x; }
  float* y() { return y_all.data() + offsets.y; }
  std::size_t n;
  Offsets offsets;
  DeviceBuffer<float> x_all;
  DeviceBuffer<float> y_all;
};

// Evaluates @p coefficients at the points in @p buffers (which hold @p x) with @p how, the
// output poisoned first, checks that the inputs are as they were given (the interface declares
// them const: no call may use them as scratch, even if its output is right), and compares with
// the double-precision reference.
void run_poly(Poly how, int degree, int sets, int block, PolyBuffers& buffers,
              const std::vector<float>& x, const std::vector<float>& coefficients,
              const std::string& where) {
  const std::size_t n = buffers.n;
  buffers.y_all.poison();
  if (how == Poly::Global) {
    DeviceBuffer<float> d_c{std::span<const float>(coefficients)};
    poly_global(d_c.data(), degree, buffers.x(), buffers.y(), n, {}, block);
    CUDA_CHECK(cudaDeviceSynchronize());
    COURSE_CHECK_UNCHANGED(d_c.data(), coefficients, "d_coefficients", where);
  } else {
    // The upload reads host memory: a copy, so that what it may not change can be compared with
    // the original.
    const std::vector<float> uploaded = coefficients;
    upload_coefficients(uploaded.data(), degree, sets);
    COURSE_CHECK_UNCHANGED(uploaded.data(), coefficients, "h_coefficients",
                           where + ", upload_coefficients");
    if (how == Poly::Constant) {
      poly_constant(degree, buffers.x(), buffers.y(), n, {}, block);
    } else {
      poly_constant_divergent(degree, sets, buffers.x(), buffers.y(), n, {}, block);
    }
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  COURSE_CHECK_UNCHANGED(buffers.x(), x, "d_x", where);
  const auto all = buffers.y_all.to_host();
  const std::span<const float> got(all.data() + buffers.offsets.y, n);
  const auto expected = poly_reference(coefficients, degree, sets, x);
  COURSE_CHECK_MATCH(compare_close(got, expected, poly_tolerance(coefficients, degree, sets), {n}),
                     where);
}

// Evaluates random polynomials at random points with @p how and compares with the reference.
void check_poly(Poly how, int degree, int sets, std::size_t n, int block, std::uint64_t seed,
                Offsets offsets = {}) {
  const auto x = uniform_floats(n, seed, -1.0f, 1.0f);
  const auto coefficients = uniform_floats(static_cast<std::size_t>(sets) * (degree + 1),
                                           derive_seed(seed, 1), -1.0f, 1.0f);
  PolyBuffers buffers(n, offsets);
  CUDA_CHECK(cudaMemcpy(buffers.x(), x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  run_poly(how, degree, sets, block, buffers, x, coefficients,
           describe_input(rung_name(how), n, degree, sets, block, seed) + offsets_text(offsets));
}

// Calls again on the same buffers: first with new coefficients (same points), then after a few
// points changed (none near the start or the end). What a launcher remembers from an earlier
// call -- a result kept for these pointers, or for a fingerprint of a few points -- is wrong now.
void check_calls_again(Poly how, int degree, int sets, std::size_t n, std::uint64_t seed) {
  auto x = uniform_floats(n, seed, -1.0f, 1.0f);
  const std::size_t count = static_cast<std::size_t>(sets) * (degree + 1);
  PolyBuffers buffers(n, {});
  CUDA_CHECK(cudaMemcpy(buffers.x(), x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const std::string where = describe_input(rung_name(how), n, degree, sets, kDefaultBlock, seed);
  run_poly(how, degree, sets, kDefaultBlock, buffers, x,
           uniform_floats(count, derive_seed(seed, 1)), where);
  const auto other = uniform_floats(count, derive_seed(seed, 2));
  run_poly(how, degree, sets, kDefaultBlock, buffers, x, other,
           where + ", called again with new coefficients");
  const auto changes = uniform_floats(8, derive_seed(seed, 3), -1.0f, 1.0f);
  for (std::size_t k = 0; k < changes.size(); ++k)
    change_element(x, buffers.x(), spread_element(n, k), changes[k]);
  run_poly(how, degree, sets, kDefaultBlock, buffers, x, other,
           where + ", called again after 8 points changed");
}

void check_poly_rung(Poly how) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  const bool divergent = how == Poly::Divergent;
  const std::vector<int> set_counts =
      divergent ? fewer_under_sanitizer<int>({1, 2, 32, 64}, {1, 32}) : std::vector<int>{1};
  for (const int sets : set_counts)
    for (const int degree : fewer_under_sanitizer<int>({0, 1, 7, 63}, {0, 63})) {
      if (sets * (degree + 1) > kMaxCoefficients)
        continue;
      for (const std::size_t n : sizes())
        check_poly(how, degree, sets, n, kDefaultBlock, derive_seed(base, stream++));
    }
  // Every block size, one past a whole number of blocks' points.
  for (const int block : all_blocks())
    check_poly(how, 7, divergent ? 3 : 1, std::size_t(block) * 4 * 3 + 1, block,
               derive_seed(base, stream++));
  // Every degree (not under the sanitizers: the degree moves no memory access they check).
  for (int degree = 0; degree <= kMaxDegree && !sanitize_mode(); ++degree)
    check_poly(how, degree, divergent ? 2 : 1, 1000, kDefaultBlock, derive_seed(base, stream++));
  // Every number of coefficient sets at the highest degree.
  if (divergent && !sanitize_mode())
    for (int sets = 1; sets * (kMaxDegree + 1) <= kMaxCoefficients; ++sets)
      check_poly(how, kMaxDegree, sets, 2001, kDefaultBlock, derive_seed(base, stream++));
  // Each vector misaligned on its own, and both.
  for (const std::size_t n : fewer_under_sanitizer<std::size_t>({1025, 1000003}, {1025}))
    for (const Offsets offsets : {Offsets{1, 0}, Offsets{0, 1}, Offsets{1, 1}})
      check_poly(how, 7, divergent ? 3 : 1, n, kDefaultBlock, derive_seed(base, stream++), offsets);
  // The same buffers again, with new coefficients and changed points.
  check_calls_again(how, 7, divergent ? 3 : 1, 4099, derive_seed(base, stream++));
  if (!quick_mode())
    check_poly(how, kMaxDegree, divergent ? 32 : 1, kLarge, kDefaultBlock,
               derive_seed(base, stream++));
}

// Times @p variant (and @p baseline, in the same run) with course::measure at the demo's default
// configuration (BenchConfig): fresh points and coefficients (or a fresh table step) before every
// launch, every timed output checked, the harness's own stream and clock. A fast wrong answer,
// or work the timer does not see, earns nothing.
SpeedSample sample_of(Variant variant, std::optional<Variant> baseline) {
  Bench bench(BenchConfig{});
  const MeasureOptions options = speed_options(2000);
  SpeedSample sample = speed_sample(measure(bench.trial(variant), options));
  if (baseline && sample.failure.empty())
    add_speedup(sample, measure(bench.trial(*baseline), options), name_of(*baseline));
  if (!sample.failure.empty())
    return sample;
  if (variant == Variant::Table) {
    // Write-only: the bytes written, against a copy's bytes read + written per second.
    add_share_of_device_copy(sample, bench.table_bytes());
  } else {
    sample.share = gflop_per_s(bench.poly_flops(), sample.time_ms) /
                   ceilings::cublas_sgemm(4096, 4096, 4096).value;
    sample.ceiling = "cuBLAS SGEMM";
  }
  return sample;
}

// The table at @p n, @p step and @p block, its output @p offset floats into an allocation that
// ends with it, against @p expected.
void check_table(std::size_t n, float step, int block, std::size_t offset,
                 const std::vector<double>& expected) {
  DeviceBuffer<float> d_all(n + offset);
  d_all.poison();
  sin_sqrt_table(d_all.data() + offset, n, step, {}, block);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto all = d_all.to_host();
  COURSE_CHECK_MATCH(
      compare_close(std::span<const float>(all).subspan(offset), expected, kTableTolerance, {n}),
      "table n " + std::to_string(n) + ", step " + std::to_string(step) + ", block " +
          std::to_string(block) + (offset != 0 ? ", y one float past 16-byte alignment" : ""));
}

}  // namespace

TEST_CASE("table.correct") {
  auto table_sizes = sizes();
  if (!quick_mode())
    table_sizes.push_back(kLarge);
  for (const std::size_t n : table_sizes) {
    for (const float step : {0.0f, 1000.0f / static_cast<float>(n), 0.37f}) {
      if (static_cast<double>(n - 1) * step >= kMaxTableArgument)
        continue;
      const auto expected = sin_sqrt_reference(n, step);
      for (const int block : {kDefaultBlock, 32, 1024}) {
        if (n == kLarge && (block != kDefaultBlock || step != 1000.0f / static_cast<float>(n)))
          continue;
        check_table(n, step, block, 0, expected);
      }
    }
  }
  // Every block size (at this n the grid-stride loop runs several rounds), and the output
  // misaligned.
  for (const std::size_t n : {std::size_t{1025}, std::size_t{1000003}}) {
    const float step = 1000.0f / static_cast<float>(n);
    const auto expected = sin_sqrt_reference(n, step);
    if (n > 1025)  // the grid-stride loop runs several rounds
      for (const int block : all_blocks())
        check_table(n, step, block, 0, expected);
    check_table(n, step, kDefaultBlock, 1, expected);
  }
}

COURSE_SPEED_TEST("table.share", Graded::Share, sample_of(Variant::Table, std::nullopt));

COURSE_CORRECT_TEST("poly_global.correct", check_poly_rung(Poly::Global));

COURSE_CORRECT_TEST("poly_constant.correct", check_poly_rung(Poly::Constant));
COURSE_SPEED_TEST("poly_constant.speed", Graded::Speedup,
                  sample_of(Variant::PolyConstant, Variant::PolyGlobal));
COURSE_SPEED_TEST("poly_constant.share", Graded::Share,
                  sample_of(Variant::PolyConstant, std::nullopt));

COURSE_CORRECT_TEST("poly_constant_divergent.correct", check_poly_rung(Poly::Divergent));

TEST_CASE("readback.correct") {
  const std::uint64_t seed = derive_seed(base_seed(), 3000);
  const auto coefficients = uniform_floats(kMaxCoefficients, seed);
  // The upload reads a copy, which it may not change (h_coefficients is const).
  const std::vector<float> uploaded = coefficients;
  upload_coefficients(uploaded.data(), kMaxDegree, kMaxCoefficients / (kMaxDegree + 1));
  COURSE_CHECK_UNCHANGED(uploaded.data(), coefficients, "h_coefficients",
                         "upload of " + std::to_string(kMaxCoefficients) + " coefficients");
  for (const int count : {1, 64, 1000, kMaxCoefficients}) {
    std::vector<float> back(count, -7.0f);
    download_coefficients(back.data(), count);
    COURSE_CHECK_MATCH(
        compare_exact<float>(back, std::span(coefficients).first(count), {std::size_t(count)}),
        "readback of " + std::to_string(count) + " coefficients, seed " + std::to_string(seed));
  }
  // A second, smaller upload overwrites the start of the buffer and leaves the rest.
  const auto fewer = uniform_floats(8, derive_seed(seed, 1));
  const std::vector<float> uploaded_fewer = fewer;
  upload_coefficients(uploaded_fewer.data(), 7);
  COURSE_CHECK_UNCHANGED(uploaded_fewer.data(), fewer, "h_coefficients",
                         "upload of 8 coefficients");
  std::vector<float> back(16);
  download_coefficients(back.data(), 16);
  CHECK(std::equal(fewer.begin(), fewer.end(), back.begin()));
  CHECK(std::equal(back.begin() + 8, back.end(), coefficients.begin() + 8));
}

// Runs without a GPU: every check happens before anything touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  float host[8] = {};
  CHECK_THROWS_WITH_AS(poly_global(fake, 64, fake, fake, 10), doctest::Contains("[0, 63]"),
                       std::invalid_argument);
  CHECK_THROWS_AS(poly_global(fake, -1, fake, fake, 10), std::invalid_argument);
  CHECK_THROWS_AS(poly_global(nullptr, 3, fake, fake, 10), std::invalid_argument);
  CHECK_THROWS_AS(poly_global(fake, 3, nullptr, fake, 10), std::invalid_argument);
  CHECK_THROWS_WITH_AS(poly_global(fake, 3, fake, fake, 10, {}, 33),
                       doctest::Contains("multiple of 32"), std::invalid_argument);
  CHECK_THROWS_AS(poly_global(fake, 3, fake, fake, std::size_t{1} << 31), std::invalid_argument);
  CHECK_THROWS_WITH_AS(poly_constant(3, fake, fake, kMaxElements + 1), doctest::Contains("2^28"),
                       std::invalid_argument);
  CHECK_THROWS_AS(poly_constant_divergent(3, 2, fake, fake, kMaxElements + 1),
                  std::invalid_argument);
  CHECK_THROWS_AS(sin_sqrt_table(fake, kMaxElements + 1, 0.0f), std::invalid_argument);
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
  CHECK_THROWS_AS(sin_sqrt_table(fake, 10, std::numeric_limits<float>::quiet_NaN()),
                  std::invalid_argument);
  CHECK_THROWS_WITH_AS(sin_sqrt_table(fake, 2000, 1.0f), doctest::Contains("below 1024"),
                       std::invalid_argument);
  CHECK_THROWS_AS(sin_sqrt_table(nullptr, 10, 1.0f), std::invalid_argument);
  // n = 0 (and count = 0) is a no-op, even with null pointers.
  CHECK_NOTHROW(sin_sqrt_table(nullptr, 0, 1.0f));
  CHECK_NOTHROW(poly_global(nullptr, 3, nullptr, nullptr, 0));
  CHECK_NOTHROW(poly_constant(3, nullptr, nullptr, 0));
  CHECK_NOTHROW(poly_constant_divergent(3, 2, nullptr, nullptr, 0));
  CHECK_NOTHROW(download_coefficients(nullptr, 0));
}
