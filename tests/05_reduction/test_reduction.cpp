// Lesson 05's tests: every rung on int (bit-exact) and float (within a bound that grows with n),
// for sum, max and min, on many sizes, patterns, every block size, misaligned inputs and outputs,
// and repeated calls on the same buffers; the row reductions on the lab's shapes and misaligned
// buffers; speed measured by course::measure() through reduction_bench.hpp (the demo's trials),
// as ratios in this run; bad arguments refused. Test names, thresholds and points come from the
// grading table in lessons/05_reduction/README.md.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "course/testing.hpp"
#include "course/testing_inputs.hpp"
#include "reduction.cuh"
#include "reduction_bench.hpp"
#include "reduction_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson05;

constexpr std::size_t kGuard = 16;  // poisoned elements after the result: a write there is a bug
constexpr std::size_t kTrap = 64;   // trap values after the input: a read there changes the result
constexpr double kUnitRoundoff = 0x1p-24;

// Where a call's buffers start, in elements past the start of their (256-byte aligned)
// allocations: 0 is aligned, 1 to 3 are not 16-byte aligned. Each pointer is misaligned alone too.
struct Offsets {
  std::size_t in = 0;
  std::size_t out = 0;
};

// Checks that every element of @p all except [first, first + count) still holds the poison.
template <class T>
void check_untouched(const std::vector<T>& all, std::size_t first, std::size_t count,
                     const std::string& where) {
  std::vector<unsigned char> poison(sizeof(T), 0xFF);
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i >= first && i < first + count)
      continue;
    if (std::memcmp(&all[i], poison.data(), sizeof(T)) != 0) {
      FAIL_CHECK(where << ": the rung wrote element " << i << " of its output buffer, outside "
                       << "its result (elements " << first << " to " << first + count - 1 << ")");
      return;
    }
  }
}

// A value that changes the result of @p op if a kernel reads it: the input ends are filled with
// it, so reading before the start or past the end of the input is caught.
template <class T>
T trap_value(Op op) {
  if (op == Op::Max)
    return std::numeric_limits<T>::max();
  if (op == Op::Min)
    return std::numeric_limits<T>::lowest();
  return static_cast<T>(12345678);
}

// The float sum tolerance (README, "Accuracy"): a summation tree of depth d is within
// d u sum|x| of the exact sum (u = 2^-24). The tree rungs have depth about log2 n; the factor 8
// covers the longer chains of the grid-stride accumulators and of the atomics across blocks.
double sum_tolerance(std::span<const float> input) {
  const double depth = std::max(1.0, std::ceil(std::log2(static_cast<double>(input.size()))));
  return 8.0 * depth * kUnitRoundoff * abs_sum(input);
}

std::string describe(Variant variant, Op op, std::string_view type, std::size_t n,
                     std::string_view input, std::uint64_t seed, Offsets at, int block) {
  return std::string(name_of(variant)) + " " + std::string(name_of(op)) + "<" + std::string(type) +
         "> n " + std::to_string(n) + ", " + std::string(input) + " input, seed " +
         std::to_string(seed) + ", block " + std::to_string(block) +
         offset_text("input", at.in, "starting {} elements in") +
         offset_text("output", at.out, "starting {} elements in");
}

// Checks the one result @p got of reducing @p input with @p op.
template <class T>
void check_result(Op op, std::span<const T> input, std::span<const T> got,
                  const std::string& where) {
  if constexpr (std::is_same_v<T, float>) {
    if (op == Op::Sum) {
      const std::vector<double> expected{sum_reference(input)};
      COURSE_CHECK_MATCH(compare_close(got, expected, {sum_tolerance(input), 0.0}, {1}),
                         where + " (tolerance " + std::to_string(sum_tolerance(input)) + ")");
    } else {
      const std::vector<T> expected{reduce_reference<T>(op, input)};
      COURSE_CHECK_MATCH(compare_exact<T>(got, expected, {1}), where);
    }
  } else {
    const std::vector<T> expected{op == Op::Sum ? static_cast<T>(sum_reference(input))
                                                : reduce_reference<T>(op, input)};
    COURSE_CHECK_MATCH(compare_exact<T>(got, expected, {1}), where);
  }
}

// Runs @p variant on @p input, placed @p at.in elements into a buffer framed by trap values,
// with the result @p at.out elements into a poisoned buffer with a guard after it (no trap and
// no guard after the data under the sanitizer); checks the result, that nothing else of the
// output buffer was written, and that the input, which the interface declares const, still holds
// what was uploaded (a rung may not use it as scratch, as PMPP's in-place tree does).
template <class T>
void check_one(Variant variant, Op op, std::span<const T> input, Offsets at, int block,
               const std::string& where) {
  const std::size_t n = input.size();
  const std::vector<T> framed =
      framed_by(input, at.in, trap_value<T>(op), guard_elements(kTrap), trap_value<T>(op));
  DeviceBuffer<T> d_in{std::span<const T>(framed)};
  DeviceBuffer<T> d_out(at.out + 1 + guard_elements(kGuard));
  d_out.poison();
  reduce(variant, op, n == 0 ? nullptr : d_in.data() + at.in, d_out.data() + at.out, n, {}, block);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto all = d_out.to_host();
  check_result<T>(op, input, std::span<const T>(all.data() + at.out, 1), where);
  check_untouched(all, at.out, 1, where);
  COURSE_CHECK_UNCHANGED(d_in.data() + at.in, input, "d_in", where);
}

// The same buffers twice: one input, then the same input with one element changed (at a seeded
// index, away from both ends) so that the result changes. A launcher that replays what it kept
// from its last call, keyed on its arguments, its input pointer or a few input elements, or that
// stops working after some number of calls, returns the first result again and fails here.
template <class T>
void check_repeat(Variant variant, Op op, std::string_view type, std::size_t n,
                  std::uint64_t seed) {
  auto input = uniform_input<T>(n, seed);
  DeviceBuffer<T> d_in{std::span<const T>(input)};
  DeviceBuffer<T> d_out(1);
  const std::size_t changed = 8 + hash64(seed, 7) % (n - 16);
  for (const int call : {1, 2}) {
    if (call == 2) {
      // A new sum, or a new maximum or minimum: the first call's result is wrong now.
      const T step = std::is_same_v<T, int> ? T(5000) : T(5);
      input[changed] = op == Op::Sum   ? static_cast<T>(input[changed] + step)
                       : op == Op::Max ? step
                                       : static_cast<T>(-step);
      d_in.upload(input);
    }
    d_out.poison();
    reduce(variant, op, d_in.data(), d_out.data(), n);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::string where = describe(variant, op, type, n, "uniform", seed, {}, kDefaultBlock) +
                              (call == 1 ? ", first of two calls on the same buffers"
                                         : ", second call on the same buffers, element " +
                                               std::to_string(changed) + " changed");
    check_result<T>(op, std::span<const T>(input), d_out.to_host(), where);
    // The input is const on every call, not only on the first.
    COURSE_CHECK_UNCHANGED(d_in.data(), input, "d_in", where);
  }
}

// Around one and two blocks of 256 (one and two elements per thread), around a coarsened
// segment (4096), odd and prime sizes, and a size that needs several passes.
std::vector<std::size_t> correctness_sizes() {
  if (sanitize_mode())
    return {1, 33, 257, 4097, 8193};  // still more than one coarsened segment and block
  if (quick_mode())
    return {1, 33, 257, 513, 4097, 65537};
  return {1,   2,   31,  32,   33,   63,   64,   65,   255,  256,   257,
          511, 512, 513, 1023, 1024, 1025, 4095, 4096, 4097, 65537, 1000003};
}

// The int inputs: uniform values small enough that no sum leaves int32, every element equal,
// only negative values, and for max and min the extreme placed at the last index.
NamedInputs<int> int_inputs(Op op, std::size_t n, std::uint64_t seed) {
  NamedInputs<int> inputs = basic_int_inputs(n, seed);
  if (op != Op::Sum && !quick_mode()) {
    auto extreme = uniform_ints(n, seed + 2, -2147483647, 2147483646);
    extreme.back() = op == Op::Max ? 2147483647 : -2147483647 - 1;
    inputs.emplace_back("full range, extreme last", std::move(extreme));
  }
  return inputs;
}

// The float inputs: uniform, all-equal and large-magnitude, only negative values, and for max
// and min the extreme placed at the last index.
NamedInputs<float> float_inputs(Op op, std::size_t n, std::uint64_t seed) {
  NamedInputs<float> inputs = basic_float_inputs(n, seed);
  if (quick_mode())
    return inputs;
  inputs.emplace_back("negative [-2, -1)", uniform_floats(n, seed, -2.0f, -1.0f));
  if (op != Op::Sum) {
    auto extreme = pattern_floats(Pattern::Uniform, n, seed + 1);
    extreme.back() = op == Op::Max ? 3.0f : -3.0f;
    inputs.emplace_back("uniform, extreme last", std::move(extreme));
  }
  return inputs;
}

template <class T>
void check_type(Variant variant, std::string_view type, std::uint64_t base, std::uint64_t& stream) {
  for (const auto& [op, op_name] : kOps) {
    if (sanitize_mode() && op == Op::Min)
      continue;  // under the sanitizers: min is max's mirror, with the same accesses
    // The reduction of nothing is the identity.
    check_one<T>(variant, op, {}, {}, kDefaultBlock,
                 describe(variant, op, type, 0, "empty", 0, {}, kDefaultBlock));
    for (const std::size_t n : correctness_sizes()) {
      const std::uint64_t seed = derive_seed(base, stream++);
      if constexpr (std::is_same_v<T, int>) {
        for (const auto& [name, input] : int_inputs(op, n, seed))
          check_one<T>(variant, op, input, {}, kDefaultBlock,
                       describe(variant, op, type, n, name, seed, {}, kDefaultBlock));
      } else {
        for (const auto& [name, input] : float_inputs(op, n, seed))
          check_one<T>(variant, op, input, {}, kDefaultBlock,
                       describe(variant, op, type, n, name, seed, {}, kDefaultBlock));
      }
    }
    // Inputs and outputs that are not 16-byte aligned, each alone: the input 1, 2 or 3 elements
    // past a 16-byte boundary with the output aligned, and the reverse; at sizes below one
    // vector, with a head, vectors and a tail, and with several blocks. (None under racecheck:
    // an offset moves global-memory accesses only.)
    for (const Offsets at : none_under_racecheck(fewer_under_sanitizer<Offsets>(
             {{1, 0}, {2, 0}, {3, 0}, {0, 1}, {0, 3}, {3, 1}}, {{1, 0}, {0, 1}, {3, 1}}))) {
      const std::uint64_t seed = derive_seed(base, stream++);
      for (const std::size_t n :
           fewer_under_sanitizer<std::size_t>({2, 7, 4099, 65537}, {7, 4099})) {
        const auto input = uniform_input<T>(n, seed);
        check_one<T>(variant, op, input, at, kDefaultBlock,
                     describe(variant, op, type, n, "uniform", seed, at, kDefaultBlock));
      }
    }
    // Every block the launcher accepts besides the default 256: each power of two in [64, 1024].
    for (const int block : fewer_under_sanitizer<int>({64, 128, 512, 1024}, {64, 1024})) {
      const std::uint64_t seed = derive_seed(base, stream++);
      for (const std::size_t n :
           fewer_under_sanitizer<std::size_t>({63, 65, 2049, 100003}, {65, 2049})) {
        const auto input = uniform_input<T>(n, seed);
        check_one<T>(variant, op, input, {}, block,
                     describe(variant, op, type, n, "uniform", seed, {}, block));
      }
    }
    // Two calls on the same buffers, the second with one element changed.
    for (const std::size_t n : fewer_under_sanitizer<std::size_t>({4099, 65537}, {4099}))
      check_repeat<T>(variant, op, type, n, derive_seed(base, stream++));
  }
}

void check_correct(Variant variant) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  check_type<int>(variant, "int", base, stream);
  check_type<float>(variant, "float", base, stream);
  if (quick_mode())
    return;
  // The default size: ints in [-31, 31], so that even 2^26 of them cannot leave int32.
  constexpr std::size_t kLarge = std::size_t{1} << 26;
  const std::uint64_t seed = derive_seed(base, stream++);
  const auto ints = uniform_ints(kLarge, seed, -31, 31);
  for (const auto& [op, op_name] : kOps)
    check_one<int>(
        variant, op, ints, {}, kDefaultBlock,
        describe(variant, op, "int", kLarge, "uniform [-31, 31]", seed, {}, kDefaultBlock));
  const auto floats = pattern_floats(Pattern::Uniform, kLarge, seed);
  check_one<float>(variant, Op::Sum, floats, {}, kDefaultBlock,
                   describe(variant, Op::Sum, "float", kLarge, "uniform", seed, {}, kDefaultBlock));
}

// ---------------------------------------------------------------------------------------------
// Row reductions.

struct Shape {
  int rows;
  int cols;
};

std::vector<Shape> row_shapes() {
  if (sanitize_mode())
    return {{1, 1}, {1, 1000}, {33, 17}, {32, 33}, {130, 257}};
  std::vector<Shape> shapes{{1, 1},   {1, 1000}, {1000, 1}, {33, 17},
                            {17, 33}, {31, 32},  {32, 33},  {999, 1001}};
  if (!quick_mode())
    shapes.push_back({kLabSize, kLabSize});
  return shapes;
}

// Where a row reduction's buffers start, in elements past their aligned allocations.
struct RowOffsets {
  std::size_t a = 0;
  std::size_t b = 0;
  std::size_t out = 0;
};

void check_row_one(RowVersion version, RowOp op, Shape shape, std::uint64_t seed,
                   RowOffsets at = {}) {
  const std::size_t count = static_cast<std::size_t>(shape.rows) * shape.cols;
  const auto a = pattern_floats(Pattern::Uniform, count, seed);
  const auto b = pattern_floats(Pattern::Uniform, count, seed + 1);
  // The inputs end where the data ends; the output has a guard after it, except under the
  // sanitizer, where it too ends with the data.
  std::vector<float> a_placed(at.a, 0.0f), b_placed(at.b, 0.0f);
  a_placed.insert(a_placed.end(), a.begin(), a.end());
  b_placed.insert(b_placed.end(), b.begin(), b.end());
  DeviceBuffer<float> d_a{std::span<const float>(a_placed)};
  DeviceBuffer<float> d_b{std::span<const float>(b_placed)};
  const std::size_t out_count = row_output_size(op, shape.rows, shape.cols);
  DeviceBuffer<float> d_out(at.out + out_count + guard_elements(kGuard));
  d_out.poison();
  row_reduce(version, op, d_a.data() + at.a, op == RowOp::DotProduct ? d_b.data() + at.b : nullptr,
             d_out.data() + at.out, shape.rows, shape.cols);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto all = d_out.to_host();
  const std::span<const float> got(all.data() + at.out, out_count);
  const auto expected = row_reduce_reference(op, a, b, shape.rows, shape.cols);
  std::string where = std::string(name_of(version)) + " " + std::string(name_of(op)) + " " +
                      std::to_string(shape.rows) + "x" + std::to_string(shape.cols) +
                      " uniform input, seed " + std::to_string(seed);
  if (at.a != 0 || at.b != 0 || at.out != 0)
    where += ", A, B and the output starting " + std::to_string(at.a) + ", " +
             std::to_string(at.b) + " and " + std::to_string(at.out) + " elements in";
  const Extent extent{out_count};
  if (op == RowOp::RowMax || op == RowOp::RowMin) {
    std::vector<float> exact(expected.begin(), expected.end());
    COURSE_CHECK_MATCH(compare_exact<float>(got, exact, extent), where);
  } else {
    // Any order of d - 1 additions of terms t_i is within (d - 1) u sum|t_i| of the exact sum;
    // a product and a division add a rounding each. |a|, |b| < 1, so sum|t_i| <= d.
    const int d = op == RowOp::ColumnMean ? shape.rows : shape.cols;
    const bool mean = op == RowOp::RowMean || op == RowOp::ColumnMean;
    const double atol = 2.0 * (d + 2) * kUnitRoundoff * (mean ? 1.0 : d);
    COURSE_CHECK_MATCH(compare_close(got, expected, {atol, 0.0}, extent), where);
  }
  check_untouched(all, at.out, out_count, where);
  // A and B are declared const: a version may read them, never write them.
  COURSE_CHECK_UNCHANGED(d_a.data() + at.a, a, "A", where);
  if (op == RowOp::DotProduct)
    COURSE_CHECK_UNCHANGED(d_b.data() + at.b, b, "B", where);
}

void check_row_correct(RowVersion version) {
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const auto& info : kRowOps)
    for (const Shape shape : row_shapes())
      check_row_one(version, info.op, shape, derive_seed(base, stream++));
  // A, B and the output each starting one element past an aligned address, alone (not under
  // racecheck: an offset moves global-memory accesses only).
  for (const auto& info : kRowOps)
    for (const Shape shape : none_under_racecheck(
             fewer_under_sanitizer<Shape>({{33, 17}, {1, 1000}, {999, 1001}}, {{33, 17}})))
      for (const RowOffsets at : {RowOffsets{1, 0, 0}, RowOffsets{0, 1, 0}, RowOffsets{0, 0, 1}})
        check_row_one(version, info.op, shape, derive_seed(base, stream++), at);
}

// ---------------------------------------------------------------------------------------------
// Speed: measured by course::measure() on the trials of reduction_bench.hpp (the demo's): fresh
// inputs and a checked result for every timed launch, on the harness's stream and clock.

constexpr std::size_t kSpeedSize = std::size_t{1} << 26;

// Times @p variant (and @p baseline, in the same run) on float sums of 2^26 elements; its share
// of CUB's DeviceReduce::Sum over as many floats, measured in this process.
SpeedSample sample_of(Variant variant, std::optional<Variant> baseline) {
  ReductionBench<float> bench(Op::Sum, kSpeedSize);
  SpeedSample sample = speed_sample(measure(bench.trial(variant), speed_options(1000)));
  if (baseline && sample.failure.empty())
    add_speedup(sample, measure(bench.trial(*baseline), speed_options(1001)), name_of(*baseline));
  if (sample.time_ms > 0)
    sample.share = gb_per_s(kSpeedSize * sizeof(float), sample.time_ms) /
                   ceilings::cub_reduce_sum(kSpeedSize).value;
  sample.ceiling = "CUB DeviceReduce::Sum";
  return sample;
}

// Row sums of a tall 32768 x 2048 matrix: enough blocks (1024) that the shared-memory bank
// conflicts, not the memory's latency, decide the time of the unpadded tile.
SpeedSample sample_of_rows(RowVersion version, std::optional<RowVersion> baseline) {
  constexpr Shape kShape{32768, 2048};
  RowBench bench(RowOp::RowSum, kShape.rows, kShape.cols);
  SpeedSample sample = speed_sample(measure(bench.trial(version), speed_options(2000)));
  if (baseline && sample.failure.empty())
    add_speedup(sample, measure(bench.trial(*baseline), speed_options(2001)), name_of(*baseline));
  const std::size_t count = static_cast<std::size_t>(kShape.rows) * kShape.cols;
  if (sample.time_ms > 0)
    add_share_of_device_copy(sample, count * sizeof(float));
  return sample;
}

}  // namespace

COURSE_CORRECT_TEST("interleaved_divergent.correct", check_correct(Variant::InterleavedDivergent));

COURSE_CORRECT_TEST("interleaved_strided.correct", check_correct(Variant::InterleavedStrided));
COURSE_SPEED_TEST("interleaved_strided.speed", Graded::Speedup,
                  sample_of(Variant::InterleavedStrided, Variant::InterleavedDivergent));

COURSE_CORRECT_TEST("sequential.correct", check_correct(Variant::Sequential));
COURSE_SPEED_TEST("sequential.speed", Graded::Speedup,
                  sample_of(Variant::Sequential,
                            unless_in_baseline_process(Variant::InterleavedDivergent)));

COURSE_CORRECT_TEST("first_add_on_load.correct", check_correct(Variant::FirstAddOnLoad));
// sequential is the student's too: its time comes from its own row, run in a process of its
// own, where nothing tells the student's code that it serves as a baseline.
COURSE_SPEED_TEST("first_add_on_load.speed", Graded::Speedup,
                  speedup_over_row_apart(sample_of(Variant::FirstAddOnLoad, std::nullopt),
                                         "sequential.speed", "sequential"));

COURSE_CORRECT_TEST("unrolled_warp.correct", check_correct(Variant::UnrolledWarp));
COURSE_SPEED_TEST("unrolled_warp.speed", Graded::Share,
                  sample_of(Variant::UnrolledWarp, Variant::InterleavedDivergent));

COURSE_CORRECT_TEST("coarsened_atomic.correct", check_correct(Variant::CoarsenedAtomic));
COURSE_SPEED_TEST("coarsened_atomic.speed", Graded::Share,
                  sample_of(Variant::CoarsenedAtomic, Variant::InterleavedDivergent));

COURSE_CORRECT_TEST("warp_shuffle.correct", check_correct(Variant::WarpShuffle));
COURSE_SPEED_TEST("warp_shuffle.speed", Graded::Share,
                  sample_of(Variant::WarpShuffle, Variant::InterleavedDivergent));

COURSE_CORRECT_TEST("vectorized.correct", check_correct(Variant::Vectorized));
COURSE_SPEED_TEST("vectorized.speed", Graded::Share,
                  sample_of(Variant::Vectorized, Variant::InterleavedDivergent));

COURSE_CORRECT_TEST("row_global.correct", check_row_correct(RowVersion::Global));

COURSE_CORRECT_TEST("row_shared.correct", check_row_correct(RowVersion::Shared));
COURSE_SPEED_TEST("row_shared.speed", Graded::Share,
                  sample_of_rows(RowVersion::Shared, std::nullopt));

COURSE_CORRECT_TEST("row_shared_padded.correct", check_row_correct(RowVersion::SharedPadded));
// shared is the student's too: its time comes from its own row, run in a process of its own,
// where nothing tells the student's code that it serves as a baseline.
COURSE_SPEED_TEST("row_shared_padded.speed", Graded::Speedup,
                  speedup_over_row_apart(sample_of_rows(RowVersion::SharedPadded, std::nullopt),
                                         "row_shared.speed", "shared"));

// Runs without a GPU: every check happens before the launcher touches the device.
TEST_CASE("launcher.bad_arguments") {
  float* fake = reinterpret_cast<float*>(std::uintptr_t{1} << 20);  // never dereferenced
  int* fake_int = reinterpret_cast<int*>(std::uintptr_t{1} << 20);
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    CHECK_THROWS_WITH_AS(reduce(info.variant, Op::Sum, fake, fake + 1000, kMaxCount + 1),
                         doctest::Contains("2^30"), std::invalid_argument);
    for (const int block : {0, 32, 48, 96, 2048})
      CHECK_THROWS_WITH_AS(reduce(info.variant, Op::Sum, fake, fake - 1, 100, {}, block),
                           doctest::Contains("power of two in [64, 1024]"), std::invalid_argument);
    CHECK_THROWS_AS(reduce(info.variant, Op::Max, fake_int, nullptr, 100), std::invalid_argument);
    CHECK_THROWS_AS(reduce(info.variant, Op::Min, nullptr, fake_int, 100), std::invalid_argument);
    CHECK_THROWS_AS(reduce(info.variant, Op::Sum, nullptr, static_cast<float*>(nullptr), 0),
                    std::invalid_argument);
    CHECK_THROWS_WITH_AS(reduce(info.variant, Op::Sum, fake, fake + 50, 100),
                         doctest::Contains("inside"), std::invalid_argument);
    CHECK_THROWS_AS(reduce(info.variant, static_cast<Op>(7), fake, fake - 1, 100),
                    std::invalid_argument);
  }
  for (const auto& [version, name] : kRowVersions) {
    CAPTURE(name);
    for (const auto& info : kRowOps) {
      CHECK_THROWS_WITH_AS(row_reduce(version, info.op, fake, fake, fake + 1000, -1, 10),
                           doctest::Contains("0 <= rows, cols <="), std::invalid_argument);
      CHECK_THROWS_AS(row_reduce(version, info.op, fake, fake, fake + 1000, 10, -1),
                      std::invalid_argument);
      CHECK_THROWS_AS(row_reduce(version, info.op, fake, fake, fake + 1000, kMaxRowExtent + 1, 1),
                      std::invalid_argument);
      CHECK_THROWS_AS(row_reduce(version, info.op, nullptr, fake, fake + 1000, 10, 10),
                      std::invalid_argument);
      CHECK_THROWS_AS(row_reduce(version, info.op, fake, fake + 2000, nullptr, 10, 10),
                      std::invalid_argument);
      CHECK_THROWS_WITH_AS(row_reduce(version, info.op, fake, fake + 2000, fake + 50, 10, 10),
                           doctest::Contains("overlap"), std::invalid_argument);
      // An empty matrix is a no-op, even with null pointers.
      CHECK_NOTHROW(row_reduce(version, info.op, nullptr, nullptr, nullptr, 0, 10));
      CHECK_NOTHROW(row_reduce(version, info.op, nullptr, nullptr, nullptr, 10, 0));
    }
    CHECK_THROWS_WITH_AS(row_reduce(version, RowOp::DotProduct, fake, nullptr, fake + 1000, 10, 10),
                         doctest::Contains("d_b"), std::invalid_argument);
    CHECK_THROWS_AS(row_reduce(version, static_cast<RowOp>(9), fake, fake, fake + 1000, 10, 10),
                    std::invalid_argument);
  }
}
