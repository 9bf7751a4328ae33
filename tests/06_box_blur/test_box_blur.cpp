// Lesson 06's tests: every kernel rung and every host-memory rung against the double-precision
// reference, edges bit-exact; speed as ratios measured in this run; bad arguments refused.
// Names, thresholds and points: lessons/06_box_blur/README.md.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "box_blur.cuh"
#include "box_blur_cpu.hpp"
#include "course/testing.hpp"

namespace {

using namespace course;
using namespace course::lesson06;

// Inputs are intensities in [0, 1). A float sum of 2R + 1 <= 65 such terms is within
// 65 * 2^-24 = 3.9e-6 of the exact sum, relative; a sliding window adds two roundings per step.
// The absolute part covers a running sum that falls far below the values it was built from.
constexpr Tolerance kTolerance{1e-6, 1e-5};

std::string describe(std::string_view rung, std::size_t n, int radius, int block, std::uint64_t seed) {
  return std::string(rung) + " n " + std::to_string(n) + ", radius " + std::to_string(radius) +
         ", block " + std::to_string(block) + ", seed " + std::to_string(seed);
}

// Checks @p got against the reference: within tolerance everywhere, and the R elements at each
// end equal to the input, bit for bit.
void check_output(std::span<const float> got, std::span<const float> input, int radius,
                  const std::string& where) {
  const std::size_t n = input.size();
  COURSE_CHECK_MATCH(compare_close(got, blur_reference(input, radius), kTolerance, {n}), where);
  const std::size_t edge = std::min<std::size_t>(radius, n);
  COURSE_CHECK_MATCH(compare_exact<float>(got.first(edge), input.first(edge), {edge}),
                     where + ", first R elements (copied unchanged)");
  COURSE_CHECK_MATCH(compare_exact<float>(got.last(edge), input.last(edge), {edge}),
                     where + ", last R elements (copied unchanged)");
}

void check_kernel(Kernel kernel, std::size_t n, int radius, int block, std::uint64_t seed) {
  const auto input = uniform_floats(n, seed, 0.0f, 1.0f);
  DeviceBuffer<float> d_in{std::span<const float>(input)};
  DeviceBuffer<float> d_out(n);
  d_out.poison();
  blur(kernel, d_in.data(), d_out.data(), n, radius, {}, block);
  CUDA_CHECK(cudaDeviceSynchronize());
  check_output(d_out.to_host(), input, radius, describe(name_of(kKernels, kernel), n, radius, block, seed));
}

void check_kernel_rung(Kernel kernel) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  // Shorter than a window, around the block (512) and a sliding-window block (512 * 9), a prime.
  std::vector<std::size_t> sizes{1, 2, 3, 17, 63, 64, 65, 511, 512, 513, 4607, 4608, 4609, 1000003};
  for (const int radius : {1, 2, 8, 31, 32})
    for (const std::size_t n : sizes) check_kernel(kernel, n, radius, kDefaultBlock, derive_seed(base, stream++));
  for (const int block : {64, 96, 1024})
    for (const int radius : {1, 32}) check_kernel(kernel, 100003, radius, block, derive_seed(base, stream++));
  if (!quick_mode()) check_kernel(kernel, std::size_t{1} << 24, 8, kDefaultBlock, derive_seed(base, stream++));
}

void check_memory(Memory memory, std::size_t n, const PipelineOptions& options, std::uint64_t seed) {
  const auto input = uniform_floats(n, seed, 0.0f, 1.0f);
  std::vector<float> output(n, std::numeric_limits<float>::quiet_NaN());
  run_pipeline(memory, input, output, options);
  check_output(output, input, options.radius,
               describe(name_of(kMemories, memory), n, options.radius, options.block, seed) +
                   ", chunks " + std::to_string(options.chunks));
}

void check_memory_rung(Memory memory) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  std::vector<std::size_t> sizes{1, 5, 100, 4609, 1000003};
  if (!quick_mode()) sizes.push_back(std::size_t{1} << 24);
  for (const std::size_t n : sizes)
    for (const int radius : {2, 32}) {
      PipelineOptions options;
      options.radius = radius;
      check_memory(memory, n, options, derive_seed(base, stream++));
    }
  if (memory == Memory::Streams) {
    // One chunk; chunks shorter than the halo, so that it spans several neighbours; more chunks
    // than elements.
    for (const int chunks : {1, 3, 64, 256}) {
      PipelineOptions options;
      options.radius = 32;
      options.chunks = chunks;
      for (const std::size_t n : {std::size_t{100}, std::size_t{100003}})
        check_memory(memory, n, options, derive_seed(base, stream++));
    }
  }
}

constexpr std::size_t kKernelSpeedSize = std::size_t{1} << 26;
constexpr std::size_t kTripSize = std::size_t{16} << 20;  // the seed's 16 M
constexpr int kSpeedRadius = 8;

SpeedSample measure_kernel(Kernel kernel) {
  const std::size_t n = kKernelSpeedSize;
  const auto input = uniform_floats(n, derive_seed(base_seed(), 4000), 0.0f, 1.0f);
  DeviceBuffer<float> d_in{std::span<const float>(input)};
  DeviceBuffer<float> d_out(n);
  d_out.poison();
  blur(kernel, d_in.data(), d_out.data(), n, kSpeedRadius);
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE_MESSAGE(compare_close(d_out.to_host(), blur_reference(input, kSpeedRadius), kTolerance, {n}).ok,
                  name_of(kKernels, kernel) << " is wrong at the timed size; fix correctness first");
  auto time = [&](Kernel k) {
    return time_on_gpu([&](cudaStream_t s) { blur(k, d_in.data(), d_out.data(), n, kSpeedRadius, s); }).median_ms;
  };
  SpeedSample sample;
  sample.time_ms = time(kernel);
  sample.speedup = time(Kernel::Global) / sample.time_ms;
  sample.baseline = "global";
  sample.share = gb_per_s(2.0 * n * sizeof(float), sample.time_ms) / ceilings::device_copy().value;
  sample.ceiling = "device copy";
  return sample;
}

// Medians of five trips of @p memory at the seed's size.
PipelineTimes median_trip(Memory memory, std::span<const float> input, std::span<float> output) {
  std::vector<PipelineTimes> trips;
  for (int i = 0; i < 5; ++i) trips.push_back(run_pipeline(memory, input, output, {.radius = kSpeedRadius}));
  auto median = [&](double PipelineTimes::*field) {
    std::vector<double> values;
    for (const auto& t : trips) values.push_back(t.*field);
    std::nth_element(values.begin(), values.begin() + 2, values.end());
    return values[2];
  };
  return {median(&PipelineTimes::h2d_ms), median(&PipelineTimes::kernel_ms),
          median(&PipelineTimes::d2h_ms), median(&PipelineTimes::total_ms)};
}

// @p memory's trip against the @p baseline trip, both at the seed's size and in this run.
SpeedSample measure_trip(Memory memory, Memory baseline, bool transfers_only) {
  const auto input = uniform_floats(kTripSize, derive_seed(base_seed(), 5000), 0.0f, 1.0f);
  std::vector<float> output(kTripSize);
  const PipelineTimes mine = median_trip(memory, input, output);
  REQUIRE_MESSAGE(compare_close(output, blur_reference(input, kSpeedRadius), kTolerance, {kTripSize}).ok,
                  name_of(kMemories, memory) << " gives a wrong result at the timed size");
  const PipelineTimes theirs = median_trip(baseline, input, output);
  SpeedSample sample;
  sample.baseline = name_of(kMemories, baseline);
  if (transfers_only) {
    sample.time_ms = mine.h2d_ms + mine.d2h_ms;
    sample.speedup = (theirs.h2d_ms + theirs.d2h_ms) / sample.time_ms;
  } else {
    sample.time_ms = mine.total_ms;
    sample.speedup = theirs.total_ms / sample.time_ms;
  }
  return sample;
}

}  // namespace

TEST_CASE("global.correct") { check_kernel_rung(Kernel::Global); }
TEST_CASE("shared_halo.correct") { check_kernel_rung(Kernel::SharedHalo); }
TEST_CASE("sliding_window.correct") { check_kernel_rung(Kernel::SlidingWindow); }

TEST_CASE("shared_halo.speed") {
  COURSE_CHECK_SPEED("shared_halo.speed", Graded::Share, [] { return measure_kernel(Kernel::SharedHalo); });
}
TEST_CASE("sliding_window.speed") {
  COURSE_CHECK_SPEED("sliding_window.speed", Graded::Share, [] { return measure_kernel(Kernel::SlidingWindow); });
}

TEST_CASE("pageable.correct") { check_memory_rung(Memory::Pageable); }
TEST_CASE("pinned.correct") { check_memory_rung(Memory::Pinned); }
TEST_CASE("write_combined.correct") { check_memory_rung(Memory::WriteCombined); }
TEST_CASE("mapped.correct") { check_memory_rung(Memory::Mapped); }
TEST_CASE("streams.correct") { check_memory_rung(Memory::Streams); }

TEST_CASE("pinned.speed") {
  COURSE_CHECK_SPEED("pinned.speed", Graded::Speedup,
                     [] { return measure_trip(Memory::Pinned, Memory::Pageable, true); });
}
TEST_CASE("streams.speed") {
  COURSE_CHECK_SPEED("streams.speed", Graded::Speedup,
                     [] { return measure_trip(Memory::Streams, Memory::Pinned, false); });
}

// Runs without a GPU: every check happens before anything touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  std::vector<float> in(10), out(10), shorter(9);
  for (const auto& info : kKernels) {
    CAPTURE(info.name);
    CHECK_THROWS_WITH_AS(blur(info.rung, fake, fake + 100, 10, 0), doctest::Contains("[1, 32]"), std::invalid_argument);
    CHECK_THROWS_AS(blur(info.rung, fake, fake + 100, 10, 33), std::invalid_argument);
    CHECK_THROWS_WITH_AS(blur(info.rung, fake, fake + 100, 10, 2, {}, 48), doctest::Contains("multiple of 32"),
                         std::invalid_argument);
    CHECK_THROWS_AS(blur(info.rung, fake, fake + 100, 10, 2, {}, 2048), std::invalid_argument);
    CHECK_THROWS_AS(blur(info.rung, nullptr, fake, 10, 2), std::invalid_argument);
    CHECK_THROWS_WITH_AS(blur(info.rung, fake, fake + 5, 10, 2), doctest::Contains("overlap"), std::invalid_argument);
    CHECK_NOTHROW(blur(info.rung, nullptr, nullptr, 0, 2));
  }
  for (const auto& info : kMemories) {
    CAPTURE(info.name);
    CHECK_THROWS_AS(run_pipeline(info.rung, in, shorter, {}), std::invalid_argument);
    CHECK_THROWS_AS(run_pipeline(info.rung, in, out, {.radius = 0}), std::invalid_argument);
    CHECK_THROWS_WITH_AS(run_pipeline(info.rung, in, out, {.chunks = 0}), doctest::Contains("chunks"),
                         std::invalid_argument);
    CHECK_THROWS_AS(run_pipeline(info.rung, in, out, {.chunks = kMaxChunks + 1}), std::invalid_argument);
    CHECK_NOTHROW(run_pipeline(info.rung, {}, {}, {}));
  }
}
