// Lesson 09's tests: every rung bit-exact on every input (uniform letters, English-like text,
// long and short runs, one letter, no letters, uniform bytes), many sizes, misaligned starts and
// block sizes, each run twice on the same output; speed as ratios measured in this run against
// atomic_global and CUB's DeviceHistogram::HistogramEven; bad arguments refused. Test names,
// thresholds and points come from the grading table in lessons/09_histogram/README.md.
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "course/testing.hpp"
#include "histogram.cuh"
#include "histogram_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson09;

constexpr std::size_t kGuard = 16;  // poisoned counts after the result: a write there is a bug
constexpr std::size_t kTrap = 64;   // letters around the input: reading them changes the counts
constexpr std::size_t kLarge = std::size_t{1} << 28;  // the default size

std::string describe(Variant variant, std::size_t n, std::string_view input, std::uint64_t seed,
                     std::size_t offset, int block) {
  return std::string(name_of(variant)) + " n " + std::to_string(n) + ", " + std::string(input) +
         " input, seed " + std::to_string(seed) + ", block " + std::to_string(block) +
         (offset != 0
              ? ", input starting " + std::to_string(offset) + " bytes past a 16-byte boundary"
              : "");
}

// Runs @p variant twice on @p text placed @p offset bytes past a 16-byte boundary, with 'z'
// before it and 'a' after it; each time the counts are poisoned first, and must come out exact
// with the guard after them untouched. The second run catches scratch memory (or shared memory)
// that still holds the first run's counts.
void check_one(Variant variant, std::span<const unsigned char> text, std::size_t offset, int block,
               const std::string& where) {
  const std::size_t n = text.size();
  std::vector<unsigned char> framed(offset + n + kTrap, 'a');
  std::fill_n(framed.begin(), offset, 'z');
  std::copy(text.begin(), text.end(), framed.begin() + static_cast<std::ptrdiff_t>(offset));
  DeviceBuffer<unsigned char> d_text{std::span<const unsigned char>(framed)};
  const auto bins = static_cast<std::size_t>(bins_of(variant));
  DeviceBuffer<std::uint32_t> d_bins(bins + kGuard);
  const auto expected = histogram_reference(variant, text);
  for (const char* run : {"first run", "second run"}) {
    d_bins.poison();
    histogram(variant, n == 0 ? nullptr : d_text.data() + offset, n, d_bins.data(), {}, block);
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto all = d_bins.to_host();
    const std::span<const std::uint32_t> got(all.data(), bins);
    COURSE_CHECK_MATCH(compare_exact<std::uint32_t>(got, expected, {bins}), where + ", " + run);
    const std::vector<std::uint32_t> poison(kGuard, 0xFFFFFFFFu);
    CHECK_MESSAGE(
        std::memcmp(all.data() + bins, poison.data(), kGuard * sizeof(std::uint32_t)) == 0,
        where << ", " << run << ": the rung wrote past its " << bins << " counts");
  }
}

// One block of 256 +- 1, a 16-byte vector +- 1, a warp +- 1, primes, 10^6 + 3.
std::vector<std::size_t> correctness_sizes() {
  if (quick_mode())
    return {1, 17, 257, 4097, 65537};
  return {1, 2, 3, 15, 16, 17, 31, 32, 33, 255, 256, 257, 4095, 4097, 65537, 1000003};
}

void check_correct(Variant variant) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  // The histogram of nothing: all zeros, written by the launcher.
  check_one(variant, {}, 0, kDefaultBlock, describe(variant, 0, "empty", 0, 0, kDefaultBlock));
  for (const std::size_t n : correctness_sizes()) {
    const std::uint64_t seed = derive_seed(base, stream++);
    for (const auto& info : kInputs) {
      if (quick_mode() && info.input != Input::UniformLetters && info.input != Input::English)
        continue;
      const std::string text = make_text(info.input, n, seed);
      check_one(variant, bytes_of(text), 0, kDefaultBlock,
                describe(variant, n, info.what, seed, 0, kDefaultBlock));
    }
    // Short runs (mean 8): runs that begin and end inside every thread's share of the input.
    const std::string runs = text_with_runs(n, seed, 8);
    check_one(variant, bytes_of(runs), 0, kDefaultBlock,
              describe(variant, n, "short runs (mean 8)", seed, 0, kDefaultBlock));
  }
  // Starts that are not 16-byte aligned, for the rungs that read 16 bytes at a time.
  for (const std::size_t offset : {1, 2, 3, 15}) {
    const std::uint64_t seed = derive_seed(base, stream++);
    for (const std::size_t n :
         {std::size_t{5}, std::size_t{33}, std::size_t{quick_mode() ? 4099u : 100003u}}) {
      const std::string text = make_text(Input::UniformLetters, n, seed);
      check_one(variant, bytes_of(text), offset, kDefaultBlock,
                describe(variant, n, "uniform letters", seed, offset, kDefaultBlock));
    }
  }
  // The smallest block, a block that is not a power of two, the largest block.
  for (const int block : {32, 96, 1024}) {
    const std::uint64_t seed = derive_seed(base, stream++);
    for (const std::size_t n : {std::size_t{31}, std::size_t{quick_mode() ? 4099u : 1000003u}}) {
      const std::string text = make_text(Input::English, n, seed);
      check_one(variant, bytes_of(text), 0, block,
                describe(variant, n, "English-like text", seed, 0, block));
    }
  }
  if (quick_mode())
    return;
  // The default size: enough bytes per thread that any counter narrower than 32 bits overflows
  // on one letter only.
  const std::uint64_t seed = derive_seed(base, stream++);
  for (const Input input : {Input::UniformLetters, Input::LongRuns, Input::OneLetter}) {
    const std::string text = make_text(input, kLarge, seed);
    check_one(variant, bytes_of(text), 0, kDefaultBlock,
              describe(variant, kLarge, name_of(input), seed, 0, kDefaultBlock));
  }
}

// ---------------------------------------------------------------------------------------------
// Speed.

// One input of 2^28 bytes on the GPU with its expected counts, made once per process.
struct SpeedInput {
  DeviceBuffer<unsigned char> d_text;
  std::vector<std::uint32_t> letters;
  std::vector<std::uint32_t> bytes;
};

const SpeedInput& speed_input(Input input) {
  static std::map<Input, std::unique_ptr<SpeedInput>> made;
  auto& slot = made[input];
  if (!slot) {
    const std::string text = make_text(input, kLarge, derive_seed(base_seed(), 1000));
    slot = std::make_unique<SpeedInput>(SpeedInput{DeviceBuffer<unsigned char>{bytes_of(text)},
                                                   letter_histogram_reference(bytes_of(text)),
                                                   byte_histogram_reference(bytes_of(text))});
  }
  return *slot;
}

// Times @p variant (and @p baseline, in the same run) on 2^28 bytes of @p input after checking
// the timed result (a fast wrong answer earns nothing); its share is of CUB's HistogramEven on
// the same bytes: 7 bins of 4 letters from 'a', or 256 bins for Bytes256. ('{' and '|' would
// fall into CUB's last letter bin; the inputs timed here hold none.)
SpeedSample measure(Variant variant, Input input, std::optional<Variant> baseline) {
  const SpeedInput& in = speed_input(input);
  const int bins = bins_of(variant);
  DeviceBuffer<std::uint32_t> d_bins(static_cast<std::size_t>(bins));
  d_bins.poison();
  histogram(variant, in.d_text.data(), kLarge, d_bins.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto& expected = bins == kByteBins ? in.bytes : in.letters;
  REQUIRE_MESSAGE(
      compare_exact<std::uint32_t>(d_bins.to_host(), expected, {static_cast<std::size_t>(bins)}).ok,
      name_of(variant) << " gives wrong counts for 2^28 bytes of " << name_of(input)
                       << "; fix correctness first");
  auto time = [&](Variant v) {
    return time_on_gpu(
               [&](cudaStream_t s) { histogram(v, in.d_text.data(), kLarge, d_bins.data(), s); })
        .median_ms;
  };
  SpeedSample sample;
  sample.time_ms = time(variant);
  if (baseline) {
    sample.speedup = time(*baseline) / sample.time_ms;
    sample.baseline = name_of(*baseline);
  }
  const auto ceiling = bins == kByteBins
                           ? ceilings::cub_histogram_even(in.d_text.data(), kLarge, 256, 0, 256)
                           : ceilings::cub_histogram_even(in.d_text.data(), kLarge, kLetterBins,
                                                          'a', 'a' + 4 * kLetterBins);
  sample.share = gb_per_s(static_cast<double>(kLarge), sample.time_ms) / ceiling.value;
  sample.ceiling =
      "CUB HistogramEven (" + std::to_string(bins) + " bins, " + std::string(name_of(input)) + ")";
  return sample;
}

}  // namespace

TEST_CASE("atomic_global.correct") {
  check_correct(Variant::AtomicGlobal);
}
TEST_CASE("privatized_global.correct") {
  check_correct(Variant::PrivatizedGlobal);
}
TEST_CASE("privatized_shared.correct") {
  check_correct(Variant::PrivatizedShared);
}
TEST_CASE("coarsened_contiguous.correct") {
  check_correct(Variant::CoarsenedContiguous);
}
TEST_CASE("coarsened_interleaved.correct") {
  check_correct(Variant::CoarsenedInterleaved);
}
TEST_CASE("aggregated.correct") {
  check_correct(Variant::Aggregated);
}
TEST_CASE("register_privatized.correct") {
  check_correct(Variant::RegisterPrivatized);
}
TEST_CASE("bytes256.correct") {
  check_correct(Variant::Bytes256);
}

TEST_CASE("privatized_shared.speed") {
  COURSE_CHECK_SPEED("privatized_shared.speed", Graded::Speedup, [] {
    return measure(Variant::PrivatizedShared, Input::UniformLetters, Variant::AtomicGlobal);
  });
}
TEST_CASE("coarsened_interleaved.speed") {
  COURSE_CHECK_SPEED("coarsened_interleaved.speed", Graded::Share, [] {
    return measure(Variant::CoarsenedInterleaved, Input::UniformLetters, std::nullopt);
  });
}
TEST_CASE("aggregated.speed") {
  COURSE_CHECK_SPEED("aggregated.speed", Graded::Share,
                     [] { return measure(Variant::Aggregated, Input::LongRuns, std::nullopt); });
}
TEST_CASE("register_privatized.speed") {
  COURSE_CHECK_SPEED("register_privatized.speed", Graded::Share, [] {
    return measure(Variant::RegisterPrivatized, Input::UniformLetters, std::nullopt);
  });
}
TEST_CASE("register_privatized.speed_runs") {
  COURSE_CHECK_SPEED("register_privatized.speed_runs", Graded::Share, [] {
    return measure(Variant::RegisterPrivatized, Input::LongRuns, std::nullopt);
  });
}
TEST_CASE("bytes256.speed") {
  COURSE_CHECK_SPEED("bytes256.speed", Graded::Share,
                     [] { return measure(Variant::Bytes256, Input::UniformBytes, std::nullopt); });
}

// Runs without a GPU: every check happens before the launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  auto* text = reinterpret_cast<unsigned char*>(std::uintptr_t{1} << 20);  // never read
  auto* bins = reinterpret_cast<std::uint32_t*>(std::uintptr_t{1} << 24);
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    CHECK_THROWS_WITH_AS(histogram(info.variant, text, kMaxCount + 1, bins),
                         doctest::Contains("2^32 - 1"), std::invalid_argument);
    for (const int block : {0, 16, 48, 100, 1056, 2048})
      CHECK_THROWS_WITH_AS(histogram(info.variant, text, 100, bins, {}, block),
                           doctest::Contains("multiple of 32 in [32, 1024]"),
                           std::invalid_argument);
    CHECK_THROWS_WITH_AS(histogram(info.variant, text, 100, nullptr), doctest::Contains("d_bins"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(histogram(info.variant, nullptr, 100, bins), doctest::Contains("d_text"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(
        histogram(info.variant, text, 100, reinterpret_cast<std::uint32_t*>(text + 2 * 1024 + 2)),
        doctest::Contains("4-byte aligned"), std::invalid_argument);
    // The counts inside the text, and the text starting inside the counts.
    CHECK_THROWS_WITH_AS(
        histogram(info.variant, text, 100, reinterpret_cast<std::uint32_t*>(text + 40)),
        doctest::Contains("overlaps"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(
        histogram(info.variant, reinterpret_cast<const unsigned char*>(bins) + 4, 100, bins),
        doctest::Contains("overlaps"), std::invalid_argument);
  }
  CHECK_THROWS_WITH_AS(histogram(static_cast<Variant>(42), text, 100, bins),
                       doctest::Contains("unknown variant"), std::invalid_argument);
}
