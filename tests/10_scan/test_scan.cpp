// Lesson 10's tests: every rung, inclusive and exclusive, on int (bit-exact) and float (within a
// bound derived per rung), on sizes around warps, blocks, sections and tiles, in place and out of
// place, with misaligned inputs and outputs and every block size, and once more after one input
// element changed in the same buffers; speed as ratios measured in this run, timed by
// course::measure() on fresh inputs for every launch (scan_bench.hpp); bad arguments refused.
// Test names, thresholds and points come from the grading table in lessons/10_scan/README.md.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "course/testing.hpp"
#include "course/testing_inputs.hpp"
#include "scan.cuh"
#include "scan_bench.hpp"
#include "scan_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson10;

constexpr std::size_t kGuard = 16;  // poisoned elements after the output: a write there is a bug
constexpr std::size_t kFront = 4;   // trap values before the input (16 bytes: alignment kept)
constexpr std::size_t kTrap = 64;   // trap values after the input

template <class T>
T trap_value() {
  return static_cast<T>(12345678);
}

struct Case {
  int block = kDefaultBlock;
  std::size_t offset = 0;  // elements past a 16-byte boundary where the input starts
  bool in_place = false;
  std::size_t out_offset = 0;  // elements past a 16-byte boundary where the output starts
};

std::string describe(Variant variant, ScanKind kind, std::string_view type, std::size_t n,
                     std::string_view input, std::uint64_t seed, const Case& c) {
  return std::string(name_of(variant)) + " " + std::string(name_of(kind)) + "<" +
         std::string(type) + "> n " + std::to_string(n) + ", " + std::string(input) +
         " input, seed " + std::to_string(seed) + ", block " + std::to_string(c.block) +
         offset_text("input", c.offset, "starting {} elements in") +
         offset_text("output", c.out_offset, "starting {} elements in") +
         (c.in_place ? ", in place" : "");
}

// Checks @p got (n elements) against the reference of @p input.
template <class T>
Comparison compare_scan(Variant variant, ScanKind kind, std::span<const T> input,
                        std::span<const T> got, int block) {
  const std::size_t n = input.size();
  const std::size_t section = section_length(variant, block);
  if constexpr (std::is_same_v<T, int>) {
    const auto expected = scan_reference(input, kind, section);
    return compare_exact<int>(got, expected, {n});
  } else {
    const auto expected = scan_reference(input, kind, section);
    return compare_bounded(got, expected.value, error_bound(expected, variant, n, block), {n});
  }
}

// Runs @p variant on @p input, framed by trap values; checks the output, the poisoned elements
// around it, and (out of place) that the input is unchanged. Out of place, it then changes one
// element in the middle of the input, in the same buffers, and checks again: a rung that keeps
// results keyed on the input's address, or on a few of its elements, returns the old scan.
template <class T>
void check_one(Variant variant, ScanKind kind, std::span<const T> input, const Case& c,
               const std::string& where) {
  const std::size_t n = input.size();
  const std::size_t guard = guard_elements(kGuard);
  const std::size_t start = kFront + c.offset;
  std::vector<T> values(input.begin(), input.end());
  std::vector<T> framed =
      framed_by(input, start, trap_value<T>(), guard_elements(kTrap), trap_value<T>());
  if (c.in_place) {
    // The output is the input: the guard is the poisoned stretch right after it.
    std::memset(framed.data() + start + n, 0xFF, guard * sizeof(T));
  }
  DeviceBuffer<T> d_in{std::span<const T>(framed)};
  DeviceBuffer<T> d_out(c.in_place ? 0 : c.out_offset + n + guard);
  T* const out = c.in_place ? d_in.data() + start : d_out.data() + c.out_offset;

  auto run = [&](const std::string& which) {
    if (!c.in_place) {
      d_out.poison();
    } else {
      poison_shared_memory(nullptr);  // the output cannot be poisoned: it is the input
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    scan(variant, kind, d_in.data() + start, out, n, {}, c.block);
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto after = d_in.to_host();
    const auto all =
        c.in_place ? std::vector<T>(after.begin() + static_cast<std::ptrdiff_t>(start),
                                    after.begin() + static_cast<std::ptrdiff_t>(start + n + guard))
                   : d_out.to_host();
    const T* const got = c.in_place ? all.data() : all.data() + c.out_offset;
    COURSE_CHECK_MATCH(compare_scan<T>(variant, kind, values, std::span<const T>(got, n), c.block),
                       where + which);
    CHECK_MESSAGE(still_poisoned(std::span<const T>(got + n, guard)),
                  where << which << ": the rung wrote past the end of its output");
    if (!c.in_place) {
      CHECK_MESSAGE(still_poisoned(std::span<const T>(all).first(c.out_offset)),
                    where << which << ": the rung wrote before the start of its output");
      // Out of place the input is const: it, and the trap values around it, must be exactly
      // as uploaded (a rung that scans right but uses its input as scratch breaks the caller's
      // data).
      COURSE_CHECK_UNCHANGED(d_in.data(), framed,
                             "d_in (with the trap values around it; index " +
                                 std::to_string(start) + " is its element 0)",
                             where + which);
    } else {
      CHECK_MESSAGE(std::memcmp(after.data(), framed.data(), start * sizeof(T)) == 0,
                    where << which << ": the rung wrote before the start of its output");
    }
  };
  run("");
  if (c.in_place || n > (std::size_t{1} << 21))
    return;
  const std::size_t middle = n / 2;
  change_element(values, d_in.data() + start, middle,
                 static_cast<T>(values[middle] + (values[middle] < T{0} ? T{1} : T{-1})));
  framed[start + middle] = values[middle];
  run(", second run with element " + std::to_string(middle) + " of the input changed");
}

// Sizes around a warp, the default block, the rung's section (at the default block), the
// single-pass tile; primes; a size large enough for many sections and tiles.
std::vector<std::size_t> correctness_sizes(Variant variant) {
  // (Under the sanitizers, up to a few sections: the sizes of several tiles come from the
  // blocks below.)
  std::vector<std::size_t> sizes =
      fewer_under_sanitizer<std::size_t>({1, 33, 1025, 4097, 65537}, {1, 33, 1025, 4097});
  if (!quick_mode()) {
    sizes = {1,    2,    31,   32,   33,   511,  512,   513,    1023,
             1024, 1025, 4095, 4096, 4097, 8193, 65537, 100003, (std::size_t{1} << 20) + 7};
    const std::size_t s = section_length(variant, kDefaultBlock);
    if (s != kWholeInput)
      for (const std::size_t extra : {s - 1, s, s + 1, 3 * s + 1})
        sizes.push_back(extra);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// The float inputs: uniform, all-equal and large-magnitude, and only positive values.
NamedInputs<float> float_inputs(std::size_t n, std::uint64_t seed) {
  NamedInputs<float> inputs = basic_float_inputs(n, seed);
  if (!quick_mode())
    inputs.emplace_back("positive [1, 2)", uniform_floats(n, seed + 1, 1.0f, 2.0f));
  return inputs;
}

template <class T>
void check_type(Variant variant, std::string_view type, std::uint64_t base, std::uint64_t& stream) {
  for (const auto& [kind, kind_name] : kScanKinds) {
    // n = 0 is a no-op: nothing written, even with null pointers.
    {
      DeviceBuffer<T> d_out(kGuard);
      d_out.poison();
      scan(variant, kind, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), 0);
      scan(variant, kind, d_out.data(), d_out.data() + 1, 0);
      CUDA_CHECK(cudaDeviceSynchronize());
      const bool untouched = still_poisoned<T>(d_out.to_host());
      CHECK_MESSAGE(untouched, name_of(variant) << " " << kind_name << "<" << type
                                                << "> n 0: the rung wrote something");
    }
    for (const std::size_t n : correctness_sizes(variant)) {
      const std::uint64_t seed = derive_seed(base, stream++);
      if constexpr (std::is_same_v<T, int>) {
        for (const auto& [name, input] : basic_int_inputs(n, seed))
          check_one<T>(variant, kind, input, {}, describe(variant, kind, type, n, name, seed, {}));
      } else {
        for (const auto& [name, input] : float_inputs(n, seed))
          check_one<T>(variant, kind, input, {}, describe(variant, kind, type, n, name, seed, {}));
      }
    }
    // Every block the launchers accept (single_pass chooses its own), at sizes of several of the
    // rung's sections at that block; in place; inputs and outputs that start off a 16-byte
    // boundary, each alone and both (65536: whole tiles, the fast path where there is one).
    // Under the sanitizers, the floats take the same paths as the ints: the sizes above only.
    if (sanitize_mode() && std::is_same_v<T, float>)
      continue;
    std::vector<std::pair<Case, std::vector<std::size_t>>> cases;
    for (int block = kMinBlock; block <= kMaxBlock; block *= 2) {
      if (sanitize_mode() && block != kMinBlock && block != kMaxBlock)
        continue;  // the smallest and the largest block: the paths the others take
      std::size_t s = section_length(variant, block);
      if (s == kWholeInput)
        s = section_length(Variant::ThreePhase, block);  // hierarchical's sections
      std::vector<std::size_t> ns{33, 3 * s + 1};
      if (!sanitize_mode())
        ns.push_back(65537);
      if (block == kMinBlock) {
        ns.push_back(1025);
        if (!quick_mode())
          ns.push_back(300007);
      }
      if (block == kMaxBlock && !sanitize_mode())
        ns.insert(ns.end(), {1025, 100003});
      cases.push_back({{.block = block}, ns});
    }
    cases.push_back(
        {{.in_place = true}, fewer_under_sanitizer<std::size_t>({1, 1025, 65537}, {1, 1025})});
    if (!quick_mode())
      cases.back().second.push_back((std::size_t{1} << 20) + 7);
    // (Not under racecheck: an offset moves global-memory accesses only.)
    std::vector<Case> misaligned = fewer_under_sanitizer<Case>(
        {{.offset = 1, .in_place = true},
         {.offset = 1},
         {.offset = 3},
         {.out_offset = 1},
         {.out_offset = 3},
         {.offset = 1, .out_offset = 2}},
        {{.offset = 1, .in_place = true}, {.offset = 1, .out_offset = 2}});
    for (const Case c : none_under_racecheck(misaligned))
      cases.push_back(
          {c, c.in_place ? std::vector<std::size_t>{4099}
                         : fewer_under_sanitizer<std::size_t>({7, 4099, 65536}, {7, 4096, 4099})});
    for (const auto& [c, ns] : cases) {
      for (const std::size_t n : ns) {
        const std::uint64_t seed = derive_seed(base, stream++);
        const auto input = uniform_input<T>(n, seed);
        check_one<T>(variant, kind, input, c, describe(variant, kind, type, n, "uniform", seed, c));
      }
    }
  }
}

void check_correct(Variant variant) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  check_type<int>(variant, "int", base, stream);
  check_type<float>(variant, "float", base, stream);
  if (quick_mode())
    return;
  // The default size: ints in [-31, 31], so that no partial sum of 2^26 of them leaves int32.
  constexpr std::size_t kLarge = std::size_t{1} << 26;
  const std::uint64_t seed = derive_seed(base, stream++);
  const auto ints = uniform_ints(kLarge, seed, -31, 31);
  for (const auto& [kind, kind_name] : kScanKinds)
    check_one<int>(variant, kind, ints, {},
                   describe(variant, kind, "int", kLarge, "uniform [-31, 31]", seed, {}));
  const auto floats = pattern_floats(Pattern::Uniform, kLarge, seed);
  check_one<float>(variant, ScanKind::Inclusive, floats, {},
                   describe(variant, ScanKind::Inclusive, "float", kLarge, "uniform", seed, {}));
}

// ---------------------------------------------------------------------------------------------
// Speed.

constexpr std::size_t kSpeedSize = std::size_t{1} << 26;

// The timed buffers, 2^26 floats, made once per process.
ScanBench<float>& speed_bench() {
  static ScanBench<float> bench(kSpeedSize);
  return bench;
}

// Times @p variant (and @p baseline, in the same run) on an inclusive float scan of 2^26
// elements, fresh for every launch and every launch's output checked (course::measure): a fast
// wrong answer earns nothing, and neither does work outside the timed stream. The section rungs
// do a segmented scan of the same input: the same bytes moved, so their times compare.
SpeedSample sample_of(Variant variant, std::optional<Variant> baseline) {
  ScanBench<float>& bench = speed_bench();
  const MeasureOptions options = speed_options(1000);
  SpeedSample sample = speed_sample(measure(bench.trial(variant, ScanKind::Inclusive), options));
  sample.ceiling = "CUB DeviceScan::InclusiveSum";
  if (!sample.failure.empty())
    return sample;
  sample.share = gb_per_s(8.0 * static_cast<double>(kSpeedSize), sample.time_ms) /
                 ceilings::cub_inclusive_sum(kSpeedSize).value;
  if (baseline)
    add_speedup(sample, measure(bench.trial(*baseline, ScanKind::Inclusive), options),
                name_of(*baseline));
  return sample;
}

}  // namespace

COURSE_CORRECT_TEST("kogge_stone.correct", check_correct(Variant::KoggeStone));

COURSE_CORRECT_TEST("kogge_stone_double_buffer.correct",
                    check_correct(Variant::KoggeStoneDoubleBuffer));
COURSE_SPEED_TEST("kogge_stone_double_buffer.speed", Graded::Share,
                  sample_of(Variant::KoggeStoneDoubleBuffer, Variant::KoggeStone));

COURSE_CORRECT_TEST("brent_kung.correct", check_correct(Variant::BrentKung));
COURSE_SPEED_TEST("brent_kung.speed", Graded::Share,
                  sample_of(Variant::BrentKung, Variant::KoggeStone));

COURSE_CORRECT_TEST("three_phase.correct", check_correct(Variant::ThreePhase));
COURSE_SPEED_TEST("three_phase.speed", Graded::Share,
                  sample_of(Variant::ThreePhase, Variant::KoggeStone));

COURSE_CORRECT_TEST("hierarchical.correct", check_correct(Variant::Hierarchical));
COURSE_SPEED_TEST("hierarchical.speed", Graded::Share,
                  sample_of(Variant::Hierarchical, std::nullopt));

COURSE_CORRECT_TEST("single_pass.correct", check_correct(Variant::SinglePass));
COURSE_SPEED_TEST("single_pass.speed", Graded::Share, sample_of(Variant::SinglePass, std::nullopt));

// Runs without a GPU: every check happens before the launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  int* fake_int = reinterpret_cast<int*>(std::uintptr_t{1} << 20);
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    for (const auto& [kind, kind_name] : kScanKinds) {
      CHECK_THROWS_WITH_AS(scan(info.variant, kind, fake, fake + 1000, kMaxCount + 1),
                           doctest::Contains("2^30"), std::invalid_argument);
      for (const int block : {0, 16, 48, 96, 2048, -512})
        CHECK_THROWS_WITH_AS(scan(info.variant, kind, fake, fake + 1000, 100, {}, block),
                             doctest::Contains("power of two in [32, 1024]"),
                             std::invalid_argument);
      CHECK_THROWS_AS(scan(info.variant, kind, fake_int, nullptr, 100), std::invalid_argument);
      CHECK_THROWS_AS(scan(info.variant, kind, nullptr, fake_int, 100), std::invalid_argument);
      CHECK_THROWS_WITH_AS(scan(info.variant, kind, fake, fake + 50, 100),
                           doctest::Contains("overlaps"), std::invalid_argument);
      CHECK_THROWS_WITH_AS(scan(info.variant, kind, fake + 50, fake, 100),
                           doctest::Contains("overlaps"), std::invalid_argument);
      CHECK_THROWS_AS(scan(info.variant, kind, fake_int + 1, fake_int, 100), std::invalid_argument);
      // n = 0 is a no-op that never touches the GPU, even with null pointers.
      CHECK_NOTHROW(scan(info.variant, kind, static_cast<const float*>(nullptr),
                         static_cast<float*>(nullptr), 0));
      CHECK_NOTHROW(scan(info.variant, kind, fake_int, fake_int + 1, 0));
    }
    CHECK_THROWS_WITH_AS(scan(info.variant, static_cast<ScanKind>(7), fake, fake + 1000, 100),
                         doctest::Contains("Inclusive or Exclusive"), std::invalid_argument);
  }
  CHECK_THROWS_WITH_AS(scan(static_cast<Variant>(42), ScanKind::Inclusive, fake, fake + 1000, 100),
                       doctest::Contains("unknown variant"), std::invalid_argument);
}
