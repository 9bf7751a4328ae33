// Lesson 08's tests: every rung against the double-precision reference on every grid, boundary
// points bit-exact, nothing written outside the output; the Jacobi driver against repeated
// reference sweeps; speed as ratios measured in this run; bad arguments refused. Test names,
// thresholds and points come from the grading table in lessons/08_stencil/README.md.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "course/testing.hpp"
#include "stencil.cuh"
#include "stencil_bench.hpp"
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
// (6, 8; 30, 32 in x-y); z-chunks that end part-way (32 planes per block for the exercises, 8
// for tuned, 6 for its fallback); primes; thin and non-cubic grids; 512^3 for speed. Rows of a
// multiple of 4 floats take tuned's TMA path: 260 x 20 x 301 and 512 x 24 x 97 have a full
// 256-wide tile and one that ends part-way (or a second full one) in x, where a point at the
// seam of a tile's two TMA boxes is interior, and z-chunks of 8 that end part-way.
std::vector<Grid> correctness_grids() {
  if (sanitize_mode())  // each path once: all boundary, ragged tiles, z-chunks that end part-way
    return {{1, 1, 1},   {2, 5, 7},    {33, 17, 9}, {31, 30, 33},
            {5, 3, 257}, {35, 33, 40}, {260, 9, 11}};
  std::vector<Grid> grids{
      {1, 1, 1},    {2, 5, 7},     {40, 2, 40},     {1, 40, 40},    {3, 3, 3},    {17, 17, 17},
      {33, 17, 9},  {257, 3, 5},   {3, 257, 5},     {5, 3, 257},    {7, 13, 6},   {31, 30, 33},
      {35, 65, 66}, {64, 31, 130}, {100, 100, 100}, {260, 20, 301}, {512, 24, 97}};
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
void check_guards(std::span<const float> all, std::size_t offset, const std::string& where) {
  CHECK_MESSAGE(still_poisoned(all.subspan(offset - kGuard, kGuard)),
                where << ": the kernel wrote before the start of the output");
  CHECK_MESSAGE(still_poisoned(all.last(kGuard)),
                where << ": the kernel wrote past the end of the output");
}

// One input of a rung's correctness row.
struct Case {
  Grid grid;
  Pattern pattern;            // Uniform: uniform [0, 1); Index: point i holds i
  std::size_t in_shift = 0;   // floats by which the input is off its alignment
  std::size_t out_shift = 0;  // the same for the output, independently of the input
};

std::vector<float> make_input(Pattern pattern, std::size_t count, std::uint64_t seed) {
  return pattern == Pattern::Index ? pattern_floats(Pattern::Index, count, seed)
                                   : uniform_floats(count, seed, 0.0f, 1.0f);
}

// The device buffers of one check: the input, and the output with its guards (none under the
// sanitizers).
using Buffers = GuardedBuffers<float>;

Buffers buffers_for(const Case& c) {
  return Buffers(c.grid.count(), c.in_shift, c.out_shift, guard_elements(kGuard));
}

// Uploads @p input, runs @p variant on it with a freshly poisoned output, and checks the output,
// the guards around it, and that the inputs the interface declares const (the input grid and the
// coefficients) still hold what they held before.
void run_and_check(Variant variant, const Case& c, const std::vector<float>& input,
                   const Coefficients& coefficients, Buffers& buffers, const std::string& where) {
  const Grid g = c.grid;
  const std::size_t count = g.count();
  CUDA_CHECK(cudaMemcpy(buffers.in.data() + c.in_shift, input.data(), count * sizeof(float),
                        cudaMemcpyHostToDevice));
  buffers.out.poison();
  const std::vector<Coefficients> before{coefficients};
  stencil(variant, buffers.in.data() + c.in_shift, buffers.out.data() + buffers.out_at, g,
          coefficients);
  CUDA_CHECK(cudaDeviceSynchronize());
  // A rung may read its input and its weights, never write them (nor use the input as scratch).
  COURSE_CHECK_UNCHANGED(buffers.in.data() + c.in_shift, input, "the input grid", where);
  COURSE_CHECK_UNCHANGED(&coefficients, before, "the coefficients", where);
  const auto all = buffers.out.to_host();
  check_field(std::span<const float>(all).subspan(buffers.out_at, count),
              stencil_reference(input, g, coefficients), input, g, where);
  if (buffers.guard != 0)
    check_guards(all, buffers.out_at, where);
}

std::string context(Variant variant, const Case& c, std::uint64_t seed) {
  return std::string(name_of(variant)) + " " + shape_text(c.grid) + " " +
         std::string(c.pattern == Pattern::Index ? "index" : "uniform [0, 1)") + " input, seed " +
         std::to_string(seed) +
         misaligned_text({{"input", c.in_shift}, {"output", c.out_shift}},
                         "one float off alignment", ", ", "buffers");
}

// Runs @p variant on one input.
void check_one(Variant variant, const Case& c, std::uint64_t seed) {
  Buffers buffers = buffers_for(c);
  run_and_check(variant, c, make_input(c.pattern, c.grid.count(), seed),
                random_coefficients(seed ^ 0x5eed), buffers, context(variant, c, seed));
}

// The inputs of a rung's correctness row, in the order they run.
std::vector<Case> correctness_cases() {
  std::vector<Case> cases;
  for (const Grid g : correctness_grids()) {
    cases.push_back({g, Pattern::Uniform});
    // Element i holds i (exact up to 2^24): a value from the wrong place names where it came from.
    if (g.count() <= (std::size_t{1} << 24) && !sanitize_mode())  // values move no access
      cases.push_back({g, Pattern::Index});
  }
  // Buffers off their alignment: both, the input alone and the output alone. 64 x 31 x 130 has
  // rows of a multiple of 4 floats: a vector path would take it with aligned buffers.
  // (Under the sanitizers, smaller grids of the same kinds.)
  const Grid odd = sanitize_mode() ? Grid{31, 30, 33} : Grid{35, 65, 66};
  const Grid rows_of_4 = sanitize_mode() ? Grid{64, 31, 13} : Grid{64, 31, 130};
  const std::vector<Case> misaligned{{odd, Pattern::Uniform, 1, 1},
                                     {odd, Pattern::Uniform, 1, 0},
                                     {odd, Pattern::Uniform, 0, 1},
                                     {rows_of_4, Pattern::Uniform, 1, 0},
                                     {rows_of_4, Pattern::Uniform, 0, 1}};
  for (const Case& c : none_under_racecheck(misaligned))
    cases.push_back(c);
  return cases;
}

// The same buffers, called again: after one point of the input changed, then with other
// weights. A launcher that replays an earlier result (remembered by its pointers, sizes or a few
// input values) writes a stale grid.
void check_rerun(Variant variant, std::uint64_t seed) {
  const Case c{{33, 17, 9}, Pattern::Uniform};
  Buffers buffers = buffers_for(c);
  std::vector<float> input = make_input(c.pattern, c.grid.count(), seed);
  const Coefficients first = random_coefficients(seed ^ 0x5eed);
  const std::string where = context(variant, c, seed);
  run_and_check(variant, c, input, first, buffers, where);
  const std::size_t changed = hash64(seed, 7) % input.size();
  input[changed] += 0.5f;
  run_and_check(variant, c, input, first, buffers,
                where + ", called again on the same buffers after point " +
                    std::to_string(changed) + " changed");
  run_and_check(variant, c, input, random_coefficients(seed ^ 0xbeef), buffers,
                where + ", called again on the same buffers with other weights");
}

// Launches check_rerun() makes.
constexpr int kRerunCalls = 3;

void check_correct(Variant variant) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const Case& c : correctness_cases())
    check_one(variant, c, derive_seed(base, stream++));
  check_rerun(variant, derive_seed(base, stream++));
}

// The timed buffers at the graded size, 512^3: made once per process (stencil_bench.hpp).
StencilBench& speed_bench() {
  static StencilBench bench(kSpeedGrid, random_coefficients(derive_seed(base_seed(), 1000)));
  return bench;
}

// Times @p variant and basic at 512^3 in this run with course::measure(), which checks every
// timed output against the given basic rung: a fast wrong answer earns nothing. Each checks more
// launches than a correctness row makes (speed_options_outlasting()). GB/s counts one read and
// one write per point.
SpeedSample sample_of(Variant variant) {
  StencilBench& bench = speed_bench();
  const MeasureOptions options =
      speed_options_outlasting(1000, static_cast<int>(correctness_cases().size()) + kRerunCalls);
  SpeedSample sample = speed_sample(measure(bench.trial(variant), options));
  if (sample.failure.empty())
    add_speedup(sample, measure(bench.trial(Variant::Basic), options), name_of(Variant::Basic));
  if (sample.time_ms > 0)
    add_share_of_device_copy(sample, bench.bytes());
  return sample;
}

// K sweeps of the driver with @p kernel against K reference sweeps.
void check_jacobi(Grid g, int sweeps, bool heat_field, std::uint64_t seed,
                  Variant kernel = Variant::Basic) {
  const std::size_t count = g.count();
  const auto input = heat_field ? heat_initial_field(g) : uniform_floats(count, seed, 0.0f, 1.0f);
  const Coefficients c = heat_coefficients(0.125f);
  DeviceBuffer<float> d_a{std::span<const float>(input)};
  DeviceBuffer<float> d_b(count);
  d_b.poison();
  const std::vector<Coefficients> before{c};
  float* result = jacobi(d_a.data(), d_b.data(), g, c, sweeps, kernel);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string where = "jacobi with kernel " + std::string(name_of(kernel)) + ", " +
                            shape_text(g) + ", " + std::to_string(sweeps) + " sweeps, " +
                            (heat_field ? "heat field" : "uniform [0, 1) input") + ", seed " +
                            std::to_string(seed);
  // The driver's two buffers are its to write; the coefficients it may only read.
  COURSE_CHECK_UNCHANGED(&c, before, "the coefficients", where);
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

COURSE_CORRECT_TEST("basic.correct", check_correct(Variant::Basic));

COURSE_CORRECT_TEST("shared_tiled.correct", check_correct(Variant::SharedTiled));
COURSE_SPEED_TEST("shared_tiled.speed", Graded::Share, sample_of(Variant::SharedTiled));

COURSE_CORRECT_TEST("coarsened_z.correct", check_correct(Variant::CoarsenedZ));
COURSE_SPEED_TEST("coarsened_z.speed", Graded::Share, sample_of(Variant::CoarsenedZ));

COURSE_CORRECT_TEST("register_tiled.correct", check_correct(Variant::RegisterTiled));
COURSE_SPEED_TEST("register_tiled.speed", Graded::Share, sample_of(Variant::RegisterTiled));

COURSE_CORRECT_TEST("tuned.correct", check_correct(Variant::Tuned));
COURSE_SPEED_TEST("tuned.speed", Graded::Share, sample_of(Variant::Tuned));

TEST_CASE("jacobi.correct") {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const int sweeps : fewer_under_sanitizer<int>({0, 1, 2, 7, 12}, {0, 2, 7}))
    for (const Grid g : fewer_under_sanitizer<Grid>(
             {{17, 17, 17}, {33, 17, 9}, {2, 5, 7}, {1, 1, 1}}, {{33, 17, 9}, {1, 1, 1}}))
      check_jacobi(g, sweeps, false, derive_seed(base, stream++));
  check_jacobi({40, 30, 20}, 12, true, 0);

  // The driver with each kernel it can run (the kernels' own rows grade the kernels; a kernel
  // not written yet is left out here). 64 x 31 x 13 has rows of a multiple of 4 floats, which
  // tuned's vector path takes.
  for (const auto& info : kVariants) {
    if (info.variant == Variant::Basic)
      continue;
    const Grid probe{4, 4, 4};
    DeviceBuffer<float> d_x(probe.count()), d_y(probe.count());
    d_x.fill_bytes(0);
    try {
      stencil(info.variant, d_x.data(), d_y.data(), probe, heat_coefficients(0.125f));
      CUDA_CHECK(cudaDeviceSynchronize());
    } catch (const NotImplemented&) {
      MESSAGE("jacobi with kernel " << info.name << " is left out: the kernel is not written yet");
      continue;
    }
    for (const int sweeps : fewer_under_sanitizer<int>({1, 2, 7}, {2}))
      for (const Grid g : {Grid{33, 17, 9}, Grid{64, 31, 13}})
        check_jacobi(g, sweeps, false, derive_seed(base, stream++), info.variant);
  }

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
    // Each extent in range, but more than 2^30 points: an index would no longer fit in 32 bits.
    CHECK_THROWS_WITH_AS(stencil(v, fake, far, {2048, 1024, 1024}, c), doctest::Contains("2^30"),
                         std::invalid_argument);
    CHECK_THROWS_AS(stencil(v, fake, far, {kMaxExtent, kMaxExtent, kMaxExtent}, c),
                    std::invalid_argument);
    CHECK_THROWS_AS(jacobi(fake, far, {2048, 1024, 1024}, c, 5, v), std::invalid_argument);
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
