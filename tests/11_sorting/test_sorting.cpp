// Lesson 11's tests: every rung sorts uint32 and float keys, alone and with values, at many
// lengths and on special inputs; the result is compared with a stable CPU sort (keys bit-exact;
// values exactly for the stable rungs, as a permutation consistent with the keys for the
// networks); each pointer aligned or not on its own; the same buffers sorted twice; batches of
// arrays, every threads-per-block, with and without values, and kMaxKeys for the networks; speed
// as a share of CUB's radix sort measured in this run, by course::measure() (sorting_bench.hpp);
// bad arguments refused. Test names, thresholds and points come from the grading table in
// lessons/11_sorting/README.md.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "course/testing.hpp"
#include "sorting.cuh"
#include "sorting_bench.hpp"
#include "sorting_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson11;

// Guards around the keys and values (class Framed): a write there is a bug, and a key read from
// there would show up in the result.
constexpr std::uint32_t kFrontGuard = 0xFFFFFFFFu;  // would sort last if read
constexpr std::uint32_t kBackGuard = 0u;            // would sort first if read

enum class Keys { Uniform, AllEqual, Ascending, Descending, FewDistinct, Extremes, LowByte };

// Every key pattern, in the order the checks take them, with its name in messages. make_keys()
// makes each, and its switch has a case for every pattern: a new one goes in both.
constexpr std::array<std::pair<Keys, std::string_view>, 7> kKeyPatterns{{
    {Keys::Uniform, "uniform"},
    {Keys::AllEqual, "all-equal"},
    {Keys::Ascending, "ascending"},
    {Keys::Descending, "descending"},
    {Keys::FewDistinct, "few-distinct"},
    {Keys::Extremes, "extremes (0, 1, 2^31 +- 1, 2^32 - 2, 2^32 - 1)"},
    {Keys::LowByte, "low-byte (keys < 256)"},
}};

std::string_view name_of(Keys pattern) {
  return name_in(kKeyPatterns, pattern);
}

std::vector<std::uint32_t> make_keys(Keys pattern, std::size_t n, std::uint64_t seed) {
  auto keys = uniform_keys(n, seed);
  static constexpr std::uint32_t kExtremes[] = {0u,          1u,          0x7FFFFFFFu,
                                                0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
  for (std::size_t i = 0; i < n; ++i) {
    switch (pattern) {
      case Keys::Uniform:
        break;
      case Keys::AllEqual:
        keys[i] = 0x9E3779B9u;
        break;
      case Keys::Ascending:
        keys[i] = static_cast<std::uint32_t>(i * 2654435u);
        break;
      case Keys::Descending:
        keys[i] = static_cast<std::uint32_t>((n - i) * 2654435u);
        break;
      case Keys::FewDistinct:
        keys[i] = 0x01010101u * (keys[i] % 4) + 0x00F0000Fu;
        break;
      case Keys::Extremes:
        keys[i] = kExtremes[keys[i] % 6];
        break;
      case Keys::LowByte:
        keys[i] &= 0xFFu;
        break;
    }
  }
  return keys;
}

enum class Floats { Uniform, LargeMagnitude, FewDistinct, Specials, Denormals };

// Every float pattern, in the order the checks take them, with its name in messages (each made
// by make_float_bits()).
constexpr std::array<std::pair<Floats, std::string_view>, 5> kFloatPatterns{{
    {Floats::Uniform, "uniform floats"},
    {Floats::LargeMagnitude, "large-magnitude floats"},
    {Floats::FewDistinct, "few-distinct floats"},
    {Floats::Specials, "floats with +-0, +-inf, +-NaN, denormals, +-FLT_MAX"},
    {Floats::Denormals, "denormal floats of both signs"},
}};

// Float keys as their bit patterns (NaNs keep their payloads that way).
std::vector<std::uint32_t> make_float_bits(Floats pattern, std::size_t n, std::uint64_t seed) {
  std::vector<float> values;
  switch (pattern) {
    case Floats::Uniform:
      values = pattern_floats(Pattern::Uniform, n, seed);
      break;
    case Floats::LargeMagnitude:
      values = pattern_floats(Pattern::LargeMagnitude, n, seed);
      break;
    case Floats::FewDistinct:
      values = pattern_floats(Pattern::FewDistinct, n, seed);
      break;
    default:
      values = pattern_floats(Pattern::Uniform, n, seed);
      break;
  }
  std::vector<std::uint32_t> bits(n);
  static constexpr std::uint32_t kSpecials[] = {
      0x00000000u, 0x80000000u,  // +0, -0
      0x7F800000u, 0xFF800000u,  // +inf, -inf
      0x7FC00000u, 0xFFC00000u,  // quiet NaNs of both signs
      0x7F800001u, 0xFFBFFFFFu,  // NaNs with other payloads
      0x00000001u, 0x80000001u,  // the smallest denormals
      0x007FFFFFu, 0x807FFFFFu,  // the largest denormals
      0x00800000u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x3F800000u, 0xBF800000u};
  for (std::size_t i = 0; i < n; ++i) {
    bits[i] = std::bit_cast<std::uint32_t>(values[i]);
    const std::uint64_t h = hash64(seed ^ 0x5A5A5A5Au, i);
    if (pattern == Floats::Specials && h % 2 == 0)
      bits[i] = kSpecials[(h >> 8) % std::size(kSpecials)];
    if (pattern == Floats::Denormals)
      bits[i] = static_cast<std::uint32_t>(h & 0x807FFFFFu);
  }
  return bits;
}

struct Run {
  Variant variant;
  bool floats = false;
  bool pairs = false;
  std::size_t batch = 1;
  std::size_t length = 0;
  int threads = 0;
};

std::string describe(const Run& run, std::string_view input, std::uint64_t seed) {
  std::string text = std::string(name_of(run.variant)) + (run.pairs ? " pairs" : " keys") +
                     (run.floats ? "<float>" : "<uint32>") + " n " + std::to_string(run.length);
  if (run.batch != 1)
    text += " x batch " + std::to_string(run.batch);
  if (run.threads != 0)
    text += ", threads " + std::to_string(run.threads);
  return text + ", " + std::string(input) + " input, seed " + std::to_string(seed);
}

// Where the keys and the values start: one element past a 16-byte boundary (the default, as a
// slice of a larger array would), or on one. Each pointer is placed on its own, so a rung that
// checks one pointer's alignment and assumes the other's is caught.
struct Frame {
  bool keys_aligned = false;
  bool values_aligned = false;
};

std::string describe(Frame frame) {
  if (!frame.keys_aligned && !frame.values_aligned)
    return "";
  return std::string(", keys ") + (frame.keys_aligned ? "16-byte aligned" : "misaligned") +
         ", values " + (frame.values_aligned ? "16-byte aligned" : "misaligned");
}

// A device array between guards: kFrontGuard before it, kBackGuard after it (no guards under a
// sanitizer), starting on a 16-byte boundary or one element past it.
class Framed {
 public:
  Framed(std::span<const std::uint32_t> contents, bool aligned)
      : front_(guard_elements(kGuard) + (aligned ? 0 : 1)),
        n_(contents.size()),
        buffer_(front_ + n_ + guard_elements(kGuard)) {
    upload(contents);
  }
  // Writes @p contents (n elements) and the guards.
  void upload(std::span<const std::uint32_t> contents) {
    buffer_.upload(
        framed_by(contents, front_, kFrontGuard, buffer_.size() - front_ - n_, kBackGuard));
  }
  std::uint32_t* data() { return buffer_.data() + front_; }
  // The array and whether the guards are intact.
  std::vector<std::uint32_t> download(bool& guards_intact) const {
    const auto all = buffer_.to_host();
    guards_intact = true;
    for (std::size_t i = 0; i < all.size(); ++i)
      if ((i < front_ && all[i] != kFrontGuard) || (i >= front_ + n_ && all[i] != kBackGuard))
        guards_intact = false;
    return {all.begin() + static_cast<std::ptrdiff_t>(front_),
            all.begin() + static_cast<std::ptrdiff_t>(front_ + n_)};
  }

 private:
  static constexpr std::size_t kGuard = 16;
  std::size_t front_;
  std::size_t n_;
  DeviceBuffer<std::uint32_t> buffer_;
};

// What a sort of @p bits as @p run says must give: the keys, and order[i], the input position
// (in the whole buffer) of the key that lands at i, in stable order.
struct Expected {
  std::vector<std::uint32_t> keys, order;
};

Expected expected_of(const Run& run, const std::vector<std::uint32_t>& bits) {
  const std::size_t n = run.batch * run.length;
  Expected expected{std::vector<std::uint32_t>(n), std::vector<std::uint32_t>(n)};
  for (std::size_t a = 0; a < run.batch; ++a) {
    const std::size_t first = a * run.length;
    SortedPairs sorted;
    if (run.floats) {
      std::vector<float> array(run.length);
      std::memcpy(array.data(), bits.data() + first, run.length * sizeof(float));
      sorted = sort_reference(std::span<const float>(array));
    } else {
      sorted = sort_reference(std::span<const std::uint32_t>(bits.data() + first, run.length));
    }
    for (std::size_t i = 0; i < run.length; ++i) {
      expected.keys[first + i] = sorted.keys[i];
      expected.order[first + i] = static_cast<std::uint32_t>(first + sorted.order[i]);
    }
  }
  return expected;
}

std::vector<std::uint32_t> positions(std::size_t n) {
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = static_cast<std::uint32_t>(i);
  return values;
}

// Sorts the keys (and, for pairs, values) in place as @p run says, shared memory poisoned first.
void sort_run(const Run& run, std::uint32_t* keys, std::uint32_t* values, Workspace& workspace) {
  const std::size_t n = run.batch * run.length;
  poison_shared_memory(nullptr);
  if (run.floats) {
    auto* float_keys = reinterpret_cast<float*>(keys);
    if (run.pairs)
      sort_pairs(run.variant, float_keys, values, n, workspace);
    else
      sort_keys(run.variant, float_keys, n, workspace);
  } else {
    sort_batches(run.variant, keys, run.pairs ? values : nullptr, run.batch, run.length,
                 run.threads, workspace);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
}

// Checks sorted keys (and values: input positions) against the CPU reference.
void verify(const Run& run, const std::vector<std::uint32_t>& bits, const Expected& expected,
            std::span<const std::uint32_t> got_keys, std::span<const std::uint32_t> got_values,
            const std::string& where) {
  const std::size_t n = run.batch * run.length;
  COURSE_CHECK_MATCH(compare_exact<std::uint32_t>(got_keys, expected.keys, {n}), where + ", keys");
  if (!run.pairs)
    return;
  if (info_of(run.variant).stable) {
    COURSE_CHECK_MATCH(compare_exact<std::uint32_t>(got_values, expected.order, {n}),
                       where +
                           ", values (a stable sort keeps equal keys in input order; each "
                           "value is its key's input position)");
    return;
  }
  // Any order among equal keys, but each value must be the input position of a key equal to the
  // one beside it, in the same array, and each input position must appear once.
  std::vector<bool> seen(n, false);
  std::string problem;
  for (std::size_t i = 0; i < n && problem.empty(); ++i) {
    const std::uint32_t from = got_values[i];
    const std::size_t array = i / run.length;
    if (from >= n || from / run.length != array)
      problem = "value at [" + std::to_string(i) + "] is " + std::to_string(from) +
                ", not a position in array " + std::to_string(array);
    else if (seen[from])
      problem = "value " + std::to_string(from) + " appears twice (second at [" +
                std::to_string(i) + "])";
    else if (bits[from] != got_keys[i])
      problem = "at [" + std::to_string(i) + "] the key is " + std::to_string(got_keys[i]) +
                " but its value " + std::to_string(from) + " came with key " +
                std::to_string(bits[from]);
    else
      seen[from] = true;
  }
  CHECK_MESSAGE(problem.empty(), where << ", values: " << problem);
}

// Sorts @p bits as @p run says, in fresh framed buffers, and checks keys, values and guards.
void check_one(const Run& run, const std::vector<std::uint32_t>& bits, const Expected& expected,
               const std::string& where, Frame frame = {}) {
  const std::size_t n = run.batch * run.length;
  Framed keys(bits, frame.keys_aligned);
  Framed values(positions(n), frame.values_aligned);
  Workspace workspace;
  sort_run(run, keys.data(), values.data(), workspace);
  bool keys_guarded = true, values_guarded = true;
  const auto got_keys = keys.download(keys_guarded);
  const auto got_values = values.download(values_guarded);
  const std::string here = where + describe(frame);
  verify(run, bits, expected, got_keys, got_values, here);
  CHECK_MESSAGE(keys_guarded, here << ": a key was written outside the array");
  CHECK_MESSAGE(values_guarded, here << ": a value was written outside the array");
}

std::vector<std::size_t> correctness_lengths(Variant variant) {
  // One key, tiny arrays, warp and tile sizes +- 1 (networks: 4096-key tiles; radix: 4096-key
  // tiles), odd sizes, a million, and for the rungs that sort one array only, kMaxKeys.
  // Under a sanitizer (quick mode) every shared-memory access is checked, hundreds of times
  // slower: the sizes stop at two tiles.
  std::vector<std::size_t> lengths = fewer_under_sanitizer<std::size_t>(
      {1, 2, 3, 31, 64, 1000, 1025, 4095, 4096, 4097, 8193}, {1, 31, 4097});
  if (!quick_mode()) {
    lengths.push_back(65537);
    lengths.push_back(std::size_t{1} << 20);
    if (!info_of(variant).network)
      lengths.push_back(kMaxKeys);
  }
  return lengths;
}

// Each pointer on a 16-byte boundary on its own (the other one element past it), and both, at a
// ragged length and at whole tiles of 4096 keys (where a vectorized path would run).
void check_alignments(Variant variant, std::uint64_t& stream) {
  const std::uint64_t base = base_seed();
  // Under a sanitizer (quick mode): one length with a whole tile and a ragged end; none under
  // racecheck, which checks shared memory, where a pointer's offset moves nothing.
  std::vector<std::size_t> lengths{4097};
  if (!quick_mode())
    lengths = {1000, 12288, 65536};
  for (const std::size_t length : none_under_racecheck(lengths)) {
    const std::uint64_t seed = derive_seed(base, stream++);
    const auto keys = make_keys(Keys::Uniform, length, seed);
    Run run{variant, false, true, 1, length, 0};
    const Expected expected = expected_of(run, keys);
    for (const Frame frame : {Frame{true, false}, Frame{false, true}, Frame{true, true}})
      check_one(run, keys, expected, describe(run, name_of(Keys::Uniform), seed), frame);
    run.pairs = false;
    check_one(run, keys, expected, describe(run, name_of(Keys::Uniform), seed), {true, true});
  }
}

// The same buffers sorted twice, the second time with one key changed (not the first, last or
// middle one): a rung that keeps its last result and hands it back when the pointers, the size
// or a few sampled keys repeat is wrong the second time. Not under a sanitizer (quick mode): it
// checks honesty, not memory safety, and racecheck is slow.
void check_repeat(Variant variant, std::uint64_t& stream) {
  if (quick_mode())
    return;
  for (const std::size_t length : {std::size_t{4097}, std::size_t{1} << 20}) {
    const std::uint64_t seed = derive_seed(base_seed(), stream++);
    const auto first = make_keys(Keys::Uniform, length, seed);
    const std::size_t changed = length / 3 + 1;
    const auto second = [&] {
      auto keys = first;
      keys[changed] ^= 0x80000000u;
      return keys;
    }();
    const Run one{variant, false, true, 1, length, 0};
    const Expected expected[] = {expected_of(one, first), expected_of(one, second)};
    for (const bool pairs : {true, false}) {
      const Run run{variant, false, pairs, 1, length, 0};
      Framed keys(first, false);
      Framed values(positions(length), false);
      Workspace workspace;
      const std::string where = describe(run, name_of(Keys::Uniform), seed);
      for (const int call : {0, 1}) {
        const auto& input = call == 0 ? first : second;
        keys.upload(input);
        values.upload(positions(length));
        sort_run(run, keys.data(), values.data(), workspace);
        bool keys_guarded = true, values_guarded = true;
        const auto got_keys = keys.download(keys_guarded);
        const auto got_values = values.download(values_guarded);
        verify(run, input, expected[call], got_keys, got_values,
               call == 0 ? where
                         : where + ", sorted again in the same buffers with key [" +
                               std::to_string(changed) +
                               "] changed (a result kept from the call before is wrong)");
        CHECK_MESSAGE((keys_guarded && values_guarded), where << ": written outside the arrays");
      }
    }
  }
}

// The networks at kMaxKeys, where their index arithmetic is largest: one array of kMaxKeys keys,
// and a ragged batch whose padded index space is near 2 kMaxKeys. CUB's sort on the GPU is the
// reference here (course::measure()'s trusted code, untimed), and a network's values are a
// function of their keys (sorting_bench.hpp): a CPU sort of 2^24 keys per case would take seconds.
void check_at_limit(Variant variant, std::uint64_t& stream) {
  if (quick_mode())
    return;
  const std::size_t ragged = (std::size_t{1} << 17) + 1;
  const SortShape shapes[] = {{1, kMaxKeys, false, false, 0},
                              {1, kMaxKeys, false, true, 0},
                              {kMaxKeys / ragged, ragged, false, true, 0},
                              {kMaxKeys / ragged, ragged, false, false, 256}};
  for (const SortShape& shape : shapes) {
    const std::uint64_t seed = derive_seed(base_seed(), stream++);
    SortBench bench(shape);
    bench.load(variant, seed, nullptr);
    bench.reference(variant, nullptr);
    poison_shared_memory(nullptr);
    bench.launch(variant, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const Run run{variant, false, shape.pairs, shape.batch, shape.length, shape.threads};
    const std::string where = describe(run, "uniform", seed) + " (at kMaxKeys, against CUB)";
    const std::size_t n = shape.count();
    COURSE_CHECK_MATCH(
        compare_exact<std::uint32_t>(bench.keys().to_host(), bench.expected_keys().to_host(), {n}),
        where + ", keys");
    if (shape.pairs)
      COURSE_CHECK_MATCH(compare_exact<std::uint32_t>(bench.values().to_host(),
                                                      bench.expected_values().to_host(), {n}),
                         where + ", values (each a function of its key: it must travel with it)");
  }
}

void check_correct(Variant variant) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  {  // n = 0 is a no-op, even with null pointers
    Workspace workspace;
    CHECK_NOTHROW(sort_keys(variant, static_cast<std::uint32_t*>(nullptr), 0, workspace));
  }
  for (const std::size_t length : correctness_lengths(variant)) {
    const bool huge = length > (std::size_t{1} << 20);
    for (const auto& [pattern, name] : kKeyPatterns) {
      if (length >= (std::size_t{1} << 20) && pattern != Keys::Uniform &&
          pattern != Keys::FewDistinct)
        continue;  // the largest sizes: two inputs
      // Under the sanitizers: random keys, and for radix the extreme digits (a digit picks a
      // shared-memory counter); a network's compare-and-swaps touch the same addresses whatever
      // the keys.
      if (sanitize_mode() && pattern != Keys::Uniform &&
          (pattern != Keys::Extremes || info_of(variant).network))
        continue;
      const std::uint64_t seed = derive_seed(base, stream++);
      const auto keys = make_keys(pattern, length, seed);
      Run run{variant, false, true, 1, length, 0};
      const Expected expected = expected_of(run, keys);
      check_one(run, keys, expected, describe(run, name, seed));
      if (pattern == Keys::Uniform || pattern == Keys::Extremes) {
        run.pairs = false;
        if (!huge || pattern == Keys::Uniform)
          check_one(run, keys, expected, describe(run, name, seed));
      }
    }
  }
  std::vector<std::size_t> float_lengths =
      fewer_under_sanitizer<std::size_t>({1, 3, 1000, 4097}, {1025});
  if (!quick_mode())
    float_lengths.push_back(65537);
  for (const std::size_t length : float_lengths) {
    for (const auto& [pattern, name] : kFloatPatterns) {
      if (sanitize_mode() && pattern != Floats::Uniform)
        continue;  // the values move no access
      const std::uint64_t seed = derive_seed(base, stream++);
      const auto bits = make_float_bits(pattern, length, seed);
      Run run{variant, true, false, 1, length, 0};
      const Expected expected = expected_of(run, bits);
      for (const bool pairs : {false, true}) {
        run.pairs = pairs;
        check_one(run, bits, expected, describe(run, name, seed));
      }
    }
  }
  check_alignments(variant, stream);
  check_repeat(variant, stream);
  if (!info_of(variant).network)
    return;
  // The networks: batches of arrays (powers of two and ragged), and every threads per block, each
  // with values and keys only (the kernels differ).
  struct Batch {
    std::size_t batch, length;
    int threads;
  };
  std::vector<Batch> batches{{64, 1024, 0}, {16, 1000, 0},  {1000, 3, 0},    {3, 5000, 0},
                             {7, 4097, 64}, {64, 1024, 64}, {5, 20000, 128}, {2, 65536, 256},
                             {9, 777, 512}, {3, 9999, 1024}};
  if (quick_mode())
    batches = {{4, 1024, 0}, {2, 4097, 64}, {9, 77, 512}};
  else
    batches.push_back({4, (std::size_t{1} << 18) + 3, 0});
  for (const int threads : kNetworkThreads)
    batches.push_back({1,
                       std::size_t{!quick_mode()     ? 100001u
                                   : threads == 1024 ? 4097u
                                                     : 1025u},
                       threads});
  for (const Batch b : batches) {
    for (const Keys pattern : {Keys::Uniform, Keys::FewDistinct}) {
      if (sanitize_mode() && pattern != Keys::Uniform)
        continue;
      const std::uint64_t seed = derive_seed(base, stream++);
      const auto keys = make_keys(pattern, b.batch * b.length, seed);
      Run run{variant, false, true, b.batch, b.length, b.threads};
      const Expected expected = expected_of(run, keys);
      check_one(run, keys, expected, describe(run, name_of(pattern), seed));
      // Keys only too; under a sanitizer (quick mode) only for the threads-per-block sweep.
      if (pattern == Keys::Uniform && (!quick_mode() || b.batch == 1)) {
        run.pairs = false;
        check_one(run, keys, expected, describe(run, name_of(pattern), seed));
      }
    }
  }
  check_at_limit(variant, stream);
}

// One speed sample of @p variant on 2^@p log2n uniform uint32 keys, measured by course::measure()
// (fresh keys and a CUB check around every timed sort, sorting_bench.hpp); thrust in the same run
// as the baseline, CUB's radix sort as the ceiling.
SpeedSample sample_of(Variant variant, int log2n) {
  const std::size_t n = std::size_t{1} << log2n;
  SortBench bench({.batch = 1, .length = n});
  const MeasureOptions options = speed_options(1000);
  SpeedSample sample = speed_sample(measure(bench.trial(variant), options));
  sample.ceiling = "CUB radix sort, 2^" + std::to_string(log2n) + " keys";
  if (!sample.failure.empty())
    return sample;
  add_speedup(sample, measure(bench.trial(Variant::Thrust), options), "thrust");
  const double gkeys_per_s = static_cast<double>(n) / (sample.time_ms * 1e6);
  sample.share = gkeys_per_s / ceilings::cub_radix_sort_keys(n).value;
  return sample;
}

}  // namespace

COURSE_CORRECT_TEST("thrust.correct", check_correct(Variant::Thrust));

COURSE_CORRECT_TEST("bitonic.correct", check_correct(Variant::Bitonic));
COURSE_SPEED_TEST("bitonic.speed", Graded::Share, sample_of(Variant::Bitonic, 20));

COURSE_CORRECT_TEST("odd_even_merge.correct", check_correct(Variant::OddEvenMerge));
COURSE_SPEED_TEST("odd_even_merge.speed", Graded::Share, sample_of(Variant::OddEvenMerge, 20));

COURSE_CORRECT_TEST("radix.correct", check_correct(Variant::Radix));
COURSE_SPEED_TEST("radix.speed", Graded::Share, sample_of(Variant::Radix, 24));

COURSE_CORRECT_TEST("radix_wide.correct", check_correct(Variant::RadixWide));
COURSE_SPEED_TEST("radix_wide.speed", Graded::Share, sample_of(Variant::RadixWide, 24));

// Runs without a GPU: every check happens before the launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  auto* fake = reinterpret_cast<std::uint32_t*>(std::uintptr_t{1} << 20);  // never dereferenced
  auto* fake_floats = reinterpret_cast<float*>(fake);
  Workspace workspace;
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    const Variant v = info.variant;
    CHECK_THROWS_WITH_AS(sort_keys(v, fake, kMaxKeys + 1, workspace), doctest::Contains("kMaxKeys"),
                         std::invalid_argument);
    CHECK_THROWS_AS(
        sort_batches(v, fake, nullptr, std::size_t{1} << 40, std::size_t{1} << 40, 0, workspace),
        std::invalid_argument);
    CHECK_THROWS_AS(sort_keys(v, static_cast<std::uint32_t*>(nullptr), 10, workspace),
                    std::invalid_argument);
    CHECK_THROWS_AS(sort_keys(v, static_cast<float*>(nullptr), 10, workspace),
                    std::invalid_argument);
    CHECK_THROWS_AS(sort_pairs(v, fake, nullptr, 10, workspace), std::invalid_argument);
    CHECK_THROWS_AS(sort_pairs(v, fake_floats, nullptr, 10, workspace), std::invalid_argument);
    CHECK_THROWS_WITH_AS(sort_pairs(v, fake, fake + 5, 10, workspace), doctest::Contains("overlap"),
                         std::invalid_argument);
    CHECK_THROWS_AS(sort_pairs(v, fake_floats, fake + 9, 10, workspace), std::invalid_argument);
    CHECK_THROWS_WITH_AS(sort_batches(v, fake, nullptr, 1, 10, 96, workspace),
                         doctest::Contains("64, 128, 256, 512, 1024"), std::invalid_argument);
    if (!info.network) {
      CHECK_THROWS_WITH_AS(sort_batches(v, fake, nullptr, 2, 10, 0, workspace),
                           doctest::Contains("batch = 1"), std::invalid_argument);
      CHECK_THROWS_AS(sort_batches(v, fake, nullptr, 1, 10, 256, workspace), std::invalid_argument);
    }
    // Nothing to sort is a no-op, even with null pointers.
    CHECK_NOTHROW(sort_keys(v, static_cast<std::uint32_t*>(nullptr), 0, workspace));
    CHECK_NOTHROW(sort_pairs(v, static_cast<float*>(nullptr), nullptr, 0, workspace));
    CHECK_NOTHROW(sort_batches(v, nullptr, nullptr, 0, 100, 0, workspace));
    CHECK_NOTHROW(sort_batches(v, nullptr, nullptr, 1, 0, 0, workspace));
  }
  CHECK(workspace.bytes() == 0);
}
