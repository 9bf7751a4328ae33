// Lesson 02's tests: every rung bit-exact on every shape, its const input left unchanged, its
// speed graded as a ratio measured in this run, and the launcher's refusal of bad arguments. Test
// names, thresholds and points come from the grading table in lessons/02_transpose/README.md.
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "course/testing.hpp"
#include "transpose.cuh"
#include "transpose_bench.hpp"
#include "transpose_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson02;

struct Shape {
  int rows;
  int cols;
};

// 1 x 1 and thin shapes, one off a tile either way, multiples of 4 that are not multiples of a
// tile (the vectorized rung's own path), odd sizes, and the demo's default size. Between them
// (and the offsets of check_correct) every path a driver may choose runs: the vectorized rung's
// float4 kernel (both extents multiples of 4, both pointers aligned) and its fallback for each
// reason alone (rows, cols, the input's or the output's alignment).
std::vector<Shape> correctness_shapes() {
  if (sanitize_mode())  // each path once: thin, ragged both ways, the float4 path, several tiles
    return {{1, 1}, {1, 1000}, {33, 17}, {64, 68}, {132, 200}, {130, 97}};
  std::vector<Shape> shapes{{1, 1},   {1, 1000},    {1000, 1},   {33, 17},
                            {17, 33}, {31, 32},     {32, 33},    {4, 4},
                            {64, 68}, {1000, 1000}, {1028, 516}, {4097, 1023}};
  if (!quick_mode())
    shapes.push_back({8192, 8192});
  return shapes;
}

// Poisoned floats after the output: a write there is a bug.
std::size_t guard_floats() {
  return guard_elements(64);
}

// Where the buffers start: a float past the start of their allocation, or at it (cudaMalloc's
// 256-byte alignment). Each pointer is offset on its own, so a rung that checks the alignment of
// one pointer and assumes the other's is caught.
struct Offsets {
  std::size_t in = 0;
  std::size_t out = 0;
};

std::string context(Variant variant, Shape shape, std::string_view input, std::uint64_t seed,
                    Offsets offsets) {
  return std::string(name_of(variant)) + " " + std::to_string(shape.rows) + "x" +
         std::to_string(shape.cols) + " " + std::string(input) + " input, seed " +
         std::to_string(seed) +
         offset_text("input", offsets.in, "{} float(s) past 16-byte alignment") +
         offset_text("output", offsets.out, "{} float(s) past 16-byte alignment");
}

// What @p variant must produce from @p input.
std::vector<float> expected_of(Variant variant, const std::vector<float>& input, Shape shape) {
  return variant == Variant::Copy ? input : transpose_reference(input, shape.rows, shape.cols);
}

Extent extent_of(Variant variant, Shape shape) {
  const auto rows = static_cast<std::size_t>(shape.rows),
             cols = static_cast<std::size_t>(shape.cols);
  return variant == Variant::Copy ? Extent{cols, rows} : Extent{rows, cols};
}

// The buffers of one correctness run: the input at offsets.in floats into its allocation, the
// output at offsets.out floats into its own, followed by the guard.
struct Buffers {
  Buffers(Shape shape, Offsets offsets)
      : count(static_cast<std::size_t>(shape.rows) * shape.cols),
        offsets(offsets),
        guard(guard_floats()),
        in(count + offsets.in),
        out(count + offsets.out + guard) {}
  void upload(const std::vector<float>& input) {
    CUDA_CHECK(cudaMemcpy(in.data() + offsets.in, input.data(), count * sizeof(float),
                          cudaMemcpyHostToDevice));
  }
  std::size_t count;
  Offsets offsets;
  std::size_t guard;
  DeviceBuffer<float> in;
  DeviceBuffer<float> out;
};

// Runs @p variant on the input in @p buffers (output poisoned first) and checks that the input
// is as uploaded, and every output element and the guard after it against @p input.
void run_and_check(Variant variant, Shape shape, Buffers& buffers, const std::vector<float>& input,
                   const std::string& where) {
  buffers.out.poison();
  const float* in_at = buffers.in.data() + buffers.offsets.in;
  transpose(variant, in_at, buffers.out.data() + buffers.offsets.out, shape.rows, shape.cols);
  CUDA_CHECK(cudaDeviceSynchronize());
  // The input is const: a rung may not use it as scratch, even if its output is right.
  COURSE_CHECK_UNCHANGED(in_at, input, "in", where);
  const auto all = buffers.out.to_host();
  const std::span<const float> got(all.data() + buffers.offsets.out, buffers.count);
  COURSE_CHECK_MATCH(
      compare_exact<float>(got, expected_of(variant, input, shape), extent_of(variant, shape)),
      where);
  if (buffers.guard != 0)
    CHECK_MESSAGE(still_poisoned(std::span<const float>(all).last(buffers.guard)),
                  where << ": the kernel wrote past the end of the output");
}

// Runs @p variant on one input and checks every output element and the guard after it.
void check_one(Variant variant, Shape shape, Pattern pattern, std::uint64_t seed,
               Offsets offsets = {}) {
  Buffers buffers(shape, offsets);
  const auto input = pattern_floats(pattern, buffers.count, seed);
  buffers.upload(input);
  run_and_check(variant, shape, buffers, input,
                context(variant, shape, to_string(pattern), seed, offsets));
}

// A second call on the same buffers, after a few elements of the input changed (none near its
// start or end): what a launcher remembers from the first call -- a result kept for these
// pointers, or for a fingerprint of a few input elements -- is now wrong.
void check_changed_input(Variant variant, Shape shape, std::uint64_t seed) {
  Buffers buffers(shape, {});
  auto input = pattern_floats(Pattern::Uniform, buffers.count, seed);
  buffers.upload(input);
  const std::string where = context(variant, shape, "uniform", seed, {});
  run_and_check(variant, shape, buffers, input, where);
  const auto changes = uniform_floats(8, derive_seed(seed, 1), 2.0f, 3.0f);  // outside [-1, 1)
  for (std::size_t k = 0; k < changes.size(); ++k)
    change_element(input, buffers.in.data(), spread_element(buffers.count, k), changes[k]);
  run_and_check(variant, shape, buffers, input,
                where + ", called again after 8 input elements changed");
}

void check_correct(Variant variant) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const Shape shape : correctness_shapes()) {
    const bool large = static_cast<std::size_t>(shape.rows) * shape.cols > (1u << 24);
    for (const Pattern pattern : {Pattern::Uniform, Pattern::Index}) {
      if (large && pattern == Pattern::Index)
        continue;  // one input at the largest size
      check_one(variant, shape, pattern, derive_seed(base, stream++));
    }
  }
  // Pointers that are not 16-byte aligned, each on its own and both: a rung may not assume
  // cudaMalloc's alignment. 64 x 68 and 1028 x 516 are shapes the vectorized rung's float4 path
  // takes when both pointers are aligned; 33 x 17 is one it never takes.
  for (const Shape shape :
       fewer_under_sanitizer<Shape>({{64, 68}, {1028, 516}, {33, 17}}, {{64, 68}, {33, 17}}))
    for (const Offsets offsets :
         {Offsets{1, 0}, Offsets{0, 1}, Offsets{1, 1}, Offsets{2, 0}, Offsets{0, 2}})
      check_one(variant, shape, Pattern::Uniform, derive_seed(base, stream++), offsets);
  // Called twice on the same buffers, with a changed input.
  for (const Shape shape : fewer_under_sanitizer<Shape>({{64, 68}, {1000, 1000}}, {{64, 68}}))
    check_changed_input(variant, shape, derive_seed(base, stream++));
}

// The speed tests' shape: the demo's default.
constexpr Shape kSpeedShape{kBenchRows, kBenchCols};

// Times @p variant (and @p baseline, in the same run) at the default size with course::measure:
// fresh inputs before every launch, every timed output checked bit-exact, the harness's own
// stream and clock. A fast wrong answer, or work the timer does not see, earns nothing.
SpeedSample sample_of(Variant variant, std::optional<Variant> baseline) {
  Bench bench(kSpeedShape.rows, kSpeedShape.cols);
  const MeasureOptions options = speed_options(1000);
  SpeedSample sample = speed_sample(measure(bench.trial(variant), options));
  if (baseline && sample.failure.empty())
    add_speedup(sample, measure(bench.trial(*baseline), options), name_of(*baseline));
  if (sample.failure.empty())
    add_share_of_device_copy(sample, bench.bytes());
  return sample;
}

}  // namespace

COURSE_CORRECT_TEST("copy.correct", check_correct(Variant::Copy));
COURSE_CORRECT_TEST("naive.correct", check_correct(Variant::Naive));

COURSE_CORRECT_TEST("tiled.correct", check_correct(Variant::Tiled));
COURSE_SPEED_TEST("tiled.speed", Graded::Share,
                  sample_of(Variant::Tiled, unless_in_baseline_process(Variant::Naive)));

COURSE_CORRECT_TEST("padded.correct", check_correct(Variant::Padded));
// tiled is the student's too: its time comes from its own row, run in a process of its own,
// where nothing tells the student's code that it serves as a baseline.
COURSE_SPEED_TEST("padded.speed", Graded::Speedup,
                  speedup_over_row_apart(sample_of(Variant::Padded, std::nullopt), "tiled.speed",
                                         "tiled"));

COURSE_CORRECT_TEST("coarsened.correct", check_correct(Variant::Coarsened));
COURSE_SPEED_TEST("coarsened.speed", Graded::Share, sample_of(Variant::Coarsened, Variant::Naive));

COURSE_CORRECT_TEST("vectorized.correct", check_correct(Variant::Vectorized));
COURSE_SPEED_TEST("vectorized.speed", Graded::Share,
                  sample_of(Variant::Vectorized, Variant::Naive));

// Runs without a GPU: every check happens before the launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    CHECK_THROWS_WITH_AS(transpose(info.variant, fake, fake + 100, -1, 10),
                         doctest::Contains("0 <= rows, cols <="), std::invalid_argument);
    CHECK_THROWS_AS(transpose(info.variant, fake, fake + 100, 10, -1), std::invalid_argument);
    CHECK_THROWS_AS(transpose(info.variant, fake, fake + (1 << 30), kMaxExtent + 1, 1),
                    std::invalid_argument);
    // Within both extents, but more elements than a 32-bit index can safely address.
    CHECK_THROWS_WITH_AS(
        transpose(info.variant, fake, fake + (std::size_t{1} << 30), 1 << 14, (1 << 14) + 1),
        doctest::Contains("2^28"), std::invalid_argument);
    CHECK_THROWS_AS(
        transpose(info.variant, fake, fake + (std::size_t{1} << 30), kMaxExtent, kMaxExtent),
        std::invalid_argument);
    CHECK_THROWS_AS(transpose(info.variant, nullptr, fake, 10, 10), std::invalid_argument);
    CHECK_THROWS_AS(transpose(info.variant, fake, nullptr, 10, 10), std::invalid_argument);
    CHECK_THROWS_WITH_AS(transpose(info.variant, fake, fake + 50, 10, 10),
                         doctest::Contains("overlap"), std::invalid_argument);
    // An empty matrix is a no-op, even with null pointers.
    CHECK_NOTHROW(transpose(info.variant, nullptr, nullptr, 0, 10));
    CHECK_NOTHROW(transpose(info.variant, nullptr, nullptr, 10, 0));
  }
}
