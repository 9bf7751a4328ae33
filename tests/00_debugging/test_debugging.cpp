// Lesson 00's tests: each kernel of the debugging lab on many lengths (1, 2, around a warp and a
// block, odd and even, the demo's) and inputs, bit-exact against the CPU reference. Before each
// run the output is poisoned and so is the GPU's shared memory (NaN), poisoned elements follow
// the input (a read past its end changes the result) and the output (a write there is a bug);
// the input, which the interface declares const, must be left as it was uploaded; three calls on
// the same buffers catch a launcher that replays or skips; bad arguments are refused. Test names
// and points come from the grading table in lessons/00_debugging/README.md.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "course/testing.hpp"
#include "debugging.cuh"
#include "debugging_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson00;

// 1 and 2 (a lone element, one pair), around a warp and a block of 256 (one off either way),
// odd and even lengths (downsample's lone last element), multiples of the block (smooth's last
// block ends exactly at the array's end), several blocks, and the demo's length.
std::vector<std::size_t> correctness_lengths() {
  if (sanitize_mode())  // each path once, small: racecheck follows every shared-memory access
    return {1, 2, 33, 256, 257, 1001};
  if (quick_mode())
    return {1, 2, 33, 256, 257, 1001, 4096, 65537};
  std::vector<std::size_t> lengths{1,   2,   3,    31,   32,   33,   255,   256,   257,    511,
                                   512, 513, 1000, 1001, 4096, 4097, 65536, 65537, 1000003};
  lengths.push_back(std::size_t{1} << 22);
  lengths.push_back((std::size_t{1} << 24) + 1);  // the demo's length
  return lengths;
}

// The inputs: uniform in [-1, 1) always; for count, every element positive, so that every
// thread of a warp counts one; then element i = i (a misplaced element names where it came
// from); then four distinct values, large magnitudes and, for count, no positive element.
enum class Input { Uniform, AllPositive, Index, FewDistinct, LargeMagnitude, Negative };

// Each input's name in messages (course::name_in). make_input() makes each, and its switch has a
// case for every input: a new one goes in both.
constexpr std::array<std::pair<Input, std::string_view>, 6> kInputNames{{
    {Input::Uniform, "uniform"},
    {Input::AllPositive, "all-positive"},
    {Input::Index, "index"},
    {Input::FewDistinct, "few-distinct"},
    {Input::LargeMagnitude, "large-magnitude"},
    {Input::Negative, "negative [-1, 0)"},
}};

std::vector<Input> inputs_for(Variant variant, std::size_t n) {
  std::vector<Input> inputs{Input::Uniform};
  if (variant == Variant::Count)
    inputs.push_back(Input::AllPositive);
  if (n > (std::size_t{1} << 20))
    return inputs;  // the largest lengths: the inputs above
  inputs.push_back(Input::Index);
  if (quick_mode() || sanitize_mode())
    return inputs;
  inputs.push_back(Input::FewDistinct);
  inputs.push_back(Input::LargeMagnitude);
  if (variant == Variant::Count)
    inputs.push_back(Input::Negative);
  return inputs;
}

std::vector<float> make_input(Input input, std::size_t n, std::uint64_t seed) {
  switch (input) {
    case Input::Uniform:
      return pattern_floats(Pattern::Uniform, n, seed);
    case Input::AllPositive:
      return pattern_floats(Pattern::AllEqual, n, seed);  // 0.75 everywhere
    case Input::Index:
      return pattern_floats(Pattern::Index, n, seed);
    case Input::FewDistinct:
      return pattern_floats(Pattern::FewDistinct, n, seed);
    case Input::LargeMagnitude:
      return pattern_floats(Pattern::LargeMagnitude, n, seed);
    case Input::Negative:
      return uniform_floats(n, seed, -1.0f, 0.0f);
  }
  return {};
}

std::string context(Variant variant, std::size_t n, std::string_view input, std::uint64_t seed) {
  return std::string(name_of(variant)) + " n " + std::to_string(n) + ", " + std::string(input) +
         " input, seed " + std::to_string(seed);
}

// The elements @p variant writes for @p n inputs.
std::size_t outputs_of(Variant variant, std::size_t n) {
  switch (variant) {
    case Variant::Count:
      return 1;
    case Variant::Downsample:
      return downsampled_length(n);
    case Variant::Reverse:
    case Variant::Smooth:
      return n;
  }
  return n;
}

// Count writes one int; the other rungs write floats.
template <class T>
std::vector<T> expected_of(Variant variant, std::span<const float> input) {
  if constexpr (std::is_same_v<T, std::int32_t>) {
    return {count_positive_reference(input)};
  } else {
    switch (variant) {
      case Variant::Downsample:
        return downsample_reference(input);
      case Variant::Reverse:
        return reverse_reference(input);
      case Variant::Smooth:
        return smooth_reference(input);
      case Variant::Count:
        break;
    }
    return {};
  }
}

template <class T>
void launch(Variant variant, const float* d_in, T* d_out, std::size_t n) {
  if constexpr (std::is_same_v<T, std::int32_t>) {
    count_positive(d_in, d_out, n);
  } else {
    switch (variant) {
      case Variant::Downsample:
        return downsample(d_in, d_out, n);
      case Variant::Reverse:
        return lesson00::reverse(d_in, d_out, n);
      case Variant::Smooth:
        return smooth(d_in, d_out, n);
      case Variant::Count:
        break;
    }
    FAIL("count writes an int, not floats");
  }
}

// The buffers of one run: @p input followed by its guard, poisoned (NaN), and the output
// followed by its own. 64 poisoned elements after each, none under the sanitizers.
template <class T>
struct Buffers {
  Buffers(Variant variant, const std::vector<float>& input)
      : n(input.size()),
        outputs(outputs_of(variant, n)),
        guard(guard_elements(64)),
        in(upload_framed<float>(input, 0, guard)),
        out(outputs + guard) {}
  std::size_t n;
  std::size_t outputs;
  std::size_t guard;
  DeviceBuffer<float> in;
  DeviceBuffer<T> out;
};

// Runs @p variant on the input in @p buffers, the output poisoned first (with the GPU's shared
// memory) unless @p poison is false, and checks that the input is as uploaded, every output
// element and the guard after it.
template <class T>
void run_and_check(Variant variant, Buffers<T>& buffers, const std::vector<float>& input,
                   const std::string& where, bool poison = true) {
  if (poison)
    buffers.out.poison();
  launch<T>(variant, buffers.in.data(), buffers.out.data(), buffers.n);
  CUDA_CHECK(cudaDeviceSynchronize());
  // The input is const: a kernel may not use it as scratch, even if its output is right.
  COURSE_CHECK_UNCHANGED(buffers.in.data(), input, "in", where);
  const auto all = buffers.out.to_host();
  const std::span<const T> got(all.data(), buffers.outputs);
  COURSE_CHECK_MATCH(compare_exact<T>(got, expected_of<T>(variant, input), Extent{buffers.outputs}),
                     where);
  if (buffers.guard != 0)
    CHECK_MESSAGE(still_poisoned(std::span<const T>(all).subspan(buffers.outputs, buffers.guard)),
                  where << ": the kernel wrote past the end of the output");
}

// Three calls on the same buffers: an input; the same with seven elements changed, the output
// poisoned again; seven more changed, the output left holding the second call's result. A
// launcher that replays a result it kept (keyed on its arguments, its pointers or a few input
// elements) fails the second call; one that skips the work when the output looks written fails
// the third. Each changed element changes sign, so that the count changes too (by an odd number).
template <class T>
void check_repeated(Variant variant, std::size_t n, std::uint64_t seed) {
  auto input = pattern_floats(Pattern::Uniform, n, seed);
  Buffers<T> buffers(variant, input);
  const std::string where = context(variant, n, "uniform", seed);
  run_and_check(variant, buffers, input, where + ", first of three calls on the same buffers");
  for (const std::size_t call : {std::size_t{2}, std::size_t{3}}) {
    for (std::size_t k = 0; k < 7; ++k) {
      const std::size_t index = spread_element(n, k) + (call - 2);
      change_element(input, buffers.in.data(), index, input[index] > 0.0f ? -2.5f : 2.5f);
    }
    run_and_check(variant, buffers, input,
                  where + (call == 2 ? ", second call, 7 input elements changed"
                                     : ", third call, 7 more changed, the output not poisoned"),
                  call == 2);
  }
}

template <class T>
void check_correct_of(Variant variant) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const std::size_t n : correctness_lengths()) {
    for (const Input input : inputs_for(variant, n)) {
      const std::uint64_t seed = derive_seed(base, stream++);
      const auto values = make_input(input, n, seed);
      Buffers<T> buffers(variant, values);
      run_and_check(variant, buffers, values,
                    context(variant, n, name_in(kInputNames, input), seed));
    }
  }
  for (const std::size_t n : fewer_under_sanitizer<std::size_t>({1001, 65537}, {1001}))
    check_repeated<T>(variant, n, derive_seed(base, stream++));
}

void check_correct(Variant variant) {
  if (variant == Variant::Count)
    check_correct_of<std::int32_t>(variant);
  else
    check_correct_of<float>(variant);
}

}  // namespace

COURSE_CORRECT_TEST("count.correct", check_correct(Variant::Count));
COURSE_CORRECT_TEST("downsample.correct", check_correct(Variant::Downsample));
COURSE_CORRECT_TEST("reverse.correct", check_correct(Variant::Reverse));
COURSE_CORRECT_TEST("smooth.correct", check_correct(Variant::Smooth));

// Runs without a GPU: every check happens before a launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  auto* fake_count = reinterpret_cast<std::int32_t*>(std::uintptr_t{1} << 21);
  const std::size_t too_long = kMaxLength + 1;

  CHECK_THROWS_WITH_AS(count_positive(fake, fake_count, too_long), doctest::Contains("2^28"),
                       std::invalid_argument);
  CHECK_THROWS_AS(count_positive(fake, nullptr, 10), std::invalid_argument);
  CHECK_THROWS_AS(count_positive(fake, nullptr, 0), std::invalid_argument);
  CHECK_THROWS_AS(count_positive(nullptr, fake_count, 10), std::invalid_argument);
  CHECK_THROWS_WITH_AS(count_positive(fake, reinterpret_cast<std::int32_t*>(fake + 5), 10),
                       doctest::Contains("inside"), std::invalid_argument);

  using ArrayCall = void (*)(const float*, float*, std::size_t, cudaStream_t);
  const struct {
    const char* name;
    ArrayCall call;
  } calls[] = {{"downsample", &downsample}, {"reverse", &lesson00::reverse}, {"smooth", &smooth}};
  for (const auto& [name, call] : calls) {
    CAPTURE(name);
    CHECK_THROWS_WITH_AS(call(fake, fake + (std::size_t{1} << 29), too_long, {}),
                         doctest::Contains("2^28"), std::invalid_argument);
    CHECK_THROWS_AS(call(nullptr, fake, 10, {}), std::invalid_argument);
    CHECK_THROWS_AS(call(fake, nullptr, 10, {}), std::invalid_argument);
    CHECK_THROWS_WITH_AS(call(fake, fake + 3, 10, {}), doctest::Contains("overlap"),
                         std::invalid_argument);
    CHECK_THROWS_AS(call(fake + 2, fake, 10, {}), std::invalid_argument);
    // An empty array is a no-op, even with null pointers.
    CHECK_NOTHROW(call(nullptr, nullptr, 0, {}));
  }
}
