// Lesson 09's tests: every rung bit-exact on every input (uniform letters, English-like text,
// long and short runs, one letter, no letters, uniform bytes), many sizes, misaligned text and
// counts, every block size, each run twice on the same output and once more after one byte of
// the input changed; speed as ratios measured in this run against atomic_global and CUB's
// DeviceHistogram::HistogramEven, timed by course::measure() on fresh text for every launch
// (histogram_bench.hpp); bad arguments refused. Test names, thresholds and points come from the
// grading table in lessons/09_histogram/README.md.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "course/testing.hpp"
#include "histogram.cuh"
#include "histogram_bench.hpp"
#include "histogram_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson09;

constexpr std::size_t kGuard = 16;  // poisoned counts after the result: a write there is a bug
constexpr std::size_t kTrap = 64;   // letters after the input: reading them changes the counts
constexpr std::size_t kLarge = std::size_t{1} << 28;  // the default size

// Where a check places its buffers, and the block of the exercise rungs.
struct Placement {
  std::size_t text_offset = 0;  // bytes past a 16-byte boundary where the text starts
  std::size_t bins_offset = 0;  // counts (4 bytes each) past a 16-byte boundary where they start
  int block = kDefaultBlock;
};

std::string describe(Variant variant, std::size_t n, std::string_view input, std::uint64_t seed,
                     const Placement& at) {
  return std::string(name_of(variant)) + " n " + std::to_string(n) + ", " + std::string(input) +
         " input, seed " + std::to_string(seed) + ", block " + std::to_string(at.block) +
         offset_text("input", at.text_offset, "starting {} bytes past a 16-byte boundary") +
         offset_text("counts", 4 * at.bins_offset, "starting {} bytes past a 16-byte boundary");
}

// Runs @p variant on @p text placed as @p at says, with 'z' before it and 'a' after it; each
// time the counts are poisoned first, and must come out exact with the counts before and after
// them untouched, and the text (const in the interface) exactly as uploaded. It runs twice on the
// same output (the second run catches scratch or shared memory that still holds the first run's
// counts), then once more with one byte in the middle of the text changed, in the same buffers (a
// rung that keeps results keyed on the input's address, or on a few of its bytes, returns the old
// counts).
void check_one(Variant variant, std::span<const unsigned char> text, const Placement& at,
               const std::string& where) {
  const std::size_t n = text.size();
  const std::vector<unsigned char> framed =
      framed_by<unsigned char>(text, at.text_offset, 'z', guard_elements(kTrap), 'a');
  DeviceBuffer<unsigned char> d_text{std::span<const unsigned char>(framed)};
  const auto bins = static_cast<std::size_t>(bins_of(variant));
  const std::size_t after = guard_elements(kGuard);
  DeviceBuffer<std::uint32_t> d_bins(at.bins_offset + bins + after);
  unsigned char* const text_at = n == 0 ? nullptr : d_text.data() + at.text_offset;
  std::uint32_t* const bins_at = d_bins.data() + at.bins_offset;
  // What the text at text_at holds: a rung that counts right but uses its input as scratch (or
  // scribbles on it) breaks the caller's data, so the text must still be this after every run.
  std::vector<unsigned char> uploaded(text.begin(), text.end());

  auto run = [&](std::span<const std::uint32_t> expected, const std::string& which) {
    d_bins.poison();
    histogram(variant, text_at, n, bins_at, {}, at.block);
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto all = d_bins.to_host();
    const std::span<const std::uint32_t> got(all.data() + at.bins_offset, bins);
    COURSE_CHECK_MATCH(compare_exact<std::uint32_t>(got, expected, {bins}), where + ", " + which);
    COURSE_CHECK_UNCHANGED(text_at, uploaded, "d_text", where + ", " + which);
    const std::span<const std::uint32_t> everything(all);
    CHECK_MESSAGE(still_poisoned(everything.first(at.bins_offset)),
                  where << ", " << which << ": the rung wrote before its " << bins << " counts");
    CHECK_MESSAGE(still_poisoned(everything.subspan(at.bins_offset + bins, after)),
                  where << ", " << which << ": the rung wrote past its " << bins << " counts");
  };
  const auto expected = histogram_reference(variant, text);
  run(expected, "first run");
  run(expected, "second run");
  if (n == 0)
    return;
  // The middle byte moves to another bin.
  const unsigned char middle = uploaded[n / 2];
  change_element(uploaded, text_at, n / 2,
                 static_cast<unsigned char>(
                     middle >= 'a' && middle <= 'z' ? (middle <= 'm' ? 'z' : 'a') : 'q'));
  run(histogram_reference(variant, uploaded),
      "third run, byte " + std::to_string(n / 2) + " changed to '" +
          std::string(1, static_cast<char>(uploaded[n / 2])) + "' in the same buffers");
}

// One block of 256 +- 1, a 16-byte vector +- 1, a warp +- 1, primes, 10^6 + 3.
std::vector<std::size_t> correctness_sizes() {
  if (quick_mode())
    return {1, 17, 257, 4097, 65537};
  return {1, 2, 3, 15, 16, 17, 31, 32, 33, 255, 256, 257, 4095, 4097, 65537, 1000003};
}

// The GPU's text (histogram_bench.cu: what the speed tests and the demo count) is make_text()'s,
// byte for byte, for every input: sizes across several long runs included.
void check_generator() {
  const std::uint64_t seed = derive_seed(base_seed(), 2000);
  for (const auto& info : kInputs) {
    for (const std::size_t n : {std::size_t{1}, std::size_t{4097},
                                quick_mode() ? 2 * kLongRun + 5 : 5 * kLongRun + 12345}) {
      DeviceBuffer<unsigned char> d_text(n);
      fill_text(info.input, d_text.data(), n, seed, nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      const std::string text = make_text(info.input, n, seed);
      COURSE_CHECK_MATCH(compare_exact<std::uint8_t>(d_text.to_host(), bytes_of(text), {n}),
                         "fill_text(" + std::string(info.name) + ", n " + std::to_string(n) +
                             ", seed " + std::to_string(seed) + ") against make_text()");
    }
  }
}

void check_correct(Variant variant) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  // The histogram of nothing: all zeros, written by the launcher.
  check_one(variant, {}, {}, describe(variant, 0, "empty", 0, {}));
  for (const std::size_t n : correctness_sizes()) {
    const std::uint64_t seed = derive_seed(base, stream++);
    for (const auto& info : kInputs) {
      if (quick_mode() && info.input != Input::UniformLetters && info.input != Input::English)
        continue;
      const std::string text = make_text(info.input, n, seed);
      check_one(variant, bytes_of(text), {}, describe(variant, n, info.what, seed, {}));
    }
    // Short runs (mean 8): runs that begin and end inside every thread's share of the input.
    const std::string runs = text_with_runs(n, seed, 8);
    check_one(variant, bytes_of(runs), {}, describe(variant, n, "short runs (mean 8)", seed, {}));
  }
  // Text and counts that do not start on a 16-byte boundary, each alone and both: for the rungs
  // that read 16 bytes at a time (4096: whole vectors only, if the text were aligned).
  for (const Placement at : fewer_under_sanitizer<Placement>(
           {{1, 0}, {2, 0}, {3, 0}, {15, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 3}},
           {{1, 0}, {15, 0}, {0, 1}, {1, 3}})) {
    const std::uint64_t seed = derive_seed(base, stream++);
    for (const std::size_t n : fewer_under_sanitizer<std::size_t>(
             {5, 33, 4096, quick_mode() ? 4099u : 100003u}, {33, 4099})) {
      const std::string text = make_text(Input::UniformLetters, n, seed);
      check_one(variant, bytes_of(text), at, describe(variant, n, "uniform letters", seed, at));
    }
  }
  // Every block the launcher accepts (the stretch rungs choose their own): more bytes than the
  // resident threads, so that the coarsened rungs' loops go round more than once; and the
  // smallest block, one that is not a power of two and the largest at 10^6 + 3.
  for (int block = 32; block <= 1024; block += 32) {
    const bool marked = block == 32 || block == 96 || block == 1024;
    if (quick_mode() && !marked && block != 544)
      continue;
    const Placement at{0, 0, block};
    const std::uint64_t seed = derive_seed(base, stream++);
    // (Under the sanitizers, the largest block alone goes round its loops.)
    std::vector<std::size_t> sizes{31, quick_mode() && block != 1024 ? 4099u : 300007u};
    if (marked && !quick_mode())
      sizes.push_back(1000003);
    for (const std::size_t n : sizes) {
      const std::string text = make_text(Input::English, n, seed);
      check_one(variant, bytes_of(text), at, describe(variant, n, "English-like text", seed, at));
    }
  }
  if (quick_mode())
    return;
  // The default size: enough bytes per thread that any counter narrower than 32 bits overflows
  // on one letter only.
  const std::uint64_t seed = derive_seed(base, stream++);
  for (const Input input : {Input::UniformLetters, Input::LongRuns, Input::OneLetter}) {
    const std::string text = make_text(input, kLarge, seed);
    check_one(variant, bytes_of(text), {}, describe(variant, kLarge, name_of(input), seed, {}));
  }
}

// ---------------------------------------------------------------------------------------------
// Speed.

// The timed buffers, 2^28 bytes, made once per process.
HistogramBench& speed_bench() {
  static HistogramBench bench(kLarge);
  return bench;
}

// Times @p variant (and @p baseline, in the same run) on 2^28 bytes of @p input, fresh for every
// launch and every launch's counts checked (course::measure); its share is of CUB's HistogramEven
// on the same bytes: 7 bins of 4 letters from 'a', or 256 bins for Bytes256. A measurement that
// does not stand (wrong counts, work outside the timed stream) fails the test.
SpeedSample sample_of(Variant variant, Input input, std::optional<Variant> baseline) {
  HistogramBench& bench = speed_bench();
  const MeasureOptions options = speed_options(1000);
  SpeedSample sample = speed_sample(measure(bench.trial(variant, input), options));
  const int bins = bins_of(variant);
  sample.ceiling =
      "CUB HistogramEven (" + std::to_string(bins) + " bins, " + std::string(name_of(input)) + ")";
  if (!sample.failure.empty())
    return sample;
  // The ceiling on the bytes the rung was last timed on (the same kind of input).
  const auto ceiling = histogram_ceiling(bench.text(), kLarge, bins);
  sample.share = gb_per_s(static_cast<double>(kLarge), sample.time_ms) / ceiling.value;
  if (baseline)
    add_speedup(sample, measure(bench.trial(*baseline, input), options), name_of(*baseline));
  return sample;
}

}  // namespace

TEST_CASE("atomic_global.correct") {
  check_generator();
  check_correct(Variant::AtomicGlobal);
}
COURSE_CORRECT_TEST("privatized_global.correct", check_correct(Variant::PrivatizedGlobal));

COURSE_CORRECT_TEST("privatized_shared.correct", check_correct(Variant::PrivatizedShared));
COURSE_SPEED_TEST("privatized_shared.speed", Graded::Speedup,
                  sample_of(Variant::PrivatizedShared, Input::UniformLetters,
                            Variant::AtomicGlobal));

COURSE_CORRECT_TEST("coarsened_contiguous.correct", check_correct(Variant::CoarsenedContiguous));

COURSE_CORRECT_TEST("coarsened_interleaved.correct", check_correct(Variant::CoarsenedInterleaved));
COURSE_SPEED_TEST("coarsened_interleaved.speed", Graded::Share,
                  sample_of(Variant::CoarsenedInterleaved, Input::UniformLetters, std::nullopt));

COURSE_CORRECT_TEST("aggregated.correct", check_correct(Variant::Aggregated));
COURSE_SPEED_TEST("aggregated.speed", Graded::Share,
                  sample_of(Variant::Aggregated, Input::LongRuns, std::nullopt));

COURSE_CORRECT_TEST("register_privatized.correct", check_correct(Variant::RegisterPrivatized));
COURSE_SPEED_TEST("register_privatized.speed", Graded::Share,
                  sample_of(Variant::RegisterPrivatized, Input::UniformLetters, std::nullopt));
COURSE_SPEED_TEST("register_privatized.speed_runs", Graded::Share,
                  sample_of(Variant::RegisterPrivatized, Input::LongRuns, std::nullopt));

COURSE_CORRECT_TEST("bytes256.correct", check_correct(Variant::Bytes256));
COURSE_SPEED_TEST("bytes256.speed", Graded::Share,
                  sample_of(Variant::Bytes256, Input::UniformBytes, std::nullopt));

// Runs without a GPU: every check happens before the launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  auto* text = reinterpret_cast<unsigned char*>(std::uintptr_t{1} << 20);  // never read
  auto* bins = reinterpret_cast<std::uint32_t*>(std::uintptr_t{1} << 24);
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    CHECK_THROWS_WITH_AS(histogram(info.variant, text, kMaxCount + 1, bins),
                         doctest::Contains("2^30"), std::invalid_argument);
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
