// Lesson 02's tests: every rung bit-exact on every shape, its speed graded as a ratio measured in
// this run, and the launcher's refusal of bad arguments. Test names, thresholds and points come
// from the grading table in lessons/02_transpose/README.md.
#include <cstring>
#include <string>
#include <vector>

#include "course/testing.hpp"
#include "transpose.cuh"
#include "transpose_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson02;

struct Shape {
  int rows;
  int cols;
};

// 1 x 1 and thin shapes, one off a tile either way, multiples of 4 that are not multiples of a
// tile (the vectorized rung's own path), odd sizes, and the demo's default size.
std::vector<Shape> correctness_shapes() {
  std::vector<Shape> shapes{{1, 1},     {1, 1000},   {1000, 1},    {33, 17},   {17, 33},
                            {31, 32},   {32, 33},    {4, 4},       {64, 68},   {1000, 1000},
                            {1028, 516}, {4097, 1023}};
  if (!quick_mode()) shapes.push_back({8192, 8192});
  return shapes;
}

constexpr std::size_t kGuard = 64;  // poisoned floats after the output: a write there is a bug

std::string context(Variant variant, Shape shape, std::string_view input, std::uint64_t seed,
                    std::size_t offset) {
  return std::string(name_of(variant)) + " " + std::to_string(shape.rows) + "x" +
         std::to_string(shape.cols) + " " + std::string(input) + " input, seed " +
         std::to_string(seed) + (offset != 0 ? ", buffers offset by one float" : "");
}

// Runs @p variant on one input and checks every output element and the guard after it.
void check_one(Variant variant, Shape shape, Pattern pattern, std::uint64_t seed,
               std::size_t offset) {
  const std::size_t count = static_cast<std::size_t>(shape.rows) * shape.cols;
  const auto input = pattern_floats(pattern, count, seed);
  DeviceBuffer<float> d_in(count + offset);
  d_in.upload(std::span<const float>(input));  // at the start...
  if (offset != 0) CUDA_CHECK(cudaMemcpy(d_in.data() + offset, input.data(), count * sizeof(float),
                                         cudaMemcpyHostToDevice));  // ...or one float in
  DeviceBuffer<float> d_out(count + offset + kGuard);
  d_out.poison();
  transpose(variant, d_in.data() + offset, d_out.data() + offset, shape.rows, shape.cols);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto all = d_out.to_host();
  const std::span<const float> got(all.data() + offset, count);

  const bool copy = variant == Variant::Copy;
  const auto expected = copy ? input : transpose_reference(input, shape.rows, shape.cols);
  const Extent extent = copy ? Extent{static_cast<std::size_t>(shape.cols), static_cast<std::size_t>(shape.rows)}
                             : Extent{static_cast<std::size_t>(shape.rows), static_cast<std::size_t>(shape.cols)};
  const std::string where = context(variant, shape, to_string(pattern), seed, offset);
  COURSE_CHECK_MATCH(compare_exact<float>(got, expected, extent), where);
  const std::vector<float> guard(all.end() - kGuard, all.end());
  std::vector<float> poison(kGuard);
  std::memset(poison.data(), 0xFF, kGuard * sizeof(float));
  CHECK_MESSAGE(std::memcmp(guard.data(), poison.data(), kGuard * sizeof(float)) == 0,
                where << ": the kernel wrote past the end of the output");
}

void check_correct(Variant variant) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const Shape shape : correctness_shapes()) {
    const bool large = static_cast<std::size_t>(shape.rows) * shape.cols > (1u << 24);
    for (const Pattern pattern : {Pattern::Uniform, Pattern::Index}) {
      if (large && pattern == Pattern::Index) continue;  // one input at the largest size
      check_one(variant, shape, pattern, derive_seed(base, stream++), 0);
    }
  }
  // Pointers that are not 16-byte aligned: a rung may not assume cudaMalloc's alignment.
  check_one(variant, {64, 68}, Pattern::Uniform, derive_seed(base, stream++), 1);
  check_one(variant, {33, 17}, Pattern::Uniform, derive_seed(base, stream++), 1);
}

constexpr Shape kSpeedShape{8192, 8192};

// Times @p variant (and @p baseline, in the same run) at the default size, after checking that
// the timed output is right: a fast wrong answer earns nothing.
SpeedSample measure(Variant variant, std::optional<Variant> baseline) {
  const auto [rows, cols] = kSpeedShape;
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  const auto input = uniform_floats(count, derive_seed(base_seed(), 1000));
  DeviceBuffer<float> d_in{std::span<const float>(input)};
  DeviceBuffer<float> d_out(count);
  d_out.poison();
  transpose(variant, d_in.data(), d_out.data(), rows, cols);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto got = d_out.to_host();
  const auto expected = variant == Variant::Copy ? input : transpose_reference(input, rows, cols);
  REQUIRE_MESSAGE(std::memcmp(got.data(), expected.data(), count * sizeof(float)) == 0,
                  name_of(variant) << " gives a wrong transpose at 8192x8192; fix correctness first");

  auto time = [&](Variant v) {
    return time_on_gpu([&](cudaStream_t s) { transpose(v, d_in.data(), d_out.data(), rows, cols, s); })
        .median_ms;
  };
  SpeedSample sample;
  sample.time_ms = time(variant);
  if (baseline) {
    sample.speedup = time(*baseline) / sample.time_ms;
    sample.baseline = name_of(*baseline);
  }
  sample.share = gb_per_s(2.0 * count * sizeof(float), sample.time_ms) / ceilings::device_copy().value;
  sample.ceiling = "device copy";
  return sample;
}

}  // namespace

TEST_CASE("copy.correct") { check_correct(Variant::Copy); }
TEST_CASE("naive.correct") { check_correct(Variant::Naive); }
TEST_CASE("tiled.correct") { check_correct(Variant::Tiled); }
TEST_CASE("padded.correct") { check_correct(Variant::Padded); }
TEST_CASE("coarsened.correct") { check_correct(Variant::Coarsened); }
TEST_CASE("vectorized.correct") { check_correct(Variant::Vectorized); }

TEST_CASE("tiled.speed") {
  COURSE_CHECK_SPEED("tiled.speed", Graded::Share, [] { return measure(Variant::Tiled, Variant::Naive); });
}
TEST_CASE("padded.speed") {
  COURSE_CHECK_SPEED("padded.speed", Graded::Speedup, [] { return measure(Variant::Padded, Variant::Tiled); });
}
TEST_CASE("coarsened.speed") {
  COURSE_CHECK_SPEED("coarsened.speed", Graded::Share, [] { return measure(Variant::Coarsened, Variant::Naive); });
}
TEST_CASE("vectorized.speed") {
  COURSE_CHECK_SPEED("vectorized.speed", Graded::Share, [] { return measure(Variant::Vectorized, Variant::Naive); });
}

// Runs without a GPU: every check happens before the launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    CHECK_THROWS_WITH_AS(transpose(info.variant, fake, fake + 100, -1, 10), doctest::Contains("0 <= rows, cols <="),
                         std::invalid_argument);
    CHECK_THROWS_AS(transpose(info.variant, fake, fake + 100, 10, -1), std::invalid_argument);
    CHECK_THROWS_AS(transpose(info.variant, fake, fake + (1 << 30), kMaxExtent + 1, 1), std::invalid_argument);
    CHECK_THROWS_AS(transpose(info.variant, nullptr, fake, 10, 10), std::invalid_argument);
    CHECK_THROWS_AS(transpose(info.variant, fake, nullptr, 10, 10), std::invalid_argument);
    CHECK_THROWS_WITH_AS(transpose(info.variant, fake, fake + 50, 10, 10), doctest::Contains("overlap"),
                         std::invalid_argument);
    // An empty matrix is a no-op, even with null pointers.
    CHECK_NOTHROW(transpose(info.variant, nullptr, nullptr, 0, 10));
    CHECK_NOTHROW(transpose(info.variant, nullptr, nullptr, 10, 0));
  }
}
