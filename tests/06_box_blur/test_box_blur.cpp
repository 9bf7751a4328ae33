// Lesson 06's tests: every kernel rung and every host-memory rung (with every kernel rung) against
// the double-precision reference, edges bit-exact; speed measured by the harness
// (course::measure, through box_blur_bench.hpp), as ratios in this run; bad arguments refused.
// Names, thresholds and points: lessons/06_box_blur/README.md.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "box_blur.cuh"
#include "box_blur_bench.hpp"
#include "box_blur_cpu.hpp"
#include "course/testing.hpp"

namespace {

using namespace course;
using namespace course::lesson06;

std::string describe(std::string_view rung, std::size_t n, int radius, int block,
                     std::uint64_t seed) {
  return std::string(rung) + " n " + std::to_string(n) + ", radius " + std::to_string(radius) +
         ", block " + std::to_string(block) + ", seed " + std::to_string(seed);
}

// Element offsets of the pointers a call gets, from the start of their allocations: 1 makes a
// pointer 4 bytes past a 16-byte boundary, which a fast path that assumes float4 alignment of
// that pointer gets wrong. Allocations end where the data ends, so that compute-sanitizer sees
// an access past the end; the elements before an offset pointer are NaN.
struct Offsets {
  std::size_t in = 0;     ///< of the input (the host input, for a trip)
  std::size_t out = 0;    ///< of the output (the host output, for a trip)
  std::size_t d_in = 0;   ///< of a trip's device input buffer
  std::size_t d_out = 0;  ///< of a trip's device output buffer
};

std::string describe(const Offsets& at) {
  if (at.in == 0 && at.out == 0 && at.d_in == 0 && at.d_out == 0)
    return "";
  return ", offsets in " + std::to_string(at.in) + " out " + std::to_string(at.out) + " d_in " +
         std::to_string(at.d_in) + " d_out " + std::to_string(at.d_out) + " elements";
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

// ---- kernels ----

void check_kernel(Kernel kernel, std::size_t n, int radius, int block, std::uint64_t seed,
                  Offsets at = {}) {
  const auto input = uniform_floats(n, seed, 0.0f, 1.0f);
  const auto d_in = upload_framed<float>(input, at.in, 0);
  DeviceBuffer<float> d_out(n + at.out);
  d_out.poison();
  // On a stream of the test's own, synchronized alone: work that escapes it is not waited for.
  const Stream stream;
  blur(kernel, d_in.data() + at.in, d_out.data() + at.out, n, radius, stream.get(), block);
  stream.synchronize();
  std::vector<float> got(n);
  CUDA_CHECK(
      cudaMemcpy(got.data(), d_out.data() + at.out, n * sizeof(float), cudaMemcpyDeviceToHost));
  const std::string where =
      describe(name_of(kKernels, kernel), n, radius, block, seed) + describe(at);
  check_output(got, input, radius, where);
  // The input is declared const: a rung may read it, never write it.
  COURSE_CHECK_UNCHANGED(d_in.data() + at.in, input, "d_in", where);
}

void check_kernel_rung(Kernel kernel) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  // Shorter than a window, around the block (512) and a sliding-window block (512 * 9), a prime.
  const auto sizes = fewer_under_sanitizer<std::size_t>(
      {1, 2, 3, 17, 63, 64, 65, 511, 512, 513, 4607, 4608, 4609, 1000003},
      {1, 17, 513, 4609, 20011});
  for (const int radius : fewer_under_sanitizer<int>({1, 2, 8, 31, 32}, {1, 32}))
    for (const std::size_t n : sizes)
      check_kernel(kernel, n, radius, kDefaultBlock, derive_seed(base, stream++));
  // Every block the launcher accepts, at the smallest and the largest radius.
  for (int block = 64; block <= 1024; block += sanitize_mode() ? 480 : 32)  // 64, 544, 1024
    for (const int radius : {1, 32})
      check_kernel(kernel, sanitize_tool() == "racecheck" ? 4609 : 20011, radius, block,
                   derive_seed(base, stream++));
  // Every radius, at the default block and at the smallest, where 2R reaches the block.
  for (int radius = 1; radius <= kMaxRadius && !sanitize_mode(); ++radius)
    for (const int block : {64, kDefaultBlock})
      check_kernel(kernel, 4609 * 3, radius, block, derive_seed(base, stream++));
  // Each pointer misaligned alone, at a size inside one block and at one of many blocks.
  for (const Offsets at : fewer_under_sanitizer<Offsets>({{1, 0}, {0, 1}, {1, 1}, {2, 0}, {0, 3}},
                                                         {{1, 0}, {0, 1}, {1, 1}}))
    for (const std::size_t n : fewer_under_sanitizer<std::size_t>({4609, 100003}, {4609}))
      for (const int radius : fewer_under_sanitizer<int>({1, 8, 32}, {1, 32}))
        check_kernel(kernel, n, radius, kDefaultBlock, derive_seed(base, stream++), at);
  if (!quick_mode())
    check_kernel(kernel, std::size_t{1} << 24, 8, kDefaultBlock, derive_seed(base, stream++));
}

// ---- trips ----

// Whether the skeleton has the kernel rung yet: a trip is checked with every kernel rung that
// exists, so that a trip is never marked down for an exercise or stretch not written yet.
bool kernel_written(Kernel kernel) {
  if (kernel == Kernel::Global)
    return true;
  DeviceBuffer<float> d(2);
  CUDA_CHECK(cudaMemset(d.data(), 0, d.bytes()));  // initcheck: the probe reads a written input
  try {
    blur(kernel, d.data(), d.data() + 1, 1, 1);
    CUDA_CHECK(cudaDeviceSynchronize());
  } catch (const NotImplemented&) {
    return false;
  }
  return true;
}

void check_trip(Memory memory, std::size_t n, const PipelineOptions& options, std::uint64_t seed,
                Offsets at = {}) {
  const auto input = uniform_floats(n, seed, 0.0f, 1.0f);
  const TripMemory kinds = trip_memory(memory);
  HostBuffer<float> h_in(n + at.in, kinds.input), h_out(n + at.out, kinds.output);
  std::memset(h_in.data(), 0xFF, at.in * sizeof(float));
  std::memcpy(h_in.data() + at.in, input.data(), n * sizeof(float));
  std::memset(h_out.data(), 0xFF, h_out.bytes());  // NaN: an element never written fails
  // The device buffers start as NaN too: a trip that blurs what it never uploaded fails.
  DeviceBuffer<float> d_in(n + at.d_in), d_out(n + at.d_out);
  d_in.fill_bytes(0xFF);
  d_out.poison();
  // On a stream of the test's own, synchronized alone: a trip that does not join its own
  // streams back into it is read before it is done.
  const Stream stream;
  trip(memory, h_in.data() + at.in, h_out.data() + at.out, n,
       TripBuffers{d_in.data() + at.d_in, d_out.data() + at.d_out}, options, stream.get());
  stream.synchronize();
  const std::string where =
      describe(name_of(kMemories, memory), n, options.radius, options.block, seed) + ", " +
      std::string(name_of(kKernels, options.kernel)) + " kernel, chunks " +
      std::to_string(options.chunks) + describe(at);
  check_output(std::span<const float>(h_out.data() + at.out, n), input, options.radius, where);
  // The host input is declared const: a trip may send it, never write it (nor use its memory as
  // a staging buffer). The device buffers are the trip's own to write.
  COURSE_CHECK_UNCHANGED(h_in.data() + at.in, input, "h_in", where);
}

void check_memory_rung(Memory memory) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  auto sizes = fewer_under_sanitizer<std::size_t>({1, 5, 100, 4609, 1000003}, {1, 100, 4609});
  if (!quick_mode())
    sizes.push_back(std::size_t{1} << 24);
  for (const auto& kernel : kKernels) {
    // racecheck checks the kernels' shared memory in their own rows; in a trip it runs the one
    // kernel without any, so that the trip's chunks and copies are checked by memcheck alone.
    if (sanitize_tool() == "racecheck" && kernel.rung != Kernel::Global)
      continue;
    if (!kernel_written(kernel.rung)) {
      MESSAGE("the " << kernel.name
                     << " kernel is not written yet: the trips are not checked with it");
      continue;
    }
    PipelineOptions options;
    options.kernel = kernel.rung;
    for (const std::size_t n : sizes)
      for (const int radius : {2, 32}) {
        options.radius = radius;
        check_trip(memory, n, options, derive_seed(base, stream++));
      }
    if (memory == Memory::Streams) {
      // One chunk; chunks shorter than the halo, so that it spans several neighbours; more chunks
      // than elements; odd counts, whose chunks differ in length; the most.
      for (const int chunks :
           fewer_under_sanitizer<int>({1, 2, 3, 7, 16, 64, 255, 256}, {1, 3, 256}))
        for (const int radius : {1, 32})
          for (const std::size_t n :
               fewer_under_sanitizer<std::size_t>({100, 100003}, {100, 4609})) {
            options.radius = radius;
            options.chunks = chunks;
            check_trip(memory, n, options, derive_seed(base, stream++));
          }
      // Blocks other than the default, where a chunk's grid ends inside a block.
      for (const int block : fewer_under_sanitizer<int>({64, 96, 1024}, {96})) {
        options.radius = 8;
        options.chunks = 7;
        options.block = block;
        check_trip(memory, sanitize_mode() ? 4609 : 100003, options, derive_seed(base, stream++));
      }
    }
  }
  // Each pointer misaligned alone (global kernel; the kernels' own tests misalign them too).
  PipelineOptions options;
  options.radius = 8;
  options.chunks = 7;
  for (const Offsets at :
       {Offsets{1, 0, 0, 0}, Offsets{0, 1, 0, 0}, Offsets{0, 0, 1, 0}, Offsets{0, 0, 0, 1}})
    for (const std::size_t n : fewer_under_sanitizer<std::size_t>({4609, 100003}, {4609}))
      check_trip(memory, n, options, derive_seed(base, stream++), at);
  if (memory == Memory::Streams && !quick_mode()) {
    // The longest vector, in the most chunks: chunk bounds n k / chunks reach n k = 2^34.
    options.chunks = kMaxChunks;
    options.radius = 2;
    check_trip(memory, kMaxElements, options, derive_seed(base, stream++));
  }
}

// ---- speed: course::measure() through box_blur_bench.hpp ----

constexpr std::size_t kKernelSpeedSize = std::size_t{1} << 26;
constexpr std::size_t kTripSize = std::size_t{16} << 20;  // the box-blur article's 16 M
constexpr int kSpeedRadius = 8;

// The sample of a rung measured as @p rung. Unlike course::speed_sample(), a measurement that
// does not stand reports no time: this lesson's rows print 0 ms for it.
SpeedSample standing_sample(const Measurement& rung) {
  SpeedSample sample;
  sample.failure = rung.failure;
  if (sample.failure.empty())
    sample.time_ms = rung.timing.median_ms;
  return sample;
}

// Fills @p sample's speedup from the baseline's measurement, or its failure. Unlike
// course::add_speedup(), a baseline that does not stand is named in the failure, and leaves the
// speedup unset.
void compare_with(SpeedSample& sample, const Measurement& baseline, std::string_view name) {
  sample.baseline = name;
  if (!baseline.sound()) {
    sample.failure = "the baseline " + std::string(name) + ": " + baseline.failure;
    return;
  }
  sample.speedup = baseline.timing.median_ms / sample.time_ms;
}

SpeedSample kernel_sample(Kernel kernel) {
  const std::size_t n = kKernelSpeedSize;
  SpeedSample sample =
      standing_sample(measure_kernel(kernel, n, kSpeedRadius, kDefaultBlock, speed_options(4000)));
  if (!sample.failure.empty())
    return sample;
  add_share_of_device_copy(sample, blur_bytes(n));
  compare_with(sample,
               measure_kernel(Kernel::Global, n, kSpeedRadius, kDefaultBlock, speed_options(4001)),
               "global");
  return sample;
}

// @p memory's trip against the @p baseline trip, both at the box-blur article's size; the share is
// of the pinned copies in both directions at once, the most any trip can reach.
SpeedSample trip_sample(Memory memory, std::optional<Memory> baseline) {
  PipelineOptions options;
  options.radius = kSpeedRadius;
  SpeedSample sample =
      standing_sample(measure_trip(memory, kTripSize, options, speed_options(5000)));
  sample.ceiling = "pinned copies both ways at once";
  if (!sample.failure.empty())
    return sample;
  sample.share = gb_per_s(blur_bytes(kTripSize), sample.time_ms) /
                 ceilings::pinned_bidirectional(kTripSize * sizeof(float)).value;
  if (baseline)
    compare_with(sample, measure_trip(*baseline, kTripSize, options, speed_options(5001)),
                 name_of(kMemories, *baseline));
  return sample;
}

}  // namespace

COURSE_CORRECT_TEST("global.correct", check_kernel_rung(Kernel::Global));

COURSE_CORRECT_TEST("shared_halo.correct", check_kernel_rung(Kernel::SharedHalo));
COURSE_SPEED_TEST("shared_halo.speed", Graded::Share, kernel_sample(Kernel::SharedHalo));

COURSE_CORRECT_TEST("sliding_window.correct", check_kernel_rung(Kernel::SlidingWindow));
COURSE_SPEED_TEST("sliding_window.speed", Graded::Share, kernel_sample(Kernel::SlidingWindow));

COURSE_CORRECT_TEST("pageable.correct", check_memory_rung(Memory::Pageable));

COURSE_CORRECT_TEST("pinned.correct", check_memory_rung(Memory::Pinned));
COURSE_SPEED_TEST("pinned.speed", Graded::Speedup,
                  trip_sample(Memory::Pinned, unless_in_baseline_process(Memory::Pageable)));

COURSE_CORRECT_TEST("write_combined.correct", check_memory_rung(Memory::WriteCombined));
COURSE_CORRECT_TEST("mapped.correct", check_memory_rung(Memory::Mapped));

COURSE_CORRECT_TEST("streams.correct", check_memory_rung(Memory::Streams));
// pinned is the student's too: its time comes from its own row, run in a process of its own,
// where nothing tells the student's code that it serves as a baseline.
COURSE_SPEED_TEST("streams.speed", Graded::Speedup,
                  speedup_over_row_apart(trip_sample(Memory::Streams, std::nullopt), "pinned.speed",
                                         "pinned"));

// Runs without a GPU: every check happens before anything touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  float* fake_device = reinterpret_cast<float*>(std::uintptr_t{1} << 30);
  const TripBuffers device{fake_device, fake_device + 100};
  for (const auto& info : kKernels) {
    CAPTURE(info.name);
    CHECK_THROWS_WITH_AS(blur(info.rung, fake, fake + 100, 10, 0), doctest::Contains("[1, 32]"),
                         std::invalid_argument);
    CHECK_THROWS_AS(blur(info.rung, fake, fake + 100, 10, 33), std::invalid_argument);
    CHECK_THROWS_WITH_AS(blur(info.rung, fake, fake + 100, 10, 2, {}, 48),
                         doctest::Contains("multiple of 32"), std::invalid_argument);
    CHECK_THROWS_AS(blur(info.rung, fake, fake + 100, 10, 2, {}, 2048), std::invalid_argument);
    CHECK_THROWS_AS(blur(info.rung, nullptr, fake, 10, 2), std::invalid_argument);
    CHECK_THROWS_WITH_AS(blur(info.rung, fake, fake + 5, 10, 2), doctest::Contains("overlap"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(blur(info.rung, fake, fake + kMaxElements + 1, kMaxElements + 1, 2),
                         doctest::Contains("kMaxElements"), std::invalid_argument);
    CHECK_NOTHROW(blur(info.rung, nullptr, nullptr, 0, 2));
  }
  for (const auto& info : kMemories) {
    CAPTURE(info.name);
    CHECK_THROWS_AS(trip(info.rung, fake, fake + 100, 10, device, {.radius = 0}),
                    std::invalid_argument);
    CHECK_THROWS_AS(trip(info.rung, fake, fake + 100, 10, device, {.block = 48}),
                    std::invalid_argument);
    CHECK_THROWS_WITH_AS(trip(info.rung, fake, fake + 100, 10, device, {.chunks = 0}),
                         doctest::Contains("chunks"), std::invalid_argument);
    CHECK_THROWS_AS(trip(info.rung, fake, fake + 100, 10, device, {.chunks = kMaxChunks + 1}),
                    std::invalid_argument);
    CHECK_THROWS_WITH_AS(
        trip(info.rung, fake, fake + kMaxElements + 1, kMaxElements + 1, device, {}),
        doctest::Contains("kMaxElements"), std::invalid_argument);
    CHECK_THROWS_AS(trip(info.rung, nullptr, fake, 10, device, {}), std::invalid_argument);
    CHECK_THROWS_AS(trip(info.rung, fake, nullptr, 10, device, {}), std::invalid_argument);
    CHECK_THROWS_WITH_AS(trip(info.rung, fake, fake + 5, 10, device, {}),
                         doctest::Contains("overlap"), std::invalid_argument);
    if (info.rung != Memory::Mapped) {
      CHECK_THROWS_AS(trip(info.rung, fake, fake + 100, 10, TripBuffers{}, {}),
                      std::invalid_argument);
      CHECK_THROWS_WITH_AS(
          trip(info.rung, fake, fake + 100, 10, TripBuffers{fake_device, fake_device + 5}, {}),
          doctest::Contains("overlap"), std::invalid_argument);
      CHECK_THROWS_WITH_AS(
          trip(info.rung, fake, fake + 100, 10, TripBuffers{fake + 5, fake_device}, {}),
          doctest::Contains("overlap"), std::invalid_argument);
    }
    CHECK_NOTHROW(trip(info.rung, nullptr, nullptr, 0, TripBuffers{}, {}));
  }
}
