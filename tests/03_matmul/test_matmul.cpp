// Lesson 03's tests: every rung on every shape (any M, N, K, ragged edges, rectangles, empty
// products), its speed graded as a share of cuBLAS SGEMM measured in this run, and the
// launcher's refusal of bad arguments. Test names, thresholds and points come from the grading
// table in lessons/03_matmul/README.md.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "course/testing.hpp"
#include "matmul.cuh"
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
  return shapes;
}

enum class Input { Uniform, Seed003 };

std::string_view to_string(Input input) {
  return input == Input::Uniform ? "uniform" : "seed-003";
}

constexpr std::size_t kGuard = 64;  // poisoned floats after each buffer: a write there is a bug

std::string context(Variant variant, Shape shape, Input input, std::uint64_t seed,
                    std::size_t offset) {
  return std::string(name_of(variant)) + " " + to_string(shape) + " (MxNxK) " +
         std::string(to_string(input)) + " input, seed " + std::to_string(seed) +
         (offset != 0 ? ", buffers offset by one float" : "");
}

// A device buffer holding @p values starting @p offset floats in, followed by kGuard floats.
DeviceBuffer<float> upload_at(const std::vector<float>& values, std::size_t offset) {
  DeviceBuffer<float> buffer(values.size() + offset + kGuard);
  buffer.poison();
  if (!values.empty())
    CUDA_CHECK(cudaMemcpy(buffer.data() + offset, values.data(), values.size() * sizeof(float),
                          cudaMemcpyHostToDevice));
  return buffer;
}

// Runs @p variant on one input; checks every element of C (course::product::check, and the CPU
// reference for small shapes) and that the guard after C is untouched.
void check_one(Variant variant, Shape shape, Input input, std::uint64_t seed, std::size_t offset) {
  const auto [m, n, k] = shape;
  const std::size_t a_count = std::size_t(m) * k, b_count = std::size_t(k) * n;
  const std::size_t c_count = std::size_t(m) * n;
  const auto a = input == Input::Uniform ? uniform_floats(a_count, derive_seed(seed, 0))
                                         : seed003_matrix_a(m, k);
  const auto b = input == Input::Uniform ? uniform_floats(b_count, derive_seed(seed, 1))
                                         : seed003_matrix_b(k, n);
  const auto d_a = upload_at(a, offset);
  const auto d_b = upload_at(b, offset);
  DeviceBuffer<float> d_c(offset + c_count + kGuard);
  d_c.poison();  // NaN in C, before it and after it: an element never written cannot pass
  const std::string where = context(variant, shape, input, seed, offset);
  INFO(where);

  multiply(variant, d_a.data() + offset, d_b.data() + offset, d_c.data() + offset, m, n, k);
  CUDA_CHECK(cudaDeviceSynchronize());

  COURSE_CHECK_MATCH(product::check(d_a.data() + offset, d_b.data() + offset, d_c.data() + offset,
                                    m, n, k, product::Second::B, seed),
                     where);
  const auto all = d_c.to_host();
  if (c_count != 0 && multiply_adds(shape) <= (1 << 20)) {
    const auto [expected, magnitude] = multiply_reference(a, b, m, n, k);
    std::vector<double> bound(c_count);
    for (std::size_t i = 0; i < c_count; ++i)
      bound[i] = product::dot_error_bound(k) * magnitude[i] + 1e-30;
    COURSE_CHECK_MATCH(compare_bounded(std::span<const float>(all.data() + offset, c_count),
                                       expected, bound, {std::size_t(n), std::size_t(m)}),
                       where + ", against matmul_cpu.hpp");
  }
  std::vector<float> poison(kGuard);
  std::memset(poison.data(), 0xFF, kGuard * sizeof(float));
  CHECK_MESSAGE(
      std::memcmp(all.data() + offset + c_count, poison.data(), kGuard * sizeof(float)) == 0,
      where << ": the kernel wrote past the end of C");
  CHECK_MESSAGE(
      std::memcmp(all.data(), poison.data(), std::min(offset, kGuard) * sizeof(float)) == 0,
      where << ": the kernel wrote before the start of C");
}

void check_correct(Variant variant) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const Shape shape : correctness_shapes()) {
    // Seed 003's matrices on every shape but the largest (one input there is enough).
    for (const Input input : {Input::Uniform, Input::Seed003}) {
      if (input == Input::Seed003 && multiply_adds(shape) > 1e9 + 1)
        continue;
      check_one(variant, shape, input, derive_seed(base, stream++), 0);
    }
  }
  // Pointers one float past a 16-byte boundary: no rung may assume cudaMalloc's alignment.
  check_one(variant, {128, 128, 8}, Input::Uniform, derive_seed(base, stream++), 1);
  check_one(variant, {129, 127, 130}, Input::Uniform, derive_seed(base, stream++), 1);
}

constexpr Shape kSpeedShape{4096, 4096, 4096};

// Times @p variant (and naive, in the same run) at 4096^3, after checking that the timed output
// is right: a fast wrong answer earns nothing.
SpeedSample measure(Variant variant) {
  const auto [m, n, k] = kSpeedShape;
  const std::uint64_t seed = derive_seed(base_seed(), 1000);
  const auto a = uniform_floats(std::size_t(m) * k, derive_seed(seed, 0));
  const auto b = uniform_floats(std::size_t(k) * n, derive_seed(seed, 1));
  DeviceBuffer<float> d_a{std::span<const float>(a)};
  DeviceBuffer<float> d_b{std::span<const float>(b)};
  DeviceBuffer<float> d_c(std::size_t(m) * n);
  d_c.poison();
  multiply(variant, d_a.data(), d_b.data(), d_c.data(), m, n, k);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto check =
      product::check(d_a.data(), d_b.data(), d_c.data(), m, n, k, product::Second::B, seed);
  REQUIRE_MESSAGE(check.ok, name_of(variant)
                                << " gives a wrong product at " << to_string(kSpeedShape)
                                << "; fix correctness first: " << check.report());

  auto time = [&](Variant v) {
    return time_on_gpu(
               [&](cudaStream_t s) { multiply(v, d_a.data(), d_b.data(), d_c.data(), m, n, k, s); })
        .median_ms;
  };
  SpeedSample sample;
  sample.time_ms = time(variant);
  sample.speedup = time(Variant::Naive) / sample.time_ms;
  sample.baseline = "naive";
  const auto& ceiling = ceilings::cublas_sgemm(m, n, k);
  sample.share = gflop_per_s(2.0 * multiply_adds(kSpeedShape), sample.time_ms) / ceiling.value;
  sample.ceiling = ceiling.name;
  return sample;
}

}  // namespace

TEST_CASE("naive_uncoalesced.correct") {
  check_correct(Variant::NaiveUncoalesced);
}
TEST_CASE("naive.correct") {
  check_correct(Variant::Naive);
}
TEST_CASE("tiled.correct") {
  check_correct(Variant::Tiled);
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
  COURSE_CHECK_SPEED("tiled.speed", Graded::Share, [] { return measure(Variant::Tiled); });
}
TEST_CASE("register_1d.speed") {
  COURSE_CHECK_SPEED("register_1d.speed", Graded::Share,
                     [] { return measure(Variant::Register1d); });
}
TEST_CASE("register_2d.speed") {
  COURSE_CHECK_SPEED("register_2d.speed", Graded::Share,
                     [] { return measure(Variant::Register2d); });
}
TEST_CASE("warptiled.speed") {
  COURSE_CHECK_SPEED("warptiled.speed", Graded::Share, [] { return measure(Variant::Warptiled); });
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
    CHECK_THROWS_WITH_AS(multiply(v, a, b, c, 65536, 1, 65536), doctest::Contains("2^31"),
                         std::invalid_argument);
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
