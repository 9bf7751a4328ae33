// Lesson 04's tests: every rung's C = A·Aᵀ within the proven error bound of a float dot product,
// bit-exactly symmetric, on ragged and degenerate shapes; speed as ratios measured in this run;
// and the launcher's refusal of bad arguments. Names, thresholds and points:
// lessons/04_aat_padding/README.md.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "aat.cuh"
#include "aat_cpu.hpp"
#include "course/testing.hpp"

namespace {

using namespace course;
using namespace course::lesson04;

struct Shape {
  int n;  // rows of A; C is n x n
  int k;  // columns of A
};

constexpr std::size_t kGuard = 64;  // poisoned floats after C: a write there is a bug
constexpr int kSpeedN = 4096;       // the demo's default n = k

bool is_fast(Variant variant) {
  return variant == Variant::Symmetric || variant == Variant::RegisterTiled;
}

// One element, one row or column of A; a tile ± 1 (32 and 128) in n and in k; k not a multiple
// of 4 (the stretch rung's element-by-element path) or of 8 (a last stage half full); n not a
// multiple of 4 (no 16-byte stores); the seed's size (1000); the demo's size (fast rungs only).
// Under compute-sanitizer (quick mode), which checks every shared-memory access, only the
// shapes up to 200 x 12.
std::vector<Shape> correctness_shapes(Variant variant) {
  std::vector<Shape> shapes{{1, 1},  {1, 1000},  {1000, 1},  {17, 9},    {33, 65},
                            {64, 3}, {127, 255}, {129, 127}, {130, 130}, {200, 12}};
  if (quick_mode())
    return shapes;
  shapes.insert(shapes.end(), {{256, 260}, {257, 256}, {1000, 1000}});
  if (is_fast(variant))
    shapes.push_back({kSpeedN, kSpeedN});
  return shapes;
}

std::string context(Variant variant, Shape shape, std::string_view input, std::uint64_t seed,
                    std::size_t offset) {
  return std::string(name_of(variant)) + " n " + std::to_string(shape.n) + ", k " +
         std::to_string(shape.k) + ", " + std::string(input) + " input, seed " +
         std::to_string(seed) + (offset != 0 ? ", buffers offset by one float" : "");
}

// C checked against the reference: in double on the host for small products, with the
// harness's cuBLAS-plus-exact-samples check for large ones. Either way each element may differ
// from the exact value by the bound γ_k Σ|A[i][p] A[j][p]| (README, "Tolerance").
Comparison check_product(std::span<const float> input, const float* d_a, const float* d_c,
                         std::span<const float> got, Shape shape, std::uint64_t seed) {
  const auto [n, k] = shape;
  const Extent extent{static_cast<std::size_t>(n), static_cast<std::size_t>(n)};
  if (static_cast<double>(n) * n * k <= 0x1p22)
    return compare_bounded(got, aat_reference(input, n, k), aat_error_bound(input, n, k), extent);
  return product::check(d_a, nullptr, d_c, n, n, k, product::Second::ATransposed, seed);
}

// C == Cᵀ bit for bit. Every rung computes C[i][j] and C[j][i] from the same products
// A[i][p] A[j][p] = A[j][p] A[i][p] (multiplication commutes exactly, with or without FMA),
// added in the same order of p; the symmetric rungs copy one into the other.
Comparison check_symmetric(std::span<const float> got, int n) {
  std::vector<float> transposed(got.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      transposed[static_cast<std::size_t>(j) * n + i] = got[static_cast<std::size_t>(i) * n + j];
  return compare_exact<float>(got, transposed,
                              Extent{static_cast<std::size_t>(n), static_cast<std::size_t>(n)});
}

// Runs @p variant on one input; checks every element of C, its symmetry, and the guard after it.
void check_one(Variant variant, Shape shape, Pattern pattern, std::uint64_t seed,
               std::size_t offset) {
  const std::size_t a_count = static_cast<std::size_t>(shape.n) * shape.k;
  const std::size_t c_count = static_cast<std::size_t>(shape.n) * shape.n;
  const auto input = pattern_floats(pattern, a_count, seed);
  DeviceBuffer<float> d_a(a_count + offset);
  CUDA_CHECK(cudaMemcpy(d_a.data() + offset, input.data(), a_count * sizeof(float),
                        cudaMemcpyHostToDevice));
  DeviceBuffer<float> d_c(c_count + offset + kGuard);
  d_c.poison();
  aat(variant, d_a.data() + offset, d_c.data() + offset, shape.n, shape.k);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto all = d_c.to_host();
  const std::span<const float> got(all.data() + offset, c_count);

  const std::string where = context(variant, shape, to_string(pattern), seed, offset);
  COURSE_CHECK_MATCH(
      check_product(input, d_a.data() + offset, d_c.data() + offset, got, shape, seed), where);
  COURSE_CHECK_MATCH(check_symmetric(got, shape.n), where + ", C against its transpose");
  std::vector<float> poison(kGuard);
  std::memset(poison.data(), 0xFF, kGuard * sizeof(float));
  CHECK_MESSAGE(
      std::memcmp(all.data() + offset + c_count, poison.data(), kGuard * sizeof(float)) == 0,
      where << ": the kernel wrote past the end of C");
}

// k = 0: C is the zero matrix, and A (null here) is never read.
void check_empty_sum(Variant variant, int n) {
  const std::size_t c_count = static_cast<std::size_t>(n) * n;
  DeviceBuffer<float> d_c(c_count);
  d_c.poison();
  aat(variant, nullptr, d_c.data(), n, 0);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> zeros(c_count, 0.0f);
  COURSE_CHECK_MATCH(
      compare_exact<float>(d_c.to_host(), zeros,
                           Extent{static_cast<std::size_t>(n), static_cast<std::size_t>(n)}),
      std::string(name_of(variant)) + " n " + std::to_string(n) + ", k 0 (C must be 0)");
}

void check_correct(Variant variant) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const Shape shape : correctness_shapes(variant)) {
    // One input at the largest sizes, and under the sanitizer.
    const bool one_input = quick_mode() || (shape.n >= 1000 && shape.k >= 1000);
    for (const Pattern pattern : {Pattern::Uniform, Pattern::LargeMagnitude}) {
      if (one_input && pattern != Pattern::Uniform)
        continue;
      check_one(variant, shape, pattern, derive_seed(base, stream++), 0);
    }
  }
  // Pointers that are not 16-byte aligned: a rung may not assume cudaMalloc's alignment, even
  // where n and k are multiples of 4.
  for (const Shape shape : {Shape{64, 68}, Shape{129, 132}, Shape{33, 17}})
    check_one(variant, shape, Pattern::Uniform, derive_seed(base, stream++), 1);
  for (const int n : {1, 5, 200})
    check_empty_sum(variant, n);
}

// Times @p variant (and @p baseline, in the same run) at n = k = 4096, after checking that the
// timed output is right: a fast wrong answer earns nothing.
SpeedSample measure(Variant variant, std::optional<Variant> baseline) {
  const int n = kSpeedN;
  const int k = kSpeedN;
  const std::uint64_t seed = derive_seed(base_seed(), 1000);
  const auto input = uniform_floats(static_cast<std::size_t>(n) * k, seed);
  DeviceBuffer<float> d_a{std::span<const float>(input)};
  DeviceBuffer<float> d_c(static_cast<std::size_t>(n) * n);
  d_c.poison();
  aat(variant, d_a.data(), d_c.data(), n, k);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto checked =
      product::check(d_a.data(), nullptr, d_c.data(), n, n, k, product::Second::ATransposed, seed);
  REQUIRE_MESSAGE(checked.ok, name_of(variant) << " gives a wrong C at n = k = 4096, seed " << seed
                                               << "; fix correctness first: " << checked.report());

  auto time = [&](Variant v) {
    return time_on_gpu([&](cudaStream_t s) { aat(v, d_a.data(), d_c.data(), n, k, s); }).median_ms;
  };
  SpeedSample sample;
  sample.time_ms = time(variant);
  if (baseline) {
    sample.speedup = time(*baseline) / sample.time_ms;
    sample.baseline = name_of(*baseline);
  }
  const double flops = 2.0 * n * static_cast<double>(n) * k;  // every rung, symmetric or not
  sample.share = gflop_per_s(flops, sample.time_ms) / ceilings::cublas_sgemm_aat(n, k).value;
  sample.ceiling = "cuBLAS SGEMM A*A^T";
  return sample;
}

}  // namespace

TEST_CASE("tiled_unpadded.correct") {
  check_correct(Variant::TiledUnpadded);
}
TEST_CASE("tiled_padded.correct") {
  check_correct(Variant::TiledPadded);
}
TEST_CASE("transposed_store.correct") {
  check_correct(Variant::TransposedStore);
}
TEST_CASE("symmetric.correct") {
  check_correct(Variant::Symmetric);
}
TEST_CASE("register_tiled.correct") {
  check_correct(Variant::RegisterTiled);
}

TEST_CASE("tiled_padded.speed") {
  COURSE_CHECK_SPEED("tiled_padded.speed", Graded::Speedup,
                     [] { return measure(Variant::TiledPadded, Variant::TiledUnpadded); });
}
TEST_CASE("transposed_store.speed") {
  COURSE_CHECK_SPEED("transposed_store.speed", Graded::Speedup,
                     [] { return measure(Variant::TransposedStore, Variant::TiledUnpadded); });
}
TEST_CASE("symmetric.speed") {
  COURSE_CHECK_SPEED("symmetric.speed", Graded::Speedup,
                     [] { return measure(Variant::Symmetric, Variant::TiledPadded); });
}
TEST_CASE("register_tiled.speed") {
  COURSE_CHECK_SPEED("register_tiled.speed", Graded::Share,
                     [] { return measure(Variant::RegisterTiled, std::nullopt); });
}

// Runs without a GPU: every check happens before the launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    CHECK_THROWS_WITH_AS(aat(info.variant, fake, fake + (1 << 20), -1, 10),
                         doctest::Contains("0 <= n <="), std::invalid_argument);
    CHECK_THROWS_AS(aat(info.variant, fake, fake + (1 << 20), 10, -1), std::invalid_argument);
    CHECK_THROWS_WITH_AS(aat(info.variant, fake, fake + (1 << 20), kMaxN + 1, 1),
                         doctest::Contains("n * n"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(aat(info.variant, fake, fake + (1 << 20), 40000, 60000),
                         doctest::Contains("n * k < 2^31"), std::invalid_argument);
    CHECK_THROWS_AS(aat(info.variant, nullptr, fake, 10, 10), std::invalid_argument);
    CHECK_THROWS_AS(aat(info.variant, fake, nullptr, 10, 10), std::invalid_argument);
    CHECK_THROWS_AS(aat(info.variant, fake, nullptr, 10, 0), std::invalid_argument);
    CHECK_THROWS_WITH_AS(aat(info.variant, fake, fake, 10, 10), doctest::Contains("overlap"),
                         std::invalid_argument);  // in place
    CHECK_THROWS_AS(aat(info.variant, fake, fake + 99, 10, 10), std::invalid_argument);
    CHECK_THROWS_AS(aat(info.variant, fake + 50, fake, 10, 10), std::invalid_argument);
    // An empty product is a no-op, even with null pointers.
    CHECK_NOTHROW(aat(info.variant, nullptr, nullptr, 0, 10));
    CHECK_NOTHROW(aat(info.variant, nullptr, nullptr, 0, 0));
  }
  CHECK_THROWS_AS(aat(static_cast<Variant>(99), fake, fake + (1 << 20), 10, 10),
                  std::invalid_argument);
}
