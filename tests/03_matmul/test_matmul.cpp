// Lesson 03's tests: every rung on every shape (any M, N, K, ragged edges, rectangles, empty
// products, the launcher's limits, each pointer misaligned), its const A and B left unchanged,
// the tiled rung at every tile edge, its speed graded as a share of cuBLAS SGEMM measured in this
// run (through the harness's measuring procedure, matmul_bench.hpp), and the launcher's refusal
// of bad arguments. Test names, thresholds and points come from the grading table in
// lessons/03_matmul/README.md.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "course/testing.hpp"
#include "course/testing_matrix.hpp"
#include "matmul.cuh"
#include "matmul_bench.hpp"
#include "matmul_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson03;

using Shape = ProductShape;

// M x N x K. Single elements; prime and odd sizes; a block tile (128) and a warp (32) plus or
// minus one in each dimension; whole 128 x 128 x 8 tiles (register_2d's block tile) and
// whole M, N tiles with a ragged K; whole 128 x 256 x 16 tiles (the warptiled rung's 16-byte path)
// for 1 step, for 3 (as many as its ring has in flight) and for 5 (the ring wraps around); long
// thin rectangles; k = 1; empty products (C = 0 when k = 0); and, outside the sanitizer runs,
// 1000^3 and the demo's 4096^3 (65 x 63 x 66 under them).
std::vector<Shape> correctness_shapes() {
  const std::vector<Shape> shapes{{1, 1, 1},       {17, 33, 9},    {127, 255, 63}, {31, 33, 32},
                                  {129, 127, 130}, {127, 129, 1},  {128, 128, 8},  {256, 384, 136},
                                  {256, 128, 20},  {128, 256, 16}, {256, 256, 48}, {128, 256, 80},
                                  {1, 4096, 7},    {4096, 1, 33},  {33, 17, 4096}, {5, 7, 0},
                                  {0, 5, 5},       {5, 0, 5}};
  return product_correctness_shapes(shapes, {65, 63, 66});
}

// The launcher's limits, each reached (uniform input only, outside the sanitizer runs): M and N
// at kMaxExtent (the tiled<4> grid's 65535 blocks along y), and A, B and C each of kMaxElements
// (8192 x 8192) elements, so that every index a kernel may compute for an accepted shape is
// computed here once.
std::vector<Shape> limit_shapes() {
  if (quick_mode())
    return {};
  constexpr int kSide = 8192;
  static_assert(static_cast<long long>(kSide) * kSide == kMaxElements);
  return {{kMaxExtent, 2, 3},
          {3, kMaxExtent, 2},
          {2 * kSide, 1, kSide / 2},  // A: 16384 x 4096
          {1, 2 * kSide, kSide / 2},  // B: 4096 x 16384
          {kSide, kSide, 1}};         // C: 8192 x 8192
}

enum class Input { Uniform, LabReport };

std::string_view to_string(Input input) {
  return input == Input::Uniform ? "uniform" : "lab-report";
}

// Where each buffer starts, in floats: 1 puts it one float past a 16-byte boundary, where no
// float4 access is possible.
using Offsets = ProductOffsets;

// The rung under test: a Variant through multiply(), or the tiled rung at another tile edge
// through multiply_tiled().
struct Rung {
  Variant variant;
  int tile = 0;  // 0: multiply(variant); else multiply_tiled(tile)
};

std::string name_of(Rung rung) {
  return rung.tile == 0 ? std::string(course::lesson03::name_of(rung.variant))
                        : "tiled<" + std::to_string(rung.tile) + ">";
}

void run(Rung rung, const float* d_a, const float* d_b, float* d_c, Shape shape) {
  if (rung.tile == 0)
    multiply(rung.variant, d_a, d_b, d_c, shape.m, shape.n, shape.k);
  else
    multiply_tiled(rung.tile, d_a, d_b, d_c, shape.m, shape.n, shape.k);
}

std::string context(Rung rung, Shape shape, Input input, std::uint64_t seed, Offsets offsets) {
  return name_of(rung) + " " + to_string(shape) + " (MxNxK) " + std::string(to_string(input)) +
         " input, seed " + std::to_string(seed) + to_string(offsets, "float");
}

// Runs @p rung on one input; checks that A and B are as uploaded, every element of C
// (course::product::check, and the CPU reference for small shapes) and that the guards around C
// are untouched.
void check_one(Rung rung, Shape shape, Input input, std::uint64_t seed, Offsets offsets = {}) {
  const auto [m, n, k] = shape;
  const std::size_t a_count = std::size_t(m) * k, b_count = std::size_t(k) * n;
  const std::size_t c_count = std::size_t(m) * n;
  const auto a = input == Input::Uniform ? uniform_floats(a_count, derive_seed(seed, 0))
                                         : lab_report_matrix_a(m, k);
  const auto b = input == Input::Uniform ? uniform_floats(b_count, derive_seed(seed, 1))
                                         : lab_report_matrix_b(k, n);
  // A and B each followed by product_guard() floats of NaN: a kernel that reads past their end
  // computes with NaN.
  const auto d_a = upload_framed<float>(a, offsets.a, product_guard());
  const auto d_b = upload_framed<float>(b, offsets.b, product_guard());
  DeviceBuffer<float> d_c(std::max<std::size_t>(1, offsets.c + c_count + product_guard()));
  d_c.poison();  // NaN in C, before it and after it: an element never written cannot pass
  const float* a_at = d_a.data() + offsets.a;
  const float* b_at = d_b.data() + offsets.b;
  float* c_at = d_c.data() + offsets.c;
  const std::string where = context(rung, shape, input, seed, offsets);
  INFO(where);

  run(rung, a_at, b_at, c_at, shape);
  CUDA_CHECK(cudaDeviceSynchronize());

  // A and B are const: a rung may not use them as scratch, even if C is right. (product::check
  // reads them back from the device, so it checks C against the inputs as they are now.)
  COURSE_CHECK_UNCHANGED(a_at, a, "A", where);
  COURSE_CHECK_UNCHANGED(b_at, b, "B", where);
  COURSE_CHECK_MATCH(product::check(a_at, b_at, c_at, m, n, k, product::Second::B, seed), where);
  const auto all = d_c.to_host();
  if (c_count != 0 && multiply_adds(shape) <= (1 << 20)) {
    const auto [expected, magnitude] = multiply_reference(a, b, m, n, k);
    std::vector<double> bound(c_count);
    for (std::size_t i = 0; i < c_count; ++i)
      bound[i] = product::dot_error_bound(k) * magnitude[i] + 1e-30;
    COURSE_CHECK_MATCH(compare_bounded(std::span<const float>(all.data() + offsets.c, c_count),
                                       expected, bound, {std::size_t(n), std::size_t(m)}),
                       where + ", against matmul_cpu.hpp");
  }
  check_guards_of_c(all, offsets.c, c_count, product_guard(), where);
}

// Moves @p value by 1 towards 0: a different element, still in [-1, 1).
float changed(float value) {
  return value > 0.0f ? value - 1.0f : value + 1.0f;
}

// One product, then the same buffers again with one element of A changed, then one of B: C must
// follow each change. A launcher that replays a result kept from an earlier call, keyed on the
// pointers, the shape or a few elements read back, fails here, in the correctness row itself.
void check_changed_input(Rung rung, std::uint64_t seed) {
  const Shape shape{129, 127, 130};
  const auto [m, n, k] = shape;
  auto a = uniform_floats(std::size_t(m) * k, derive_seed(seed, 0));
  auto b = uniform_floats(std::size_t(k) * n, derive_seed(seed, 1));
  auto d_a = upload_framed<float>(a, 0, product_guard());
  auto d_b = upload_framed<float>(b, 0, product_guard());
  DeviceBuffer<float> d_c(std::size_t(m) * n + product_guard());
  auto run_and_check = [&](const std::string& what) {
    d_c.poison();
    run(rung, d_a.data(), d_b.data(), d_c.data(), shape);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::string where = context(rung, shape, Input::Uniform, seed, {}) + what;
    // After every call A and B hold what was uploaded, the changed elements included.
    COURSE_CHECK_UNCHANGED(d_a.data(), a, "A", where);
    COURSE_CHECK_UNCHANGED(d_b.data(), b, "B", where);
    COURSE_CHECK_MATCH(
        product::check(d_a.data(), d_b.data(), d_c.data(), m, n, k, product::Second::B, seed),
        where);
  };
  // An element in the middle of each matrix: the first and last ones stay as they were.
  const std::size_t in_a = std::size_t(m / 2) * k + k / 2, in_b = std::size_t(k / 2) * n + n / 2;
  run_and_check("");
  change_element(a, d_a.data(), in_a, changed(a[in_a]));
  run_and_check(", then again with A[64][65] changed, in the same buffers");
  change_element(b, d_b.data(), in_b, changed(b[in_b]));
  run_and_check(", then again with B[65][63] changed too, in the same buffers");
}

void check_correct(Rung rung) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const Shape shape : correctness_shapes()) {
    check_one(rung, shape, Input::Uniform, derive_seed(base, stream++));
    // The matmul lab report's matrices on every shape but the largest (one input there is enough).
    if (second_input_on(shape))
      check_one(rung, shape, Input::LabReport, derive_seed(base, stream++));
  }
  for (const Shape shape : limit_shapes())
    check_one(rung, shape, Input::Uniform, derive_seed(base, stream++));
  // Each pointer one float past a 16-byte boundary, alone and all together: no rung may assume
  // cudaMalloc's alignment of any of them. 128 x 256 x 16 would take the warptiled rung's 16-byte
  // path if the pointers allowed it; 128 x 128 x 8 and 256 x 384 x 136 (not under the
  // sanitizers) that of its fallback for GPUs without cp.async.
  std::vector<Shape> misaligned{
      {128, 128, 8}, {128, 256, 16}, sanitize_mode() ? Shape{65, 63, 18} : Shape{129, 127, 130}};
  if (!quick_mode())
    misaligned.push_back({256, 384, 136});
  for (const Shape shape : none_under_racecheck(misaligned))
    for (const Offsets offsets : kMisalignedOperands)
      check_one(rung, shape, Input::Uniform, derive_seed(base, stream++), offsets);
  // The sanitizer runs keep no shape as large as the warptiled rung's whole tile: one block of its
  // 16-byte path, 5 steps, so that memcheck and racecheck see it and its ring wrap around.
  if (sanitize_mode() && rung.variant == Variant::Warptiled)
    check_one(rung, {128, 256, 80}, Input::Uniform, derive_seed(base, stream++));
  check_changed_input(rung, derive_seed(base, stream++));
}

void check_correct(Variant variant) {
  check_correct(Rung{variant});
}

constexpr Shape kSpeedShape{4096, 4096, 4096};

// Times @p variant, and the naive rung for the speedup, at 4096^3 with the harness's measuring
// procedure (matmul_bench.hpp): fresh inputs before every launch, every timed product checked
// against cuBLAS's, the stream and the clock the harness's own. A fast wrong answer earns nothing.
SpeedSample sample_of(Variant variant) {
  const auto [m, n, k] = kSpeedShape;
  lesson03::bench::Bench problem(m, n, k, lesson03::bench::Input::Uniform);
  const MeasureOptions options = speed_options(1000);
  SpeedSample sample = speed_sample(course::measure(problem.trial(variant), options));
  const auto& ceiling = ceilings::cublas_sgemm(m, n, k);
  sample.ceiling = ceiling.name;
  if (!sample.failure.empty())
    return sample;
  add_speedup(sample, course::measure(problem.trial(Variant::Naive), options), "naive");
  sample.share = gflop_per_s(problem.flops(), sample.time_ms) / ceiling.value;
  return sample;
}

}  // namespace

COURSE_CORRECT_TEST("naive_uncoalesced.correct", check_correct(Variant::NaiveUncoalesced));
COURSE_CORRECT_TEST("naive.correct", check_correct(Variant::Naive));

// The graded tile edge through multiply(), and every other edge multiply_tiled() accepts: a
// kernel right only at TILE = 32 is wrong.
TEST_CASE("tiled.correct") {
  check_correct(Variant::Tiled);
  for (const int tile : kTileSweep)
    if (tile != kTiledTile)
      check_correct(Rung{Variant::Tiled, tile});
}
COURSE_SPEED_TEST("tiled.speed", Graded::Share, sample_of(Variant::Tiled));

COURSE_CORRECT_TEST("register_1d.correct", check_correct(Variant::Register1d));
COURSE_SPEED_TEST("register_1d.speed", Graded::Share, sample_of(Variant::Register1d));

COURSE_CORRECT_TEST("register_2d.correct", check_correct(Variant::Register2d));
COURSE_SPEED_TEST("register_2d.speed", Graded::Share, sample_of(Variant::Register2d));

COURSE_CORRECT_TEST("warptiled.correct", check_correct(Variant::Warptiled));
COURSE_SPEED_TEST("warptiled.speed", Graded::Share, sample_of(Variant::Warptiled));

// Runs without a GPU: every check happens before the launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  float* a = fake;
  float* b = fake + 1000;
  float* c = fake + 2000;
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    const Variant v = info.variant;
    const auto call = [v](const float* d_a, const float* d_b, float* d_c, int m, int n, int k) {
      multiply(v, d_a, d_b, d_c, m, n, k);
    };
    check_product_refusals(call, a, b, c, kMaxExtent);
    CHECK_THROWS_WITH_AS(multiply(v, a, b, a + 50, 10, 10, 10), doctest::Contains("overlaps"),
                         std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, b - 50, 10, 10, 10), std::invalid_argument);
    check_empty_products<float, float>(call);
  }
  for (const int tile : {-1, 0, 3, 12, 64}) {
    CAPTURE(tile);
    CHECK_THROWS_WITH_AS(multiply_tiled(tile, a, b, c, 10, 10, 10),
                         doctest::Contains("4, 8, 16 or 32"), std::invalid_argument);
  }
  for (const int tile : kTileSweep) {
    CAPTURE(tile);
    CHECK_THROWS_AS(multiply_tiled(tile, a, b, c, -1, 10, 10), std::invalid_argument);
    CHECK_THROWS_AS(multiply_tiled(tile, nullptr, b, c, 10, 10, 10), std::invalid_argument);
    CHECK_NOTHROW(multiply_tiled(tile, nullptr, nullptr, nullptr, 0, 10, 10));
  }
}
