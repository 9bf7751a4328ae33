// Lesson 04's tests: every rung's C = A·Aᵀ within the proven error bound of a float dot product,
// bit-exactly symmetric (both triangles checked), its const A left unchanged, on ragged and
// degenerate shapes, at the launcher's limits and with each pointer misaligned; speed as ratios
// measured in this run through the harness's measuring procedure (aat_bench.hpp); and the
// launcher's refusal of bad arguments. Names, thresholds and points:
// lessons/04_aat_padding/README.md.
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "aat.cuh"
#include "aat_bench.hpp"
#include "aat_cpu.hpp"
#include "course/testing.hpp"
#include "course/testing_matrix.hpp"

namespace {

using namespace course;
using namespace course::lesson04;

struct Shape {
  int n;  // rows of A; C is n x n
  int k;  // columns of A
};

constexpr int kSpeedN = 4096;  // the demo's default n = k

// Where each buffer starts, in floats: 1 puts it one float past a 16-byte boundary, where no
// float4 access is possible.
struct Offsets {
  std::size_t a = 0;
  std::size_t c = 0;
};

bool is_fast(Variant variant) {
  return variant == Variant::Symmetric || variant == Variant::RegisterTiled;
}

// One element, one row or column of A; a tile ± 1 (32 and 128) in n and in k; k not a multiple
// of 4 (the stretch rung's element-by-element path) or of 8 (a last stage half full); n not a
// multiple of 4 (no 16-byte stores); the memory lab's size (1000); the demo's size (fast rungs
// only).
// Under compute-sanitizer, which checks every shared-memory access, one shape of each kind and
// few multiply-adds: a single element, one row of A, ragged 32-tiles in n and k, ragged 128-tiles
// in n with a half-full last stage of 8 in k, k not a multiple of 4.
std::vector<Shape> correctness_shapes(Variant variant) {
  if (sanitize_mode())
    return {{1, 1}, {1, 1000}, {33, 65}, {70, 40}, {129, 9}, {100, 12}};
  std::vector<Shape> shapes{{1, 1},  {1, 1000},  {1000, 1},  {17, 9},    {33, 65},
                            {64, 3}, {127, 255}, {129, 127}, {130, 130}, {200, 12}};
  if (quick_mode())
    return shapes;
  shapes.insert(shapes.end(), {{256, 260}, {257, 256}, {1000, 1000}});
  if (is_fast(variant))
    shapes.push_back({kSpeedN, kSpeedN});
  return shapes;
}

// The launcher's limits, each reached (uniform input only, outside the sanitizer runs): C of
// kMaxN x kMaxN elements, and A of kMaxElements (64 rows of 2^20), so that every index a kernel
// may compute for an accepted shape is computed here once.
std::vector<Shape> limit_shapes() {
  if (quick_mode())
    return {};
  static_assert(64LL * (1 << 20) == kMaxElements);
  return {{kMaxN, 3}, {64, 1 << 20}};
}

std::string context(Variant variant, Shape shape, std::string_view input, std::uint64_t seed,
                    Offsets offsets) {
  return std::string(name_of(variant)) + " n " + std::to_string(shape.n) + ", k " +
         std::to_string(shape.k) + ", " + std::string(input) + " input, seed " +
         std::to_string(seed) +
         misaligned_text({{"A", offsets.a}, {"C", offsets.c}}, "one float past a 16-byte boundary",
                         " and ");
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

// Runs @p variant on one input; checks that A is as uploaded, every element of C (both
// triangles), its symmetry, and the guard after it.
void check_one(Variant variant, Shape shape, Pattern pattern, std::uint64_t seed,
               Offsets offsets = {}) {
  const std::size_t a_count = static_cast<std::size_t>(shape.n) * shape.k;
  const std::size_t c_count = static_cast<std::size_t>(shape.n) * shape.n;
  const auto input = pattern_floats(pattern, a_count, seed);
  DeviceBuffer<float> d_a(a_count + offsets.a);  // ends where A ends: no guard needed to read past
  CUDA_CHECK(cudaMemcpy(d_a.data() + offsets.a, input.data(), a_count * sizeof(float),
                        cudaMemcpyHostToDevice));
  DeviceBuffer<float> d_c(c_count + offsets.c + product_guard());
  d_c.poison();
  const float* a_at = d_a.data() + offsets.a;
  float* c_at = d_c.data() + offsets.c;
  aat(variant, a_at, c_at, shape.n, shape.k);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto all = d_c.to_host();
  const std::span<const float> got(all.data() + offsets.c, c_count);

  const std::string where = context(variant, shape, to_string(pattern), seed, offsets);
  // A is const: a rung may not use it as scratch, even if C is right. (For large products
  // check_product reads A back from the device, so it checks C against A as it is now.)
  COURSE_CHECK_UNCHANGED(a_at, input, "A", where);
  COURSE_CHECK_MATCH(check_product(input, a_at, c_at, got, shape, seed), where);
  COURSE_CHECK_MATCH(check_symmetric(got, shape.n), where + ", C against its transpose");
  check_guards_of_c(all, offsets.c, c_count, product_guard(), where);
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

// One C, then the same buffers again with one element of A changed: C must follow the change. A
// launcher that replays a result kept from an earlier call, keyed on the pointers, the shape or
// a few elements read back, fails here, in the correctness row itself.
void check_changed_input(Variant variant, std::uint64_t seed) {
  const Shape shape = sanitize_mode() ? Shape{65, 20} : Shape{129, 132};
  auto input = uniform_floats(static_cast<std::size_t>(shape.n) * shape.k, seed);
  DeviceBuffer<float> d_a{std::span<const float>(input)};
  DeviceBuffer<float> d_c(static_cast<std::size_t>(shape.n) * shape.n);
  auto run_and_check = [&](const std::string& what) {
    d_c.poison();
    aat(variant, d_a.data(), d_c.data(), shape.n, shape.k);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::string where = context(variant, shape, "uniform", seed, {}) + what;
    // After every call A holds what was uploaded, the changed element included.
    COURSE_CHECK_UNCHANGED(d_a.data(), input, "A", where);
    const auto got = d_c.to_host();
    COURSE_CHECK_MATCH(check_product(input, d_a.data(), d_c.data(), got, shape, seed), where);
  };
  run_and_check("");
  // An element in the middle of A, moved by 1 (still in [-1, 1)): the first and last elements
  // stay as they were. Row n/2 and column n/2 of C change.
  const std::size_t at = static_cast<std::size_t>(shape.n / 2) * shape.k + shape.k / 2;
  change_element(input, d_a.data(), at, input[at] > 0.0f ? input[at] - 1.0f : input[at] + 1.0f);
  run_and_check(", then again with A[" + std::to_string(shape.n / 2) + "][" +
                std::to_string(shape.k / 2) + "] changed, in the same buffers");
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
      check_one(variant, shape, pattern, derive_seed(base, stream++));
    }
  }
  for (const Shape shape : limit_shapes())
    check_one(variant, shape, Pattern::Uniform, derive_seed(base, stream++));
  // Each pointer one float past a 16-byte boundary, alone and both together: a rung may not
  // assume cudaMalloc's alignment of either, even where n and k are multiples of 4 (64 x 68 and,
  // not under the sanitizers, 256 x 260 would take the stretch rung's 16-byte loads and stores if
  // the pointers allowed).
  std::vector<Shape> misaligned =
      fewer_under_sanitizer<Shape>({{64, 68}, {129, 132}, {33, 17}}, {{64, 68}, {33, 17}});
  if (!quick_mode())
    misaligned.push_back({256, 260});
  for (const Shape shape : none_under_racecheck(misaligned))
    for (const Offsets offsets : {Offsets{1, 0}, Offsets{0, 1}, Offsets{1, 1}})
      check_one(variant, shape, Pattern::Uniform, derive_seed(base, stream++), offsets);
  check_changed_input(variant, derive_seed(base, stream++));
  for (const int n : fewer_under_sanitizer<int>({1, 5, 200}, {5}))
    check_empty_sum(variant, n);
}

// Times @p variant (and @p baseline, in the same run) at n = k = 4096 with the harness's
// measuring procedure (aat_bench.hpp): a fresh A before every launch, every element of every
// timed C checked against cuBLAS's, the stream and the clock the harness's own. A fast wrong
// answer earns nothing.
SpeedSample sample_of(Variant variant, std::optional<Variant> baseline) {
  const int n = kSpeedN;
  const int k = kSpeedN;
  lesson04::bench::Bench problem(n, k);
  const MeasureOptions options = speed_options(1000);
  SpeedSample sample = speed_sample(course::measure(problem.trial(variant), options));
  sample.ceiling = "cuBLAS SGEMM A*A^T";
  if (!sample.failure.empty())
    return sample;
  if (baseline)
    add_speedup(sample, course::measure(problem.trial(*baseline), options), name_of(*baseline));
  // Every rung is counted as 2 n^2 k, symmetric or not.
  sample.share =
      gflop_per_s(problem.flops(), sample.time_ms) / ceilings::cublas_sgemm_aat(n, k).value;
  return sample;
}

}  // namespace

COURSE_CORRECT_TEST("tiled_unpadded.correct", check_correct(Variant::TiledUnpadded));

COURSE_CORRECT_TEST("tiled_padded.correct", check_correct(Variant::TiledPadded));
COURSE_SPEED_TEST("tiled_padded.speed", Graded::Speedup,
                  sample_of(Variant::TiledPadded,
                            unless_in_baseline_process(Variant::TiledUnpadded)));

COURSE_CORRECT_TEST("transposed_store.correct", check_correct(Variant::TransposedStore));
COURSE_SPEED_TEST("transposed_store.speed", Graded::Speedup,
                  sample_of(Variant::TransposedStore, Variant::TiledUnpadded));

COURSE_CORRECT_TEST("symmetric.correct", check_correct(Variant::Symmetric));
// tiled_padded is the student's too: its time comes from its own row, run in a process of its
// own, where nothing tells the student's code that it serves as a baseline.
COURSE_SPEED_TEST("symmetric.speed", Graded::Speedup,
                  speedup_over_row_apart(sample_of(Variant::Symmetric, std::nullopt),
                                         "tiled_padded.speed", "tiled_padded"));

COURSE_CORRECT_TEST("register_tiled.correct", check_correct(Variant::RegisterTiled));
COURSE_SPEED_TEST("register_tiled.speed", Graded::Share,
                  sample_of(Variant::RegisterTiled, std::nullopt));

// Runs without a GPU: every check happens before the launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    CHECK_THROWS_WITH_AS(aat(info.variant, fake, fake + (1 << 20), -1, 10),
                         doctest::Contains("0 <= n <="), std::invalid_argument);
    CHECK_THROWS_AS(aat(info.variant, fake, fake + (1 << 20), 10, -1), std::invalid_argument);
    CHECK_THROWS_WITH_AS(aat(info.variant, fake, fake + (1 << 20), kMaxN + 1, 1),
                         doctest::Contains("n too large"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(aat(info.variant, fake, fake + (1 << 20), 40000, 60000),
                         doctest::Contains("0 <= n <="), std::invalid_argument);
    // n fits, but A has one element more than kMaxElements.
    CHECK_THROWS_WITH_AS(aat(info.variant, fake, fake + (1 << 20), 64, (1 << 20) + 1),
                         doctest::Contains("n * k <= 2^26"), std::invalid_argument);
    CHECK_THROWS_AS(aat(info.variant, fake, fake + (1 << 20), 1, (1 << 26) + 1),
                    std::invalid_argument);
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
