// Lesson 11's tests: every rung sorts uint32 and float keys, alone and with values, at many
// lengths and on special inputs; the result is compared with a stable CPU sort (keys bit-exact;
// values exactly for the stable rungs, as a permutation consistent with the keys for the
// networks); batches of arrays and every threads-per-block for the networks; speed as a share of
// CUB's radix sort measured in this run; bad arguments refused. Test names, thresholds and
// points come from the grading table in lessons/11_sorting/README.md.
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "course/testing.hpp"
#include "sorting.cuh"
#include "sorting_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson11;

// Guards around the keys and values: a write there is a bug, and a key read from there would
// show up in the result. 17 keys in front also starts the arrays off a 16-byte boundary.
constexpr std::size_t kFront = 17;
constexpr std::size_t kBack = 16;
constexpr std::uint32_t kFrontGuard = 0xFFFFFFFFu;  // would sort last if read
constexpr std::uint32_t kBackGuard = 0u;            // would sort first if read

enum class Keys { Uniform, AllEqual, Ascending, Descending, FewDistinct, Extremes, LowByte };
constexpr Keys kKeyPatterns[] = {Keys::Uniform,    Keys::AllEqual,    Keys::Ascending,
                                 Keys::Descending, Keys::FewDistinct, Keys::Extremes,
                                 Keys::LowByte};

std::string name_of(Keys pattern) {
  switch (pattern) {
    case Keys::Uniform:
      return "uniform";
    case Keys::AllEqual:
      return "all-equal";
    case Keys::Ascending:
      return "ascending";
    case Keys::Descending:
      return "descending";
    case Keys::FewDistinct:
      return "few-distinct";
    case Keys::Extremes:
      return "extremes (0, 1, 2^31 +- 1, 2^32 - 2, 2^32 - 1)";
    case Keys::LowByte:
      return "low-byte (keys < 256)";
  }
  return "?";
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
constexpr Floats kFloatPatterns[] = {Floats::Uniform, Floats::LargeMagnitude, Floats::FewDistinct,
                                     Floats::Specials, Floats::Denormals};

std::string name_of(Floats pattern) {
  switch (pattern) {
    case Floats::Uniform:
      return "uniform floats";
    case Floats::LargeMagnitude:
      return "large-magnitude floats";
    case Floats::FewDistinct:
      return "few-distinct floats";
    case Floats::Specials:
      return "floats with +-0, +-inf, +-NaN, denormals, +-FLT_MAX";
    case Floats::Denormals:
      return "denormal floats of both signs";
  }
  return "?";
}

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

std::string describe(const Run& run, const std::string& input, std::uint64_t seed) {
  std::string text = std::string(name_of(run.variant)) + (run.pairs ? " pairs" : " keys") +
                     (run.floats ? "<float>" : "<uint32>") + " n " + std::to_string(run.length);
  if (run.batch != 1)
    text += " x batch " + std::to_string(run.batch);
  if (run.threads != 0)
    text += ", threads " + std::to_string(run.threads);
  return text + ", " + input + " input, seed " + std::to_string(seed);
}

// Sorts @p bits as @p run says and checks keys, values and guards against the CPU reference.
void check_one(const Run& run, const std::vector<std::uint32_t>& bits, const std::string& where) {
  const std::size_t n = run.batch * run.length;
  std::vector<std::uint32_t> framed(kFront + n + kBack, kBackGuard);
  std::fill_n(framed.begin(), kFront, kFrontGuard);
  for (std::size_t i = 0; i < n; ++i)
    framed[kFront + i] = bits[i];
  std::vector<std::uint32_t> framed_values(kFront + n + kBack, kBackGuard);
  std::fill_n(framed_values.begin(), kFront, kFrontGuard);
  for (std::size_t i = 0; i < n; ++i)
    framed_values[kFront + i] = static_cast<std::uint32_t>(i);
  DeviceBuffer<std::uint32_t> d_keys{std::span<const std::uint32_t>(framed)};
  DeviceBuffer<std::uint32_t> d_values{std::span<const std::uint32_t>(framed_values)};
  std::uint32_t* keys = d_keys.data() + kFront;
  std::uint32_t* values = run.pairs ? d_values.data() + kFront : nullptr;
  Workspace workspace;
  if (run.floats) {
    auto* float_keys = reinterpret_cast<float*>(keys);
    if (run.pairs)
      sort_pairs(run.variant, float_keys, values, n, workspace);
    else
      sort_keys(run.variant, float_keys, n, workspace);
  } else {
    sort_batches(run.variant, keys, values, run.batch, run.length, run.threads, workspace);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto all_keys = d_keys.to_host();
  const auto all_values = d_values.to_host();
  const std::span<const std::uint32_t> got_keys(all_keys.data() + kFront, n);
  const std::span<const std::uint32_t> got_values(all_values.data() + kFront, n);

  // The reference, array by array; order[] holds input positions in the whole buffer.
  std::vector<std::uint32_t> expected(n), order(n);
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
      expected[first + i] = sorted.keys[i];
      order[first + i] = static_cast<std::uint32_t>(first + sorted.order[i]);
    }
  }
  COURSE_CHECK_MATCH(compare_exact<std::uint32_t>(got_keys, expected, {n}), where + ", keys");

  if (run.pairs) {
    if (info_of(run.variant).stable) {
      COURSE_CHECK_MATCH(compare_exact<std::uint32_t>(got_values, order, {n}),
                         where +
                             ", values (a stable sort keeps equal keys in input order; each "
                             "value is its key's input position)");
    } else {
      // Any order among equal keys, but each value must be the input position of a key equal
      // to the one beside it, in the same array, and each input position must appear once.
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
  }

  auto guards_intact = [&](const std::vector<std::uint32_t>& all) {
    for (std::size_t i = 0; i < kFront; ++i)
      if (all[i] != kFrontGuard)
        return false;
    for (std::size_t i = kFront + n; i < all.size(); ++i)
      if (all[i] != kBackGuard)
        return false;
    return true;
  };
  CHECK_MESSAGE(guards_intact(all_keys), where << ": a key was written outside the array");
  CHECK_MESSAGE(guards_intact(all_values), where << ": a value was written outside the array");
}

std::vector<std::size_t> correctness_lengths(Variant variant) {
  // One key, tiny arrays, warp and tile sizes +- 1 (networks: 4096-key tiles; radix: 4096-key
  // tiles), odd sizes, a million.
  // Under a sanitizer (quick mode) every shared-memory access is checked, hundreds of times
  // slower: the sizes stop at two tiles.
  std::vector<std::size_t> lengths{1, 2, 3, 31, 64, 1000, 1025, 4095, 4096, 4097, 8193};
  if (!quick_mode()) {
    lengths.push_back(65537);
    lengths.push_back(std::size_t{1} << 20);
    if (!info_of(variant).network)
      lengths.push_back(std::size_t{1} << 24);
  }
  return lengths;
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
    for (const Keys pattern : kKeyPatterns) {
      if (length >= (std::size_t{1} << 20) && pattern != Keys::Uniform &&
          pattern != Keys::FewDistinct)
        continue;  // the largest sizes: two inputs
      const std::uint64_t seed = derive_seed(base, stream++);
      const auto keys = make_keys(pattern, length, seed);
      Run run{variant, false, true, 1, length, 0};
      check_one(run, keys, describe(run, name_of(pattern), seed));
      if (pattern == Keys::Uniform || pattern == Keys::Extremes) {
        run.pairs = false;
        if (!huge || pattern == Keys::Uniform)
          check_one(run, keys, describe(run, name_of(pattern), seed));
      }
    }
  }
  std::vector<std::size_t> float_lengths{1, 3, 1000, 4097};
  if (!quick_mode())
    float_lengths.push_back(65537);
  for (const std::size_t length : float_lengths) {
    for (const Floats pattern : kFloatPatterns) {
      const std::uint64_t seed = derive_seed(base, stream++);
      const auto bits = make_float_bits(pattern, length, seed);
      for (const bool pairs : {false, true}) {
        const Run run{variant, true, pairs, 1, length, 0};
        check_one(run, bits, describe(run, name_of(pattern), seed));
      }
    }
  }
  if (!info_of(variant).network)
    return;
  // The networks: batches of arrays (powers of two and ragged), and every threads per block.
  struct Batch {
    std::size_t batch, length;
    int threads;
  };
  std::vector<Batch> batches{{64, 1024, 0}, {16, 1000, 0},  {1000, 3, 0},    {3, 5000, 0},
                             {7, 4097, 64}, {64, 1024, 64}, {5, 20000, 128}, {2, 65536, 256},
                             {9, 777, 512}, {3, 9999, 1024}};
  if (quick_mode())
    batches = {{64, 1024, 0}, {3, 5000, 0}, {7, 4097, 64}, {9, 777, 512}};
  else
    batches.push_back({4, (std::size_t{1} << 18) + 3, 0});
  for (const int threads : kNetworkThreads)
    batches.push_back({1, quick_mode() ? std::size_t{9001} : std::size_t{100001}, threads});
  for (const Batch b : batches) {
    for (const Keys pattern : {Keys::Uniform, Keys::FewDistinct}) {
      const std::uint64_t seed = derive_seed(base, stream++);
      const auto keys = make_keys(pattern, b.batch * b.length, seed);
      const Run run{variant, false, true, b.batch, b.length, b.threads};
      check_one(run, keys, describe(run, name_of(pattern), seed));
    }
  }
}

// Times @p variant on 2^@p log2n uniform keys (each repeat sorts a fresh copy, as the CUB
// ceiling does) after checking the result; thrust in the same run as the baseline.
SpeedSample measure(Variant variant, int log2n) {
  const std::size_t n = std::size_t{1} << log2n;
  const auto keys = uniform_keys(n, derive_seed(base_seed(), 1000));
  DeviceBuffer<std::uint32_t> d_source{std::span<const std::uint32_t>(keys)};
  DeviceBuffer<std::uint32_t> d_keys(n);
  Workspace workspace;
  auto sort_fresh = [&](Variant v, cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(d_keys.data(), d_source.data(), d_source.bytes(),
                               cudaMemcpyDeviceToDevice, stream));
    sort_keys(v, d_keys.data(), n, workspace, stream);
  };
  sort_fresh(variant, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  auto expected = keys;
  std::sort(expected.begin(), expected.end());
  REQUIRE_MESSAGE(d_keys.to_host() == expected, name_of(variant)
                                                    << " sorts 2^" << log2n
                                                    << " keys wrongly; fix correctness first");

  auto time = [&](Variant v) {
    return time_on_gpu([&](cudaStream_t stream) { sort_fresh(v, stream); }).median_ms;
  };
  SpeedSample sample;
  sample.time_ms = time(variant);
  sample.speedup = time(Variant::Thrust) / sample.time_ms;
  sample.baseline = "thrust";
  const double gkeys_per_s = static_cast<double>(n) / (sample.time_ms * 1e6);
  sample.share = gkeys_per_s / ceilings::cub_radix_sort_keys(n).value;
  sample.ceiling = "CUB radix sort, 2^" + std::to_string(log2n) + " keys";
  return sample;
}

}  // namespace

TEST_CASE("thrust.correct") {
  check_correct(Variant::Thrust);
}
TEST_CASE("bitonic.correct") {
  check_correct(Variant::Bitonic);
}
TEST_CASE("odd_even_merge.correct") {
  check_correct(Variant::OddEvenMerge);
}
TEST_CASE("radix.correct") {
  check_correct(Variant::Radix);
}
TEST_CASE("radix_wide.correct") {
  check_correct(Variant::RadixWide);
}

TEST_CASE("bitonic.speed") {
  COURSE_CHECK_SPEED("bitonic.speed", Graded::Share, [] { return measure(Variant::Bitonic, 20); });
}
TEST_CASE("odd_even_merge.speed") {
  COURSE_CHECK_SPEED("odd_even_merge.speed", Graded::Share,
                     [] { return measure(Variant::OddEvenMerge, 20); });
}
TEST_CASE("radix.speed") {
  COURSE_CHECK_SPEED("radix.speed", Graded::Share, [] { return measure(Variant::Radix, 24); });
}
TEST_CASE("radix_wide.speed") {
  COURSE_CHECK_SPEED("radix_wide.speed", Graded::Share,
                     [] { return measure(Variant::RadixWide, 24); });
}

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
