// Lesson 07's tests: every rung against the double-precision reference within the error bound a
// float sum provably meets, on every radius and on shapes whose halos are mostly ghost cells;
// speed graded as ratios measured in this run; bad arguments refused. Test names, thresholds and
// points come from the grading table in lessons/07_convolution/README.md.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "convolution.cuh"
#include "convolution_bench.hpp"
#include "convolution_cpu.hpp"
#include "course/testing.hpp"

namespace {

using namespace course;
using namespace course::lesson07;

// The filters a rung is tried with. The separable rung takes the separable ones only.
enum class FilterKind {
  Box,              // every weight equal
  Gaussian,         // the usual blur
  RandomSeparable,  // column x row, each positive random, normalised
  SignedSeparable,  // column x row, each uniform in [-1, 1): sums that cancel
  RandomDense,      // (2r + 1)^2 positive random weights, normalised: not separable
  SignedDense,      // (2r + 1)^2 weights uniform in [-1, 1): not separable
};

constexpr FilterKind kSeparableKinds[] = {FilterKind::Box, FilterKind::Gaussian,
                                          FilterKind::RandomSeparable, FilterKind::SignedSeparable};
constexpr FilterKind kAllKinds[] = {FilterKind::Box,
                                    FilterKind::Gaussian,
                                    FilterKind::RandomSeparable,
                                    FilterKind::SignedSeparable,
                                    FilterKind::RandomDense,
                                    FilterKind::SignedDense};

// Each filter's name in messages (course::name_in). make_test_filter() makes each, and its
// switch has a case for every filter: a new one goes in both.
constexpr std::array<std::pair<FilterKind, std::string_view>, 6> kFilterNames{{
    {FilterKind::Box, "box"},
    {FilterKind::Gaussian, "gaussian"},
    {FilterKind::RandomSeparable, "random separable"},
    {FilterKind::SignedSeparable, "signed separable"},
    {FilterKind::RandomDense, "random dense"},
    {FilterKind::SignedDense, "signed dense"},
}};

std::vector<float> normalised(std::vector<float> weights) {
  double sum = 0.0;
  for (const float w : weights)
    sum += w;
  for (float& w : weights)
    w = static_cast<float>(w / sum);
  return weights;
}

Filter make_test_filter(FilterKind kind, int radius, std::uint64_t seed) {
  const std::size_t side = 2 * static_cast<std::size_t>(radius) + 1;
  switch (kind) {
    case FilterKind::Box:
      return make_box_filter(radius);
    case FilterKind::Gaussian:
      return make_gaussian_filter(radius);
    case FilterKind::RandomSeparable:
      return make_separable_filter(normalised(uniform_floats(side, seed, 0.05f, 1.0f)),
                                   normalised(uniform_floats(side, seed + 1, 0.05f, 1.0f)));
    case FilterKind::SignedSeparable:
      return make_separable_filter(uniform_floats(side, seed), uniform_floats(side, seed + 1));
    case FilterKind::RandomDense:
      return make_filter(radius, normalised(uniform_floats(side * side, seed, 0.05f, 1.0f)));
    case FilterKind::SignedDense:
      return make_filter(radius, uniform_floats(side * side, seed));
  }
  throw std::logic_error("make_test_filter: unknown kind");
}

// The images a rung is tried with.
enum class Image {
  Intensity,  // uniform in [0, 1): pixel intensities
  Signed,     // uniform in [-1, 1)
  Large,      // uniform in [-1e6, 1e6)
  AllEqual,   // one value everywhere: the edges show where ghost cells were counted
  Impulse,    // 0 except one pixel: the output is the filter, mirrored, centred on that pixel
};

constexpr Image kImages[] = {Image::Intensity, Image::Signed, Image::Large, Image::AllEqual,
                             Image::Impulse};

// Each image's name in messages (course::name_in). make_image() makes each, and its switch has
// a case for every image: a new one goes in both.
constexpr std::array<std::pair<Image, std::string_view>, 5> kImageNames{{
    {Image::Intensity, "intensity"},
    {Image::Signed, "signed"},
    {Image::Large, "large-magnitude"},
    {Image::AllEqual, "all-equal"},
    {Image::Impulse, "impulse"},
}};

std::vector<float> make_image(Image image, int width, int height, std::uint64_t seed) {
  const std::size_t count = static_cast<std::size_t>(width) * height;
  switch (image) {
    case Image::Intensity:
      return uniform_floats(count, seed, 0.0f, 1.0f);
    case Image::Signed:
      return pattern_floats(Pattern::Uniform, count, seed);
    case Image::Large:
      return pattern_floats(Pattern::LargeMagnitude, count, seed);
    case Image::AllEqual:
      return pattern_floats(Pattern::AllEqual, count, seed);
    case Image::Impulse: {
      std::vector<float> pixels(count, 0.0f);
      pixels[static_cast<std::size_t>(height / 2) * width + width / 3] = 1.0f;
      return pixels;
    }
  }
  throw std::logic_error("make_image: unknown image");
}

struct Case {
  int width;
  int height;
  int radius;
  FilterKind filter;
  Image image;
  std::size_t in_offset = 0;   // floats by which the input is shifted: an unaligned pointer
  std::size_t out_offset = 0;  // the same for the output, independently of the input
};

constexpr std::size_t kGuard = 64;  // poisoned floats before and after the output

std::string context(Variant variant, const Case& c, std::uint64_t seed) {
  return std::string(name_of(variant)) + " " + std::to_string(c.width) + "x" +
         std::to_string(c.height) + " (width x height), radius " + std::to_string(c.radius) + ", " +
         std::string(name_in(kFilterNames, c.filter)) + " filter, " +
         std::string(name_in(kImageNames, c.image)) + " image, seed " + std::to_string(seed) +
         misaligned_text({{"input", c.in_offset}, {"output", c.out_offset}}, "offset by one float",
                         ", ", "both buffers");
}

// The device buffers of one check: the input, and the output with its guards.
using Buffers = GuardedBuffers<float>;

Buffers buffers_for(const Case& c) {
  return Buffers(static_cast<std::size_t>(c.width) * c.height, c.in_offset, c.out_offset,
                 guard_elements(kGuard));
}

// Uploads @p input, runs @p variant on it with a freshly poisoned output, and checks every output
// pixel against the reference and the guards around the output, and that the inputs the
// interface declares const (the image and the filter) still hold what they held before.
void run_and_check(Variant variant, const Case& c, const std::vector<float>& input,
                   const Filter& filter, Buffers& buffers, const std::string& where) {
  const std::size_t count = input.size();
  CUDA_CHECK(cudaMemcpy(buffers.in.data() + c.in_offset, input.data(), count * sizeof(float),
                        cudaMemcpyHostToDevice));
  buffers.out.poison();
  const Filter before = filter;  // what the filter held before the call
  convolve(variant, buffers.in.data() + c.in_offset, buffers.out.data() + buffers.out_at, c.width,
           c.height, filter);
  CUDA_CHECK(cudaDeviceSynchronize());
  // A rung may read its image and its filter, never write them (nor use the image as scratch).
  COURSE_CHECK_UNCHANGED(buffers.in.data() + c.in_offset, input, "the input image", where);
  COURSE_CHECK_UNCHANGED(filter.weights.data(), before.weights, "the filter's weights", where);
  COURSE_CHECK_UNCHANGED(filter.column.data(), before.column, "the filter's column", where);
  COURSE_CHECK_UNCHANGED(filter.row.data(), before.row, "the filter's row", where);
  const auto all = buffers.out.to_host();
  const std::span<const float> everything(all);
  const Reference ref = convolve_reference(input, c.width, c.height, filter);
  COURSE_CHECK_MATCH(
      compare_bounded(
          everything.subspan(buffers.out_at, count), ref.value, ref.bound,
          Extent{static_cast<std::size_t>(c.width), static_cast<std::size_t>(c.height)}),
      where);
  if (buffers.guard != 0) {
    CHECK_MESSAGE(still_poisoned(everything.first(buffers.out_at)),
                  where << ": the kernel wrote before the start of the output");
    CHECK_MESSAGE(still_poisoned(everything.last(buffers.guard)),
                  where << ": the kernel wrote past the end of the output");
  }
}

// Runs @p variant on one input; checks every output pixel and the guards around the output.
void check_one(Variant variant, const Case& c, std::uint64_t seed) {
  Buffers buffers = buffers_for(c);
  run_and_check(variant, c, make_image(c.image, c.width, c.height, seed),
                make_test_filter(c.filter, c.radius, derive_seed(seed, 1)), buffers,
                context(variant, c, seed));
}

// The same buffers, called again: after one pixel of the input changed, then with another
// filter of the same radius. A launcher that replays an earlier result (remembered by its
// pointers, sizes or a few input values) writes a stale image.
void check_rerun(Variant variant, std::uint64_t seed) {
  const Case c{65, 47, 2, FilterKind::Gaussian, Image::Intensity};
  const std::size_t count = static_cast<std::size_t>(c.width) * c.height;
  Buffers buffers = buffers_for(c);
  std::vector<float> input = make_image(c.image, c.width, c.height, seed);
  const std::string where = context(variant, c, seed);
  run_and_check(variant, c, input, make_gaussian_filter(c.radius), buffers, where);
  const std::size_t changed = hash64(seed, 7) % count;
  input[changed] += 0.5f;
  run_and_check(variant, c, input, make_gaussian_filter(c.radius), buffers,
                where + ", called again on the same buffers after pixel " +
                    std::to_string(changed) + " changed");
  run_and_check(variant, c, input, make_box_filter(c.radius), buffers,
                where + ", called again on the same buffers with a box filter");
}

// The inputs of a rung's correctness row, in the order they run.
std::vector<Case> correctness_cases(Variant variant) {
  const bool separable_only = variant == Variant::Separable;
  const std::span<const FilterKind> kinds = separable_only
                                                ? std::span<const FilterKind>(kSeparableKinds)
                                                : std::span<const FilterKind>(kAllKinds);
  std::vector<Case> cases;
  auto kind = [&](std::size_t i) { return kinds[i % kinds.size()]; };

  // Every radius on small shapes: 1 x 1, thinner than the filter, one off a 32-wide tile either
  // way, and a strip whose halo is mostly ghost cells. Filters and images take turns. (At every
  // radius, some widths are multiples of 4, so that register_coarsened's vector path runs too.)
  struct Shape {
    int width, height;
  };
  const Shape small[] = {{1, 1}, {2, 3}, {17, 33}, {33, 17}, {31, 31}, {65, 47}, {100, 9}};
  std::size_t turn = 0;
  // (Under the sanitizers every radius still runs on a shape smaller than the filter, and the
  // smallest and largest on one of several ragged tiles.)
  for (int radius = 1; radius <= kMaxRadius; ++radius)
    for (const Shape s : small) {
      if (sanitize_mode() && s.width != 2 &&
          (s.width != 65 || (radius != 1 && radius != kMaxRadius)))
        continue;
      cases.push_back({s.width, s.height, radius, kind(turn), kImages[turn % std::size(kImages)]});
      ++turn;
    }
  // Lines and a speck: almost every tap of every window is a ghost cell.
  for (const Shape s : {Shape{1, 1000}, Shape{1000, 1}, Shape{5, 7}})
    cases.push_back({s.width, s.height, kMaxRadius, kind(turn++), Image::Intensity});
  // Each special image with each filter, across several tiles.
  for (const Image image : kImages)
    for (std::size_t k = 0; k < kinds.size(); ++k)
      if (!sanitize_mode() || image == kImages[0])  // the values move no access
        cases.push_back({257, 129, 3, kinds[k], image});
  // Pointers that are not 16-byte aligned: a rung may not assume cudaMalloc's alignment, for
  // the input or the output, each alone or both. 128 x 70 (r = 2) and 66 x 40 (r = 5) are
  // shapes whose width a vector path takes when both are aligned.
  cases.push_back({33, 17, 3, kind(turn++), Image::Intensity, 1, 1});
  cases.push_back({130, 70, 2, kind(turn++), Image::Signed, 1, 1});
  for (const Case c : {Case{128, 70, 2, FilterKind::Gaussian, Image::Intensity},
                       Case{66, 40, 5, FilterKind::Box, Image::Signed},
                       Case{33, 17, 3, FilterKind::Gaussian, Image::Intensity}}) {
    cases.push_back({c.width, c.height, c.radius, c.filter, c.image, 1, 0});
    cases.push_back({c.width, c.height, c.radius, c.filter, c.image, 0, 1});
  }
  // Larger images; the largest are left to the full run (not the sanitizers').
  if (quick_mode()) {
    cases.push_back({300, 200, 2, kind(turn++), Image::Intensity});
  } else {
    for (const int radius : {1, 2, 7})
      cases.push_back({1000, 1000, radius, kind(turn++), Image::Intensity});
    cases.push_back({4099, 2053, 2, FilterKind::Gaussian, Image::Intensity});
    cases.push_back({4099, 2053, 5, kind(turn++), Image::Signed});
    cases.push_back({8192, 8192, 2, FilterKind::Gaussian, Image::Intensity});
  }
  return cases;
}

// Launches check_rerun() makes.
constexpr int kRerunCalls = 3;

void check_correct(Variant variant) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const Case& c : correctness_cases(variant))
    check_one(variant, c, derive_seed(base, stream++));
  check_rerun(variant, derive_seed(base, stream++));
}

// The timed buffers at the graded size, 8192 x 8192, r = 2, Gaussian filter: made once per
// process (convolution_bench.hpp).
ConvolutionBench& speed_bench() {
  static ConvolutionBench bench(kSpeedWidth, kSpeedHeight, make_gaussian_filter(kSpeedRadius));
  return bench;
}

// Times @p variant, then basic for the speedup, in this run with course::measure(), which checks
// every timed output against the given basic rung: a fast wrong answer earns nothing. Each checks
// more launches than @p variant's correctness row makes (speed_options_outlasting()).
SpeedSample sample_of(Variant variant) {
  ConvolutionBench& bench = speed_bench();
  const MeasureOptions options = speed_options_outlasting(
      1000, static_cast<int>(correctness_cases(variant).size()) + kRerunCalls);
  SpeedSample sample = speed_sample(measure(bench.trial(variant), options));
  if (sample.failure.empty())
    add_speedup(sample, measure(bench.trial(Variant::Basic), options), name_of(Variant::Basic));
  // Effective bandwidth: each pixel read once and written once.
  if (sample.time_ms > 0)
    add_share_of_device_copy(sample, bench.bytes());
  return sample;
}

}  // namespace

COURSE_CORRECT_TEST("basic.correct", check_correct(Variant::Basic));

COURSE_CORRECT_TEST("constant_filter.correct", check_correct(Variant::ConstantFilter));
COURSE_SPEED_TEST("constant_filter.speed", Graded::Share, sample_of(Variant::ConstantFilter));

COURSE_CORRECT_TEST("tiled_halo.correct", check_correct(Variant::TiledHalo));
COURSE_SPEED_TEST("tiled_halo.speed", Graded::Share, sample_of(Variant::TiledHalo));

COURSE_CORRECT_TEST("tiled_cached_halo.correct", check_correct(Variant::TiledCachedHalo));
COURSE_SPEED_TEST("tiled_cached_halo.speed", Graded::Share, sample_of(Variant::TiledCachedHalo));

COURSE_CORRECT_TEST("separable.correct", check_correct(Variant::Separable));
COURSE_SPEED_TEST("separable.speed", Graded::Share, sample_of(Variant::Separable));

COURSE_CORRECT_TEST("register_coarsened.correct", check_correct(Variant::RegisterCoarsened));
COURSE_SPEED_TEST("register_coarsened.speed", Graded::Share, sample_of(Variant::RegisterCoarsened));

// Runs without a GPU: every check happens before the launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  const Filter good = make_gaussian_filter(2);
  const Filter dense = make_filter(1, std::vector<float>(9, 1.0f / 9));
  Filter wide = good;
  wide.radius = kMaxRadius + 1;  // 8: weights no longer match either
  Filter zero = good;
  zero.radius = 0;
  Filter short_weights = good;
  short_weights.weights.pop_back();
  Filter half_separable = good;
  half_separable.row.clear();
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    const Variant v = info.variant;
    CHECK_THROWS_WITH_AS(convolve(v, fake, fake + 1000, 10, 10, zero), doctest::Contains("[1, 7]"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(convolve(v, fake, fake + 1000, 10, 10, wide), doctest::Contains("[1, 7]"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(convolve(v, fake, fake + 1000, 10, 10, short_weights),
                         doctest::Contains("(2r + 1)^2"), std::invalid_argument);
    CHECK_THROWS_AS(convolve(v, fake, fake + 1000, 10, 10, half_separable), std::invalid_argument);
    CHECK_THROWS_WITH_AS(convolve(v, fake, fake + 1000, -1, 10, good),
                         doctest::Contains("0 <= width, height <="), std::invalid_argument);
    CHECK_THROWS_AS(convolve(v, fake, fake + 1000, 10, -1, good), std::invalid_argument);
    CHECK_THROWS_AS(convolve(v, fake, fake + (1 << 30), kMaxExtent + 1, 1, good),
                    std::invalid_argument);
    CHECK_THROWS_AS(convolve(v, fake, fake + (1 << 30), 1, kMaxExtent + 1, good),
                    std::invalid_argument);
    // Each extent in range, but more than 2^30 pixels: an index would no longer fit in 32 bits.
    CHECK_THROWS_WITH_AS(convolve(v, fake, fake + (std::size_t{1} << 32), 32769, 32768, good),
                         doctest::Contains("2^30"), std::invalid_argument);
    CHECK_THROWS_AS(convolve(v, fake, fake + (std::size_t{1} << 32), kMaxExtent, kMaxExtent, good),
                    std::invalid_argument);
    CHECK_THROWS_AS(convolve(v, nullptr, fake, 10, 10, good), std::invalid_argument);
    CHECK_THROWS_AS(convolve(v, fake, nullptr, 10, 10, good), std::invalid_argument);
    CHECK_THROWS_WITH_AS(convolve(v, fake, fake + 50, 10, 10, good), doctest::Contains("overlap"),
                         std::invalid_argument);
    // An empty image is a no-op, even with null pointers; a bad filter is still refused.
    CHECK_NOTHROW(convolve(v, nullptr, nullptr, 0, 10, good));
    CHECK_NOTHROW(convolve(v, nullptr, nullptr, 10, 0, good));
    CHECK_THROWS_AS(convolve(v, nullptr, nullptr, 0, 0, zero), std::invalid_argument);
  }
  // Only the separable rung needs a separable filter, and it says so.
  CHECK_THROWS_WITH_AS(convolve(Variant::Separable, fake, fake + 1000, 10, 10, dense),
                       doctest::Contains("separable filter"), std::invalid_argument);
  CHECK_NOTHROW(convolve(Variant::Separable, nullptr, nullptr, 0, 0, good));
  // The filter makers check their arguments too.
  CHECK_THROWS_WITH_AS(make_box_filter(0), doctest::Contains("[1, 7]"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(make_gaussian_filter(8), doctest::Contains("[1, 7]"), std::invalid_argument);
  CHECK_THROWS_AS(make_filter(2, std::vector<float>(24)), std::invalid_argument);
  CHECK_THROWS_AS(make_separable_filter({1, 2, 1}, {1, 2}), std::invalid_argument);
  CHECK_THROWS_AS(make_separable_filter({1, 1}, {1, 1}), std::invalid_argument);
  CHECK_THROWS_AS(make_separable_filter(std::vector<float>(17, 1.0f), std::vector<float>(17, 1.0f)),
                  std::invalid_argument);
}
