// Lesson 13's tests: every rung on every shape (n = 1, tile sizes +- 1, n not a multiple of any
// tile, 1 to 5 heads, d = 64 and 128, causal and not), on uniform inputs and on inputs whose
// scores reach +-100 (a softmax without the max subtraction overflows), each pointer misaligned,
// the same buffers reused with changed inputs, large shapes against the given unfused rung on
// the GPU, and the launcher's limits; the speed of the exercise and stretch rungs at the demo's
// 32 x 4096 x 128 through the harness's measuring procedure (attention_bench.hpp); and the
// launcher's refusal of bad arguments, and its no-op on an empty call (bh or n 0). A rung this GPU
// or build cannot run (unsupported()) is SKIPPED, never failed. Test names, thresholds and points
// come from the grading table in lessons/13_attention/README.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attention.cuh"
#include "attention_bench.hpp"
#include "attention_cpu.hpp"
#include "attention_rungs.cuh"  // run_unfused: the GPU reference of the large shapes
#include "course/parallel.hpp"
#include "course/testing.hpp"

namespace {

using namespace course;
using namespace course::lesson13;

enum class Input { Uniform, LargeLogits };

std::string_view to_string(Input input) {
  return input == Input::Uniform ? "uniform" : "large-logit";
}

std::string to_string(Shape s) {
  return std::to_string(s.bh) + "x" + std::to_string(s.n) + "x" + std::to_string(s.d) +
         (s.causal ? " causal" : "");
}

std::size_t count_of(Shape s) {
  return std::size_t(s.bh) * s.n * s.d;
}

// Q, K and V as attention() takes them, and for the large-logit input the key each query row was
// aimed at (-1: none).
struct Inputs {
  std::vector<bf16> q, k, v;
  std::vector<int> target;
};

std::vector<bf16> to_bf16(const std::vector<float>& values, float scale = 1.0f) {
  std::vector<bf16> out(values.size());
  parallel_for(values.size(), [&](std::size_t begin, std::size_t end) {  // 2^27 at the limit
    for (std::size_t i = begin; i < end; ++i)
      out[i] = __float2bfloat16(scale * values[i]);
  });
  return out;
}

// Uniform: Q, K, V uniform in [-1, 1). Large-logit: K and V as before; in each head, query row i
// is aimed at one key t it may see (t = i for every fourth row when causal: the diagonal) with
// q_i = c k_t, c chosen so that its score reaches +100 (rows i % 4 == 0), +80 (1) or -100 (2):
// scores far past exp's FP32 range (exp(88.7)), the other keys' scores spread by about +-9; rows
// i % 4 == 3 are uniform in [-8, 8), a peaked softmax over a few keys.
Inputs make_inputs(Shape s, Input input, std::uint64_t seed) {
  const std::size_t count = count_of(s);
  Inputs in{to_bf16(uniform_floats(count, derive_seed(seed, 0))),
            to_bf16(uniform_floats(count, derive_seed(seed, 1))),
            to_bf16(uniform_floats(count, derive_seed(seed, 2))),
            std::vector<int>(std::size_t(s.bh) * s.n, -1)};
  if (input == Input::Uniform)
    return in;
  const auto peaked = to_bf16(uniform_floats(count, derive_seed(seed, 3)), 8.0f);
  for (int h = 0; h < s.bh; ++h)
    for (int i = 0; i < s.n; ++i) {
      const std::size_t row = std::size_t(h) * s.n + i;
      bf16* q = in.q.data() + row * s.d;
      if (i % 4 == 3) {
        std::copy_n(peaked.begin() + static_cast<std::ptrdiff_t>(row * s.d), s.d, q);
        continue;
      }
      const int allowed = s.causal ? i + 1 : s.n;
      const int t = s.causal && i % 4 == 0 ? i : int(hash64(derive_seed(seed, 4), row) % allowed);
      const bf16* k = in.k.data() + (std::size_t(h) * s.n + t) * s.d;
      double norm = 0.0;
      for (int c = 0; c < s.d; ++c)
        norm += double(__bfloat162float(k[c])) * __bfloat162float(k[c]);
      const double logit = i % 4 == 0 ? 100.0 : i % 4 == 1 ? 80.0 : -100.0;
      const double scale = logit * std::sqrt(double(s.d)) / norm;
      for (int c = 0; c < s.d; ++c)
        q[c] = __float2bfloat16(float(scale * __bfloat162float(k[c])));
      in.target[row] = t;
    }
  return in;
}

double max_abs(const std::vector<bf16>& values) {
  double m = 0.0;
  for (const bf16 x : values)
    m = std::max(m, double(std::fabs(__bfloat162float(x))));
  return m;
}

// Where Q, K, V and O start, in elements: 1 puts one one element past a 16-byte boundary.
struct Offsets {
  std::size_t q = 0, k = 0, v = 0, o = 0;
};

std::string context(Variant variant, Shape s, Input input, std::uint64_t seed, Offsets at) {
  return std::string(name_of(variant)) + " " + to_string(s) + " (bh x n x d) " +
         std::string(to_string(input)) + " input, seed " + std::to_string(seed) +
         misaligned_text({{"Q", at.q}, {"K", at.k}, {"V", at.v}, {"O", at.o}},
                         "one element past a 16-byte boundary");
}

// The poisoned elements around O, and after each input (none under the sanitizers).
std::size_t guard() {
  return guard_elements(64);
}

// One problem on the GPU: the inputs framed by NaN (a read past them poisons the result), O
// poisoned with a guard before and after it.
struct Problem {
  Problem(const Inputs& in, Shape s, Offsets at)
      : shape(s),
        at(at),
        q(upload_framed<bf16>(in.q, at.q, guard())),
        k(upload_framed<bf16>(in.k, at.k, guard())),
        v(upload_framed<bf16>(in.v, at.v, guard())),
        o(guard() + at.o + count_of(s) + guard()) {}
  // Runs @p variant with O poisoned first; returns O.
  std::span<const float> run(Variant variant) {
    o.poison();
    attention(variant, q.data() + at.q, k.data() + at.k, v.data() + at.v, o_at(), shape);
    CUDA_CHECK(cudaDeviceSynchronize());
    all = o.to_host();
    return std::span<const float>(all).subspan(guard() + at.o, count_of(shape));
  }
  float* o_at() { return o.data() + guard() + at.o; }
  // O's guards still poisoned, Q, K and V (const in the interface) as uploaded.
  void check_around(const Inputs& in, const std::string& where) {
    const std::span<const float> whole(all);
    CHECK_MESSAGE(still_poisoned(whole.first(guard() + at.o)),
                  where << ": the rung wrote before the start of O");
    CHECK_MESSAGE(still_poisoned(whole.last(guard())), where << ": the rung wrote past O's end");
    COURSE_CHECK_UNCHANGED(q.data() + at.q, in.q, "Q", where);
    COURSE_CHECK_UNCHANGED(k.data() + at.k, in.k, "K", where);
    COURSE_CHECK_UNCHANGED(v.data() + at.v, in.v, "V", where);
  }
  Shape shape;
  Offsets at;
  DeviceBuffer<bf16> q, k, v;
  DeviceBuffer<float> o;
  std::vector<float> all;
};

Extent extent_of(Shape s) {
  return Extent{std::size_t(s.d), std::size_t(s.n), std::size_t(s.bh)};
}

// Checks O against the CPU reference within the lesson's tolerance; returns the reference.
std::vector<double> check_against_cpu(std::span<const float> o, const Inputs& in, Shape s,
                                      const std::string& where) {
  Reference reference = attention_reference(in.q, in.k, in.v, s);
  const Tolerance tolerance =
      lesson13::bench::output_tolerance(s.n, s.d, max_abs(in.v), reference.magnitude);
  COURSE_CHECK_MATCH(compare_close(o, reference.o, tolerance, extent_of(s)), where);
  return std::move(reference.o);
}

void check_one(Variant variant, Shape s, Input input, std::uint64_t seed, Offsets at = {}) {
  const Inputs in = make_inputs(s, input, seed);
  Problem problem(in, s, at);
  const std::string where = context(variant, s, input, seed, at);
  INFO(where);
  const auto o = problem.run(variant);
  check_against_cpu(o, in, s, where);
  problem.check_around(in, where);
}

// One problem, then the same buffers again with one element of V changed, then one of Q: O must
// follow each change. A launcher that replays a result kept from an earlier call, keyed on the
// pointers, the shape or a few elements read back, fails here, in the correctness row itself.
// Each change moves the reference by many times the tolerance (checked, so that the test cannot
// silently lose its teeth): V's element is of the key that row 4 of head 1 is aimed at (its P is
// about 1), Q's element is of a peaked row, set to +-64.
void check_changed_input(Variant variant, std::uint64_t seed) {
  const Shape s{2, 129, 64, false};
  Inputs in = make_inputs(s, Input::LargeLogits, seed);
  Problem problem(in, s, {});
  std::vector<double> before;
  auto run_and_check = [&](const std::string& what) {
    const std::string where = context(variant, s, Input::LargeLogits, seed, {}) + what;
    const auto o = problem.run(variant);
    auto reference = check_against_cpu(o, in, s, where);
    problem.check_around(in, where);
    if (!before.empty()) {
      double moved = 0.0;
      for (std::size_t i = 0; i < reference.size(); ++i)
        moved = std::max(moved, std::fabs(reference[i] - before[i]));
      REQUIRE_MESSAGE(moved > 0.25, where << ": the change moved O by " << moved << " only");
    }
    before = std::move(reference);
  };
  run_and_check("");
  const int target = in.target[std::size_t(1) * s.n + 4];
  const std::size_t v_at = (std::size_t(1) * s.n + target) * s.d + 5;
  const float value = __bfloat162float(in.v[v_at]);
  change_element(in.v, problem.v.data(), v_at,
                 __float2bfloat16(value > 0.0f ? value - 1.0f : value + 1.0f));
  run_and_check(", then again with V[1][" + std::to_string(target) +
                "][5] changed, in the same buffers");
  // Q: the first element of row 7 of head 0 (a peaked row) whose change to +-64 moves that row
  // of O by more than 0.25, found on the CPU.
  std::vector<double> old_row(s.d), new_row(s.d);
  Head head = widen_head(in.q, in.k, in.v, s, 0);
  attention_row_reference(head, s, 7, old_row);
  std::size_t q_at = 7 * std::size_t(s.d);
  bf16 q_value = __float2bfloat16(64.0f);
  [&] {
    for (int c = 0; c < s.d; ++c)
      for (const float value : {64.0f, -64.0f}) {
        const double kept = head.q[7 * std::size_t(s.d) + c];
        head.q[7 * std::size_t(s.d) + c] = value;  // exact in BF16
        attention_row_reference(head, s, 7, new_row);
        head.q[7 * std::size_t(s.d) + c] = kept;
        for (int e = 0; e < s.d; ++e)
          if (std::fabs(new_row[e] - old_row[e]) > 0.25) {
            q_at = 7 * std::size_t(s.d) + c;
            q_value = __float2bfloat16(value);
            return;
          }
      }
  }();
  change_element(in.q, problem.q.data(), q_at, q_value);
  run_and_check(", then again with Q[0][7][" + std::to_string(q_at % s.d) +
                "] changed too, in the same buffers");
}

// A large shape on uniform inputs: every element against the given unfused rung on the GPU (FP32
// throughout, within the same tolerance), and a sample of rows -- the first two, both sides of a
// 64-row tile, the last, and random ones, in the first and last head -- against the CPU reference,
// so that the verdict does not rest on the unfused rung alone (it is itself a rung checked here).
void check_large(Variant variant, Shape s, std::uint64_t seed) {
  const Inputs in = make_inputs(s, Input::Uniform, seed);
  Problem problem(in, s, {});
  const std::string where = context(variant, s, Input::Uniform, seed, {});
  INFO(where);
  const auto o = problem.run(variant);
  DeviceBuffer<float> d_expected(count_of(s));
  run_unfused(problem.q.data(), problem.k.data(), problem.v.data(), d_expected.data(), s.bh, s.n,
              s.d, s.causal, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto expected = d_expected.to_host();
  const double max_abs_v = max_abs(in.v);  // a pass over 2^27 elements at the limit: once
  const Tolerance tolerance =
      lesson13::bench::output_tolerance(s.n, s.d, max_abs_v, std::sqrt(double(s.d)));
  COURSE_CHECK_MATCH(compare_close(o, std::span<const float>(expected), tolerance, extent_of(s)),
                     where + ", against the unfused rung");
  std::vector<int> rows{0, std::min(1, s.n - 1), std::min(63, s.n - 1), std::min(64, s.n - 1),
                        s.n - 1};
  for (int r = 0; r < 11; ++r)
    rows.push_back(int(hash64(derive_seed(seed, 5), r) % s.n));
  std::vector<double> row(s.d);
  for (const int h : {0, s.bh - 1}) {
    const Head head = widen_head(in.q, in.k, in.v, s, h);
    for (const int i : rows) {
      const double magnitude = attention_row_reference(head, s, i, row);
      const Tolerance exact = lesson13::bench::output_tolerance(s.n, s.d, max_abs_v, magnitude);
      const std::size_t at = (std::size_t(h) * s.n + i) * s.d;
      COURSE_CHECK_MATCH(compare_close(o.subspan(at, s.d), std::span<const double>(row), exact,
                                       Extent{std::size_t(s.d)}),
                         where + ", row " + std::to_string(i) + " of head " + std::to_string(h) +
                             " against the CPU reference");
    }
  }
  problem.check_around(in, where);
}

// bh x n x d, each run causal and not: n = 1, 2, one short of and one past a 64-row tile and
// two, and 1000 and 1024 (not a multiple of any tile, and one that is), with 1 to 5 heads and
// both head dimensions. Under the sanitizers, a few that keep every path.
std::vector<Shape> correctness_shapes() {
  const std::vector<Shape> all{{1, 1, 64},    {2, 1, 128},    {1, 2, 64},    {3, 2, 128},
                               {2, 63, 64},   {1, 63, 128},   {3, 65, 64},   {2, 65, 128},
                               {1, 127, 64},  {4, 127, 128},  {2, 129, 64},  {5, 129, 128},
                               {1, 1000, 64}, {2, 1000, 128}, {3, 1024, 64}, {1, 1024, 128}};
  return fewer_under_sanitizer<Shape>(
      all, {{1, 1, 64}, {2, 2, 128}, {2, 63, 64}, {1, 65, 128}, {2, 129, 64}});
}

// Outside the quick runs: large shapes against the unfused rung, and the launcher's limits, each
// reached once: n = kMaxN (a causal 4 GiB S, which the unfused rungs walk in blocks),
// bh = kMaxBatchHeads (the most heads a grid holds), and bh n d = kMaxElements.
std::vector<Shape> large_shapes() {
  if (quick_mode())
    return {};
  static_assert(128LL * 8192 * 128 == kMaxElements);
  return {{3, 2048, 64, false},          {2, 4096, 128, true},
          {1, kMaxN, 64, true},          {kMaxBatchHeads, 1, 128, false},
          {kMaxBatchHeads, 2, 64, true}, {128, 8192, 128, true}};
}

void check_correct(Variant variant) {
  COURSE_SKIP_IF(unsupported(variant));
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (Shape s : correctness_shapes())
    for (const bool causal : {false, true})
      for (const Input input : {Input::Uniform, Input::LargeLogits}) {
        if (sanitize_mode() && input == Input::Uniform)
          continue;  // under the sanitizers one input: the values move no access
        s.causal = causal;
        check_one(variant, s, input, derive_seed(base, stream++));
      }
  for (const Shape s : large_shapes())
    check_large(variant, s, derive_seed(base, stream++));
  // Q, K, V and O one element past a 16-byte boundary, each alone and all together: attention()
  // copies them into aligned buffers, and no rung may see the difference.
  const std::vector<Offsets> offsets{
      {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {1, 1, 1, 1}};
  for (const Shape s : none_under_racecheck(fewer_under_sanitizer<Shape>(
           {{2, 129, 64, true}, {1, 65, 128, false}}, {{1, 65, 64, true}})))
    for (const Offsets at : offsets)
      check_one(variant, s, Input::LargeLogits, derive_seed(base, stream++), at);
  check_changed_input(variant, derive_seed(base, stream++));
}

// Times @p variant at the demo's 32 x 4096 x 128 with the harness's measuring procedure
// (attention_bench.hpp): fresh inputs before every launch, every timed O checked against the
// unfused rung's, the stream and the clock the harness's own. A fast wrong answer earns nothing.
// The tensor-core rungs' share is of cuBLAS BF16 at 4096^3; the CUDA-core rungs are graded by
// their speedup over unfused, measured right after them, and their share, of cuBLAS SGEMM (their
// own arithmetic's roof), only bounds what is plausible.
SpeedSample sample_of(Variant variant, bool causal) {
  const Shape shape{32, 4096, 128, causal};
  lesson13::bench::Bench problem(shape);
  const MeasureOptions options = speed_options(causal ? 1300 : 1000);
  SpeedSample sample = speed_sample(course::measure(problem.trial(variant), options));
  const bool tensor_cores = variant == Variant::FlashMma || variant == Variant::FlashWgmma;
  const auto& ceiling = tensor_cores ? ceilings::cublas_gemm_bf16(4096, 4096, 4096)
                                     : ceilings::cublas_sgemm(4096, 4096, 4096);
  sample.ceiling = ceiling.name;
  if (!sample.failure.empty())
    return sample;
  if (!tensor_cores)
    add_speedup(sample, course::measure(problem.trial(Variant::Unfused), options), "unfused");
  sample.share = gflop_per_s(problem.flops(), sample.time_ms) / ceiling.value;
  return sample;
}

}  // namespace

COURSE_CORRECT_TEST("unfused.correct", check_correct(Variant::Unfused));

COURSE_CORRECT_TEST("online_softmax.correct", check_correct(Variant::OnlineSoftmax));
COURSE_SPEED_TEST("online_softmax.speed", Graded::Speedup,
                  sample_of(Variant::OnlineSoftmax, false));

COURSE_CORRECT_TEST("flash_simt.correct", check_correct(Variant::FlashSimt));
COURSE_SPEED_TEST("flash_simt.speed", Graded::Speedup, sample_of(Variant::FlashSimt, false));
COURSE_SPEED_TEST("flash_simt.speed_causal", Graded::Speedup, sample_of(Variant::FlashSimt, true));

COURSE_CORRECT_TEST("flash_mma.correct", check_correct(Variant::FlashMma));
COURSE_SPEED_TEST_UNLESS(unsupported(Variant::FlashMma), "flash_mma.speed", Graded::Share,
                         sample_of(Variant::FlashMma, false));
COURSE_SPEED_TEST_UNLESS(unsupported(Variant::FlashMma), "flash_mma.speed_causal", Graded::Share,
                         sample_of(Variant::FlashMma, true));

COURSE_CORRECT_TEST("flash_wgmma.correct", check_correct(Variant::FlashWgmma));
COURSE_SPEED_TEST_UNLESS(unsupported(Variant::FlashWgmma), "flash_wgmma.speed", Graded::Share,
                         sample_of(Variant::FlashWgmma, false));
COURSE_SPEED_TEST_UNLESS(unsupported(Variant::FlashWgmma), "flash_wgmma.speed_causal",
                         Graded::Share, sample_of(Variant::FlashWgmma, true));

// Runs without a GPU: every check happens before the launcher touches the device (it asks
// unsupported() only after them, and an empty call returns before), so it never calls
// unsupported() itself.
TEST_CASE("launcher.bad_arguments") {
  // Never dereferenced. At 2 x 64 x 64, Q, K and V take 16 KiB each, O 32 KiB.
  auto* base = reinterpret_cast<unsigned char*>(std::uintptr_t{1} << 24);
  const auto* q = reinterpret_cast<const bf16*>(base);
  const auto* k = reinterpret_cast<const bf16*>(base + (1 << 16));
  const auto* v = reinterpret_cast<const bf16*>(base + (2 << 16));
  auto* o = reinterpret_cast<float*>(base + (4 << 16));
  const auto o_at = [&](std::ptrdiff_t byte) { return reinterpret_cast<float*>(base + byte); };
  const Shape ok{2, 64, 64, false};
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    const Variant variant = info.variant;
    const auto call = [variant](const bf16* q, const bf16* k, const bf16* v, float* o, Shape s) {
      attention(variant, q, k, v, o, s);
    };
    for (const int d : {0, -64, 32, 96, 256})
      CHECK_THROWS_WITH_AS(call(q, k, v, o, {2, 64, d, false}), doctest::Contains("64 or 128"),
                           std::invalid_argument);
    for (const int n : {-1, -64, kMaxN + 1})
      CHECK_THROWS_WITH_AS(call(q, k, v, o, {2, n, 64, true}), doctest::Contains("[0, 32768]"),
                           std::invalid_argument);
    for (const int bh : {-1, -3, kMaxBatchHeads + 1})
      CHECK_THROWS_WITH_AS(call(q, k, v, o, {bh, 64, 64, false}), doctest::Contains("[0, 65535]"),
                           std::invalid_argument);
    // Each extent within its limit, but bh n d above 2^27: 33 x 32768 x 128.
    CHECK_THROWS_WITH_AS(call(q, k, v, o, {33, kMaxN, 128, false}), doctest::Contains("2^27"),
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(call(nullptr, k, v, o, ok), doctest::Contains("device pointers"),
                         std::invalid_argument);
    CHECK_THROWS_AS(call(q, nullptr, v, o, ok), std::invalid_argument);
    CHECK_THROWS_AS(call(q, k, nullptr, o, ok), std::invalid_argument);
    CHECK_THROWS_AS(call(q, k, v, nullptr, ok), std::invalid_argument);
    // Overlaps counted in bytes: O on Q, O starting on Q's last BF16 (byte 16382 of 16384), O
    // (32 KiB) ending on V's first byte, O inside K.
    CHECK_THROWS_WITH_AS(call(q, k, v, o_at(0), ok), doctest::Contains("overlaps"),
                         std::invalid_argument);
    CHECK_THROWS_AS(call(q, k, v, o_at(16382), ok), std::invalid_argument);
    CHECK_THROWS_AS(call(q, k, v, o_at((2 << 16) - 32767), ok), std::invalid_argument);
    CHECK_THROWS_AS(call(q, k, v, o_at((1 << 16) + 8), ok), std::invalid_argument);
    // No head or no query: a no-op, even with null pointers, that never asks the GPU anything
    // (this row runs without one); the other arguments are still checked.
    CHECK_NOTHROW(call(nullptr, nullptr, nullptr, nullptr, {0, 64, 64, false}));
    CHECK_NOTHROW(call(nullptr, nullptr, nullptr, nullptr, {2, 0, 128, true}));
    CHECK_NOTHROW(call(nullptr, nullptr, nullptr, nullptr, {0, 0, 64, false}));
    CHECK_NOTHROW(call(q, k, v, o, {0, kMaxN, 128, false}));
    CHECK_THROWS_WITH_AS(call(nullptr, nullptr, nullptr, nullptr, {0, 64, 96, false}),
                         doctest::Contains("64 or 128"), std::invalid_argument);
    CHECK_THROWS_WITH_AS(call(nullptr, nullptr, nullptr, nullptr, {kMaxBatchHeads + 1, 0, 64}),
                         doctest::Contains("[0, 65535]"), std::invalid_argument);
  }
  CHECK_THROWS_WITH_AS(attention(static_cast<Variant>(99), q, k, v, o, ok),
                       doctest::Contains("unknown variant"), std::invalid_argument);
}
