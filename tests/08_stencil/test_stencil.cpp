// Lesson 08's tests: every rung against the double-precision reference on every grid, boundary
// points bit-exact, nothing written outside the output; the Jacobi driver against repeated
// reference sweeps; speed as ratios measured in this run; bad arguments refused. Test names,
// thresholds and points come from the grading table in lessons/08_stencil/README.md.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "course/testing.hpp"
#include "stencil.cuh"
#include "stencil_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson08;

// Inputs and coefficients are non-negative, so the seven products never cancel: a float sum of
// seven terms is within 7 * 2^-24 = 4.2e-7 of the exact sum, relative, in any order of
// evaluation (with or without fused multiply-adds). 1e-5 leaves a wide margin; a wrong
// neighbour, coefficient or plane moves a value by far more. The absolute part only matters for
// exact zeros.
constexpr Tolerance kTolerance{1e-30, 1e-5};
constexpr std::size_t kGuard = 64;  // poisoned floats before and after the output

// 1 x 1 x 1; extents below 3 (all boundary); the smallest interior; one off each rung's tile
// (6, 8; 30, 32 in x-y); z-chunks that end part-way (32 planes per block, 24 for tuned);
// primes; thin and non-cubic grids; 512^3 for speed.
std::vector<Grid> correctness_grids() {
  std::vector<Grid> grids{{1, 1, 1},    {2, 5, 7},    {40, 2, 40},  {1, 40, 40},   {3, 3, 3},
                          {17, 17, 17}, {33, 17, 9},  {257, 3, 5},  {3, 257, 5},   {5, 3, 257},
                          {7, 13, 6},   {31, 30, 33}, {35, 65, 66}, {64, 31, 130}, {100, 100, 100}};
  if (!quick_mode())
    grids.push_back({512, 512, 512});
  return grids;
}

std::string shape_text(Grid g) {
  return std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz);
}

Extent extent_of(Grid g) {
  return {static_cast<std::size_t>(g.nx), static_cast<std::size_t>(g.ny),
          static_cast<std::size_t>(g.nz)};
}

// Seven distinct positive weights: a swapped pair of neighbours changes the result.
Coefficients random_coefficients(std::uint64_t seed) {
  const auto w = uniform_floats(7, seed, 0.05f, 1.0f);
  return {w[0], w[1], w[2], w[3], w[4], w[5], w[6]};
}

bool is_boundary(std::size_t i, Grid g) {
  const std::size_t plane = static_cast<std::size_t>(g.nx) * g.ny;
  const int z = static_cast<int>(i / plane);
  const int y = static_cast<int>(i % plane / g.nx);
  const int x = static_cast<int>(i % g.nx);
  return !(x >= 1 && x < g.nx - 1 && y >= 1 && y < g.ny - 1 && z >= 1 && z < g.nz - 1);
}

// Checks @p got against @p expected within the tolerance, and its boundary points bit for bit
// against @p input.
void check_field(std::span<const float> got, std::span<const double> expected,
                 std::span<const float> input, Grid g, const std::string& where) {
  COURSE_CHECK_MATCH(compare_close(got, expected, kTolerance, extent_of(g)), where);
  // Boundary points only (interior points zeroed on both sides), so a report names them by
  // their coordinates.
  std::vector<float> got_edge(got.size(), 0.0f), want_edge(got.size(), 0.0f);
  for (std::size_t i = 0; i < got.size(); ++i)
    if (is_boundary(i, g)) {
      got_edge[i] = got[i];
      want_edge[i] = input[i];
    }
  COURSE_CHECK_MATCH(compare_exact<float>(got_edge, want_edge, extent_of(g)),
                     where + ", boundary points (copied unchanged)");
}

// The kGuard floats before and after the output still hold the poison.
void check_guards(const std::vector<float>& all, std::size_t offset, const std::string& where) {
  std::vector<unsigned char> poison(kGuard * sizeof(float), 0xFF);
  CHECK_MESSAGE(std::memcmp(all.data() + offset - kGuard, poison.data(), poison.size()) == 0,
                where << ": the kernel wrote before the start of the output");
  CHECK_MESSAGE(std::memcmp(all.data() + all.size() - kGuard, poison.data(), poison.size()) == 0,
                where << ": the kernel wrote past the end of the output");
}

// Runs @p variant on one input; @p shift moves both buffers one float off their alignment.
void check_one(Variant variant, Grid g, Pattern pattern, std::uint64_t seed, std::size_t shift) {
  const std::size_t count = g.count();
  const auto input = pattern == Pattern::Index ? pattern_floats(Pattern::Index, count, seed)
                                               : uniform_floats(count, seed, 0.0f, 1.0f);
  const Coefficients c = random_coefficients(seed ^ 0x5eed);
  DeviceBuffer<float> d_in(count + shift);
  CUDA_CHECK(
      cudaMemcpy(d_in.data() + shift, input.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  const std::size_t offset = kGuard + shift;
  DeviceBuffer<float> d_out(offset + count + kGuard);
  d_out.poison();
  stencil(variant, d_in.data() + shift, d_out.data() + offset, g, c);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto all = d_out.to_host();
  const std::string where = std::string(name_of(variant)) + " " + shape_text(g) + " " +
                            std::string(pattern == Pattern::Index ? "index" : "uniform [0, 1)") +
                            " input, seed " + std::to_string(seed) +
                            (shift != 0 ? ", buffers one float off alignment" : "");
  check_field(std::span<const float>(all).subspan(offset, count), stencil_reference(input, g, c),
              input, g, where);
  check_guards(all, offset, where);
}

void check_correct(Variant variant) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const Grid g : correctness_grids()) {
    check_one(variant, g, Pattern::Uniform, derive_seed(base, stream++), 0);
    // Element i holds i (exact up to 2^24): a value from the wrong place names where it came from.
    if (g.count() <= (std::size_t{1} << 24))
      check_one(variant, g, Pattern::Index, derive_seed(base, stream++), 0);
  }
  check_one(variant, {35, 65, 66}, Pattern::Uniform, derive_seed(base, stream++), 1);
}

constexpr Grid kSpeedGrid{512, 512, 512};

// Times @p variant and basic at 512^3 in the same run, after checking that the timed output is
// right: a fast wrong answer earns nothing. GB/s counts one read and one write per point.
SpeedSample measure(Variant variant) {
  const Grid g = kSpeedGrid;
  const std::size_t count = g.count();
  const std::uint64_t seed = derive_seed(base_seed(), 1000);
  const auto input = uniform_floats(count, seed, 0.0f, 1.0f);
  const Coefficients c = random_coefficients(seed);
  DeviceBuffer<float> d_in{std::span<const float>(input)};
  DeviceBuffer<float> d_out(count);
  d_out.poison();
  stencil(variant, d_in.data(), d_out.data(), g, c);
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE_MESSAGE(
      compare_close(d_out.to_host(), stencil_reference(input, g, c), kTolerance, extent_of(g)).ok,
      name_of(variant) << " is wrong at 512x512x512; fix correctness first");
  auto time = [&](Variant v) {
    return time_on_gpu([&](cudaStream_t s) { stencil(v, d_in.data(), d_out.data(), g, c, s); })
        .median_ms;
  };
  SpeedSample sample;
  sample.time_ms = time(variant);
  sample.speedup = time(Variant::Basic) / sample.time_ms;
  sample.baseline = "basic";
  sample.share = gb_per_s(8.0 * count, sample.time_ms) / ceilings::device_copy().value;
  sample.ceiling = "device copy";
  return sample;
}

// K sweeps of the driver (with the given basic kernel, so that the driver is graded on its own)
// against K reference sweeps.
void check_jacobi(Grid g, int sweeps, bool heat_field, std::uint64_t seed) {
  const std::size_t count = g.count();
  const auto input = heat_field ? heat_initial_field(g) : uniform_floats(count, seed, 0.0f, 1.0f);
  const Coefficients c = heat_coefficients(0.125f);
  DeviceBuffer<float> d_a{std::span<const float>(input)};
  DeviceBuffer<float> d_b(count);
  d_b.poison();
  float* result = jacobi(d_a.data(), d_b.data(), g, c, sweeps, Variant::Basic);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string where = "jacobi " + shape_text(g) + ", " + std::to_string(sweeps) +
                            " sweeps, " + (heat_field ? "heat field" : "uniform [0, 1) input") +
                            ", seed " + std::to_string(seed);
  REQUIRE_MESSAGE(result == (sweeps % 2 == 0 ? d_a.data() : d_b.data()),
                  where << ": the result must be in d_a after an even number of sweeps, in d_b "
                           "after an odd one");
  std::vector<float> got(count);
  CUDA_CHECK(cudaMemcpy(got.data(), result, count * sizeof(float), cudaMemcpyDeviceToHost));
  const auto expected = jacobi_reference(input, g, c, sweeps);
  // Each sweep rounds once more on both sides; with non-negative weights summing to 1 the
  // differences do not grow, they add up: at most 12 sweeps * 8 * 2^-24 = 5.7e-6, relative.
  check_field(got, std::vector<double>(expected.begin(), expected.end()), input, g, where);
}

}  // namespace

TEST_CASE("basic.correct") {
  check_correct(Variant::Basic);
}
TEST_CASE("shared_tiled.correct") {
  check_correct(Variant::SharedTiled);
}
TEST_CASE("coarsened_z.correct") {
  check_correct(Variant::CoarsenedZ);
}
TEST_CASE("register_tiled.correct") {
  check_correct(Variant::RegisterTiled);
}
TEST_CASE("tuned.correct") {
  check_correct(Variant::Tuned);
}

TEST_CASE("shared_tiled.speed") {
  COURSE_CHECK_SPEED("shared_tiled.speed", Graded::Share,
                     [] { return measure(Variant::SharedTiled); });
}
TEST_CASE("coarsened_z.speed") {
  COURSE_CHECK_SPEED("coarsened_z.speed", Graded::Share,
                     [] { return measure(Variant::CoarsenedZ); });
}
TEST_CASE("register_tiled.speed") {
  COURSE_CHECK_SPEED("register_tiled.speed", Graded::Share,
                     [] { return measure(Variant::RegisterTiled); });
}
TEST_CASE("tuned.speed") {
  COURSE_CHECK_SPEED("tuned.speed", Graded::Share, [] { return measure(Variant::Tuned); });
}

TEST_CASE("jacobi.correct") {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const int sweeps : {0, 1, 2, 7, 12})
    for (const Grid g : {Grid{17, 17, 17}, Grid{33, 17, 9}, Grid{2, 5, 7}, Grid{1, 1, 1}})
      check_jacobi(g, sweeps, false, derive_seed(base, stream++));
  check_jacobi({40, 30, 20}, 12, true, 0);

  // The driver's result, drawn: the middle plane of the heat field as a PNG.
  const Grid g{48, 32, 16};
  const auto initial = heat_initial_field(g);
  DeviceBuffer<float> d_a{std::span<const float>(initial)};
  DeviceBuffer<float> d_b(g.count());
  const float* result =
      jacobi(d_a.data(), d_b.data(), g, heat_coefficients(0.125f), 9, Variant::Basic);
  std::vector<float> field(g.count());
  CUDA_CHECK(
      cudaMemcpy(field.data(), result, field.size() * sizeof(float), cudaMemcpyDeviceToHost));
  const auto path =
      std::filesystem::temp_directory_path() / ("lesson08_test_" + std::to_string(base) + ".png");
  save_slice_png(path.string(), field, g, g.nz / 2, 0.0f, 1.0f);
  std::ifstream file(path, std::ios::binary);
  char signature[8] = {};
  file.read(signature, sizeof signature);
  CHECK_MESSAGE(std::memcmp(signature, "\x89PNG\r\n\x1a\n", 8) == 0,
                "save_slice_png did not write a PNG at " << path.string());
  file.close();
  std::filesystem::remove(path);
}

// Runs without a GPU: every check happens before a launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  float* far = fake + (std::size_t{1} << 32);                       // far from fake
  const Coefficients c = heat_coefficients(0.125f);
  const Grid ok{10, 10, 10};
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    const Variant v = info.variant;
    CHECK_THROWS_WITH_AS(stencil(v, fake, far, {-1, 10, 10}, c),
                         doctest::Contains("0 <= nx, ny, nz <="), std::invalid_argument);
    CHECK_THROWS_AS(stencil(v, fake, far, {10, -1, 10}, c), std::invalid_argument);
    CHECK_THROWS_AS(stencil(v, fake, far, {10, 10, -1}, c), std::invalid_argument);
    CHECK_THROWS_WITH_AS(stencil(v, fake, far, {kMaxExtent + 1, 1, 1}, c),
                         doctest::Contains("0 <= nx, ny, nz <="), std::invalid_argument);
    CHECK_THROWS_AS(stencil(v, fake, far, {1, 1, kMaxExtent + 1}, c), std::invalid_argument);
    CHECK_THROWS_AS(stencil(v, nullptr, far, ok, c), std::invalid_argument);
    CHECK_THROWS_AS(stencil(v, fake, nullptr, ok, c), std::invalid_argument);
    CHECK_THROWS_WITH_AS(stencil(v, fake, fake + 999, ok, c), doctest::Contains("overlap"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(stencil(v, fake, fake, ok, c), doctest::Contains("overlap"),
                         std::invalid_argument);
    Coefficients bad = c;
    bad.c4 = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH_AS(stencil(v, fake, far, ok, bad), doctest::Contains("finite"),
                         std::invalid_argument);
    bad.c4 = std::numeric_limits<float>::infinity();
    CHECK_THROWS_AS(stencil(v, fake, far, ok, bad), std::invalid_argument);
    // An empty grid is a no-op, even with null pointers.
    CHECK_NOTHROW(stencil(v, nullptr, nullptr, {0, 10, 10}, c));
    CHECK_NOTHROW(stencil(v, nullptr, nullptr, {10, 0, 10}, c));
    CHECK_NOTHROW(stencil(v, nullptr, nullptr, {10, 10, 0}, c));
    CHECK_NOTHROW(stencil(v, nullptr, nullptr, {0, 0, 0}, c));
    // The driver checks the same, and its sweep count.
    CHECK_THROWS_WITH_AS(jacobi(fake, far, ok, c, -1, v), doctest::Contains("sweeps"),
                         std::invalid_argument);
    CHECK_THROWS_AS(jacobi(fake, far, {-3, 10, 10}, c, 5, v), std::invalid_argument);
    CHECK_THROWS_AS(jacobi(nullptr, far, ok, c, 5, v), std::invalid_argument);
    CHECK_THROWS_AS(jacobi(fake, fake + 10, ok, c, 5, v), std::invalid_argument);
    CHECK(jacobi(nullptr, nullptr, {0, 10, 10}, c, 5, v) == nullptr);
  }
  CHECK_THROWS_WITH_AS(stencil(static_cast<Variant>(99), fake, far, ok, c),
                       doctest::Contains("unknown variant"), std::invalid_argument);
  CHECK_THROWS_AS((void)heat_coefficients(0.0f), std::invalid_argument);
  CHECK_THROWS_AS((void)heat_coefficients(0.2f), std::invalid_argument);
  CHECK_THROWS_AS((void)heat_coefficients(-0.1f), std::invalid_argument);
  const std::vector<float> field(ok.count(), 0.0f);
  CHECK_THROWS_AS(save_slice_png("unused.png", field, {10, 10, 9}, 0, 0.0f, 1.0f),
                  std::invalid_argument);
  CHECK_THROWS_AS(save_slice_png("unused.png", field, ok, 10, 0.0f, 1.0f), std::invalid_argument);
  CHECK_THROWS_AS(save_slice_png("unused.png", field, ok, -1, 0.0f, 1.0f), std::invalid_argument);
}
