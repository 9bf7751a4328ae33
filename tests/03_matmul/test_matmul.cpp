// Lesson 03's tests: every rung on every shape (any M, N, K, ragged edges, rectangles, empty
// products, the launcher's limits, each pointer misaligned), its const A and B left unchanged,
// the tiled rung at every tile edge, its speed graded as a share of cuBLAS SGEMM measured in this
// run (through the harness's measuring procedure, matmul_bench.hpp), and the launcher's refusal
// of bad arguments. Test names, thresholds and points come from the grading table in
// lessons/03_matmul/README.md.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "course/testing.hpp"
#include "matmul.cuh"
#include "matmul_bench.hpp"
#include "matmul_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson03;

struct Shape {
  int m;
  int n;
  int k;
};

std::string to_string(Shape shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
}

double multiply_adds(Shape shape) {
  return double(shape.m) * shape.n * shape.k;
}

// M x N x K. Single elements; prime and odd sizes; a block tile (128) and a warp (32) plus or
// minus one in each dimension; whole 128 x 128 x 8 tiles (the warptiled rung's 16-byte path) and
// whole M, N tiles with a ragged K; long thin rectangles; k = 1; empty products (C = 0 when
// k = 0); and, outside the sanitizer runs, 1000^3 and the demo's 4096^3.
std::vector<Shape> correctness_shapes() {
  std::vector<Shape> shapes{{1, 1, 1},       {17, 33, 9},   {127, 255, 63}, {31, 33, 32},
                            {129, 127, 130}, {127, 129, 1}, {128, 128, 8},  {256, 384, 136},
                            {256, 128, 20},  {1, 4096, 7},  {4096, 1, 33},  {33, 17, 4096},
                            {5, 7, 0},       {0, 5, 5},     {5, 0, 5}};
  if (!quick_mode()) {
    shapes.push_back({1000, 1000, 1000});
    shapes.push_back({4096, 4096, 4096});
  }
  if (sanitize_mode()) {
    // Racecheck tracks every shared-memory access: the shapes of at most 300k multiply-adds
    // keep every kind of edge, and a ragged multi-tile shape stands in for the larger ones.
    std::erase_if(shapes, [](Shape shape) { return multiply_adds(shape) > 3e5; });
    shapes.push_back({65, 63, 66});
  }
  return shapes;
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

constexpr std::size_t kGuard = 64;  // poisoned floats after each buffer: a write there is a bug

std::size_t guard() {
  return sanitize_mode() ? 0 : kGuard;
}

// Where each buffer starts, in floats past a 256-byte boundary: 1 puts it one float past a
// 16-byte boundary, where no float4 access is possible.
struct Offsets {
  std::size_t a = 0;
  std::size_t b = 0;
  std::size_t c = 0;
};

std::string to_string(Offsets offsets) {
  if (offsets.a == 0 && offsets.b == 0 && offsets.c == 0)
    return "";
  std::string text;
  auto add = [&](const char* name, std::size_t offset) {
    if (offset != 0)
      text += std::string(text.empty() ? "" : ", ") + name;
  };
  add("A", offsets.a);
  add("B", offsets.b);
  add("C", offsets.c);
  return ", " + text + " one float past a 16-byte boundary";
}

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
         " input, seed " + std::to_string(seed) + to_string(offsets);
}

// A device buffer holding @p values starting @p offset floats in, followed by guard() floats of
// NaN: a kernel that reads past the end of A or B computes with NaN. An empty matrix (k = 0)
// still gets one float, so that its pointer is not null.
DeviceBuffer<float> upload_at(const std::vector<float>& values, std::size_t offset) {
  DeviceBuffer<float> buffer(std::max<std::size_t>(1, values.size() + offset + guard()));
  buffer.poison();
  if (!values.empty())
    CUDA_CHECK(cudaMemcpy(buffer.data() + offset, values.data(), values.size() * sizeof(float),
                          cudaMemcpyHostToDevice));
  return buffer;
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
  const auto d_a = upload_at(a, offsets.a);
  const auto d_b = upload_at(b, offsets.b);
  DeviceBuffer<float> d_c(std::max<std::size_t>(1, offsets.c + c_count + guard()));
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
  std::vector<float> poison(kGuard);
  std::memset(poison.data(), 0xFF, kGuard * sizeof(float));
  CHECK_MESSAGE(
      std::memcmp(all.data() + offsets.c + c_count, poison.data(), guard() * sizeof(float)) == 0,
      where << ": the kernel wrote past the end of C");
  CHECK_MESSAGE(std::memcmp(all.data(), poison.data(), offsets.c * sizeof(float)) == 0,
                where << ": the kernel wrote before the start of C");
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
  auto d_a = upload_at(a, 0);
  auto d_b = upload_at(b, 0);
  DeviceBuffer<float> d_c(std::size_t(m) * n + guard());
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
  auto change = [](std::vector<float>& host, DeviceBuffer<float>& device, std::size_t at) {
    host[at] = changed(host[at]);
    CUDA_CHECK(cudaMemcpy(device.data() + at, &host[at], sizeof(float), cudaMemcpyHostToDevice));
  };
  run_and_check("");
  change(a, d_a, std::size_t(m / 2) * k + k / 2);
  run_and_check(", then again with A[64][65] changed, in the same buffers");
  change(b, d_b, std::size_t(k / 2) * n + n / 2);
  run_and_check(", then again with B[65][63] changed too, in the same buffers");
}

void check_correct(Rung rung) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const Shape shape : correctness_shapes()) {
    // The matmul lab report's matrices on every shape but the largest (one input there is enough).
    for (const Input input : {Input::Uniform, Input::LabReport}) {
      if (input == Input::LabReport && (multiply_adds(shape) > 1e9 + 1 || sanitize_mode()))
        continue;
      check_one(rung, shape, input, derive_seed(base, stream++));
    }
  }
  for (const Shape shape : limit_shapes())
    check_one(rung, shape, Input::Uniform, derive_seed(base, stream++));
  // Each pointer one float past a 16-byte boundary, alone and all together: no rung may assume
  // cudaMalloc's alignment of any of them. 128 x 128 x 8 and 256 x 384 x 136 (not under the
  // sanitizers) would take the warptiled rung's 16-byte path if the pointers allowed it.
  std::vector<Shape> misaligned{{128, 128, 8},
                                sanitize_mode() ? Shape{65, 63, 18} : Shape{129, 127, 130}};
  if (!quick_mode())
    misaligned.push_back({256, 384, 136});
  // (Alignment moves global accesses only: racecheck, which checks shared memory, skips these.)
  if (sanitize_tool() == "racecheck")
    misaligned.clear();
  for (const Shape shape : misaligned)
    for (const Offsets offsets :
         {Offsets{1, 0, 0}, Offsets{0, 1, 0}, Offsets{0, 0, 1}, Offsets{1, 1, 1}})
      check_one(rung, shape, Input::Uniform, derive_seed(base, stream++), offsets);
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
  MeasureOptions options;
  options.seed = derive_seed(base_seed(), 1000);
  const Measurement rung = course::measure(problem.trial(variant), options);
  SpeedSample sample;
  sample.time_ms = rung.timing.median_ms;
  sample.failure = rung.failure;
  const auto& ceiling = ceilings::cublas_sgemm(m, n, k);
  sample.ceiling = ceiling.name;
  if (!sample.failure.empty())
    return sample;
  const Measurement naive = course::measure(problem.trial(Variant::Naive), options);
  if (!naive.sound())
    sample.failure = naive.failure;
  sample.speedup = naive.timing.median_ms / sample.time_ms;
  sample.baseline = "naive";
  sample.share = gflop_per_s(problem.flops(), sample.time_ms) / ceiling.value;
  return sample;
}

}  // namespace

TEST_CASE("naive_uncoalesced.correct") {
  check_correct(Variant::NaiveUncoalesced);
}
TEST_CASE("naive.correct") {
  check_correct(Variant::Naive);
}
// The graded tile edge through multiply(), and every other edge multiply_tiled() accepts: a
// kernel right only at TILE = 32 is wrong.
TEST_CASE("tiled.correct") {
  check_correct(Variant::Tiled);
  for (const int tile : kTileSweep)
    if (tile != kTiledTile)
      check_correct(Rung{Variant::Tiled, tile});
}
TEST_CASE("register_1d.correct") {
  check_correct(Variant::Register1d);
}
TEST_CASE("register_2d.correct") {
  check_correct(Variant::Register2d);
}
TEST_CASE("warptiled.correct") {
  check_correct(Variant::Warptiled);
}

TEST_CASE("tiled.speed") {
  COURSE_CHECK_SPEED("tiled.speed", Graded::Share, [] { return sample_of(Variant::Tiled); });
}
TEST_CASE("register_1d.speed") {
  COURSE_CHECK_SPEED("register_1d.speed", Graded::Share,
                     [] { return sample_of(Variant::Register1d); });
}
TEST_CASE("register_2d.speed") {
  COURSE_CHECK_SPEED("register_2d.speed", Graded::Share,
                     [] { return sample_of(Variant::Register2d); });
}
TEST_CASE("warptiled.speed") {
  COURSE_CHECK_SPEED("warptiled.speed", Graded::Share,
                     [] { return sample_of(Variant::Warptiled); });
}

// Runs without a GPU: every check happens before the launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  float* a = fake;
  float* b = fake + 1000;
  float* c = fake + 2000;
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    const Variant v = info.variant;
    CHECK_THROWS_WITH_AS(multiply(v, a, b, c, -1, 10, 10), doctest::Contains("non-negative"),
                         std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, c, 10, -1, 10), std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, c, 10, 10, -1), std::invalid_argument);
    CHECK_THROWS_WITH_AS(multiply(v, a, b, c, kMaxExtent + 1, 1, 1), doctest::Contains("at most"),
                         std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, c, 1, kMaxExtent + 1, 1), std::invalid_argument);
    // Each dimension fits, but A (65536 x 65536) has 2^32 elements.
    CHECK_THROWS_WITH_AS(multiply(v, a, b, c, 65536, 1, 65536), doctest::Contains("2^26"),
                         std::invalid_argument);
    // One element more than kMaxElements (8192 x 8192) in A, in B, in C.
    CHECK_THROWS_WITH_AS(multiply(v, a, b, c, 8193, 1, 8192), doctest::Contains("2^26"),
                         std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, c, 1, 8192, 8193), std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, c, 8192, 8193, 1), std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, c, 1, 1, (1 << 26) + 1), std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, c, 1, 65536, 65536), std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, c, 65536, 65536, 1), std::invalid_argument);
    CHECK_THROWS_WITH_AS(multiply(v, nullptr, b, c, 10, 10, 10),
                         doctest::Contains("device pointers"), std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, nullptr, c, 10, 10, 10), std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, nullptr, 10, 10, 10), std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, nullptr, nullptr, c, 10, 10, 0), std::invalid_argument);
    CHECK_THROWS_WITH_AS(multiply(v, a, b, a + 50, 10, 10, 10), doctest::Contains("overlaps"),
                         std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, b - 50, 10, 10, 10), std::invalid_argument);
    // An empty C is a no-op, even with null pointers.
    CHECK_NOTHROW(multiply(v, nullptr, nullptr, nullptr, 0, 10, 10));
    CHECK_NOTHROW(multiply(v, nullptr, nullptr, nullptr, 10, 0, 10));
    CHECK_NOTHROW(multiply(v, nullptr, nullptr, nullptr, 0, 0, 0));
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
