// Lesson 12's tests: every rung on every shape (any M, N, K, ragged tile edges, K not a multiple
// of 8, rectangles, empty products, the launcher's limits, each pointer misaligned), on uniform
// BF16 inputs and on small integers that any correct kernel multiplies bit for bit; the tensor-core
// rungs' speed graded as a share of cuBLAS BF16 measured in this run (through the harness's
// measuring procedure, tensor_cores_bench.hpp); and the launcher's refusal of bad arguments. A
// rung this GPU or build cannot run (unsupported()) is SKIPPED, never failed. Test names,
// thresholds and points come from the grading table in lessons/12_tensor_cores/README.md.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "course/testing.hpp"
#include "course/testing_matrix.hpp"
#include "tensor_cores.cuh"
#include "tensor_cores_bench.hpp"
#include "tensor_cores_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson12;

using Shape = ProductShape;

// M x N x K. Single elements; odd sizes; one past and one short of the block tiles (64, 128,
// 256) in M and N, and whole tiles; K not a multiple of 8 (the launcher's padded path), K of one
// and two mma steps (8, 16) and of a tile and a step (64 + 8); k = 1; long thin rectangles;
// empty products (C = 0 when k = 0); and, outside the sanitizer runs, 1000^3 and the demo's
// 4096^3 (130 x 260 x 72 under them).
std::vector<Shape> correctness_shapes() {
  const std::vector<Shape> shapes{
      {1, 1, 1},     {17, 33, 9},     {127, 255, 63}, {31, 33, 130}, {129, 257, 72}, {255, 129, 64},
      {64, 256, 64}, {128, 256, 128}, {64, 64, 64},   {65, 63, 16},  {128, 128, 8},  {128, 128, 16},
      {96, 160, 72}, {127, 129, 1},   {257, 127, 24}, {1, 4096, 72}, {4096, 1, 40},  {33, 17, 4096},
      {5, 7, 0},     {0, 5, 5},       {5, 0, 5}};
  return product_correctness_shapes(shapes, {130, 260, 72});
}

// The launcher's limits, each reached (uniform input only, outside the sanitizer runs): M and N
// at kMaxExtent (the most block tiles along one axis of a grid), and A, B and C each of
// kMaxElements (8192 x 8192) elements, so that every index a kernel may compute for an accepted
// shape is computed here once.
std::vector<Shape> limit_shapes() {
  if (quick_mode())
    return {};
  constexpr int kSide = 8192;
  static_assert(static_cast<long long>(kSide) * kSide == kMaxElements);
  return {{kMaxExtent, 2, 64},  // A: 2^20 x 64
          {2, kMaxExtent, 64},  // B: 64 x 2^20
          {kSide, kSide, 64}};  // C: 8192 x 8192
}

enum class Input { Uniform, SmallIntegers };

std::string_view to_string(Input input) {
  return input == Input::Uniform ? "uniform" : "small-integer";
}

// Where each buffer starts, in elements: 1 puts A or B one BF16 (2 bytes) and C one float past a
// 16-byte boundary, where no 16-byte access is possible.
using Offsets = ProductOffsets;

// C two floats past a 16-byte boundary: 8-byte aligned, so a rung may store float2 pairs there,
// but no 16-byte access (a TMA store of C) is possible.
constexpr Offsets kCEightBytesPast{0, 0, 2};

std::string context(Variant variant, Shape shape, Input input, std::uint64_t seed,
                    Offsets offsets) {
  const std::string where = offsets.c == kCEightBytesPast.c
                                ? ", C two floats (8 bytes) past a 16-byte boundary"
                                : to_string(offsets, "element");
  return std::string(name_of(variant)) + " " + to_string(shape) + " (MxNxK) " +
         std::string(to_string(input)) + " input, seed " + std::to_string(seed) + where;
}

// One matrix: the BF16 values a rung multiplies and the same values as floats (exact), for the
// checks that take floats.
struct Operand {
  std::vector<bf16> values;
  std::vector<float> floats;
};

Operand make_operand(std::size_t count, Input input, std::uint64_t seed) {
  Operand operand;
  operand.floats =
      input == Input::Uniform ? uniform_floats(count, seed) : std::vector<float>(count);
  if (input == Input::SmallIntegers) {
    const auto ints = uniform_ints(count, seed, -4, 4);
    std::copy(ints.begin(), ints.end(), operand.floats.begin());
  }
  operand.values.reserve(count);
  for (float& value : operand.floats) {
    operand.values.push_back(__float2bfloat16(value));
    value = __bfloat162float(operand.values.back());
  }
  return operand;
}

// Up to this many multiply-adds, C is checked against the CPU reference (tensor_cores_cpu.hpp).
constexpr double kCpuReferenceLimit = 0x1p27;

// C (@p c on the host, @p d_c on the device) against the product of @p a and @p b.
//  - Small integers: exactly (every partial sum is an integer below 2^24), against the CPU
//    reference, or for large products against cuBLAS's FP32 product, exact for them too.
//  - Uniform inputs, small products: against the CPU reference within 2 gamma_K sum |a b|.
//    product::check's gamma_K is proven for FP32 sums that round to nearest (u per addition);
//    the tensor cores align and truncate (up to 2u per step, tensor_cores_bench.cu), so their
//    proven bound is about twice it. It matters only for small K, where the worst case is near.
//  - Uniform inputs, large products: product::check on the float copies (cuBLAS within twice
//    gamma_K, then exact samples within gamma_K). Every large product here has K >= 64, where a
//    correct tensor-core result lies far inside gamma_K sum |a b| (for uniform inputs its error
//    grows like K, the bound like K^2), truncation or not.
Comparison check_product(const Operand& a, const Operand& b, const float* d_c,
                         std::span<const float> c, Shape shape, Input input, std::uint64_t seed) {
  const auto [m, n, k] = shape;
  const Extent extent{std::size_t(n), std::size_t(m)};
  const bool exact = input == Input::SmallIntegers;
  if (multiply_adds(shape) <= kCpuReferenceLimit) {
    const auto [expected, magnitude] = multiply_reference(a.values, b.values, m, n, k);
    std::vector<double> bound(c.size(), 0.0);
    if (!exact)
      for (std::size_t i = 0; i < c.size(); ++i)
        bound[i] = 2.0 * product::dot_error_bound(k) * magnitude[i] + 1e-30;
    return compare_bounded(c, expected, bound, extent);
  }
  const DeviceBuffer<float> d_a{std::span<const float>(a.floats)};
  const DeviceBuffer<float> d_b{std::span<const float>(b.floats)};
  if (!exact)
    return product::check(d_a.data(), d_b.data(), d_c, m, n, k, product::Second::BColumnMajor,
                          seed);
  DeviceBuffer<float> d_expected(c.size());
  product::multiply(d_a.data(), d_b.data(), d_expected.data(), m, n, k,
                    product::Second::BColumnMajor, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto expected = d_expected.to_host();
  return compare_bounded(c, std::vector<double>(expected.begin(), expected.end()),
                         std::vector<double>(c.size(), 0.0), extent);
}

// Runs @p variant on one input; checks every element of C, that the guards around C are
// untouched, and that A and B (const in the interface) still hold what was uploaded.
void check_one(Variant variant, Shape shape, Input input, std::uint64_t seed,
               Offsets offsets = {}) {
  const auto [m, n, k] = shape;
  const std::size_t c_count = std::size_t(m) * n;
  const Operand a = make_operand(std::size_t(m) * k, input, derive_seed(seed, 0));
  const Operand b = make_operand(std::size_t(k) * n, input, derive_seed(seed, 1));
  // A and B each followed by product_guard() elements of NaN (0xFFFF is a BF16 NaN): a kernel that
  // reads past their end computes with NaN.
  const auto d_a = upload_framed<bf16>(a.values, offsets.a, product_guard());
  const auto d_b = upload_framed<bf16>(b.values, offsets.b, product_guard());
  DeviceBuffer<float> d_c(std::max<std::size_t>(1, offsets.c + c_count + product_guard()));
  d_c.poison();  // NaN in C, before it and after it: an element never written cannot pass
  float* c_at = d_c.data() + offsets.c;
  const std::string where = context(variant, shape, input, seed, offsets);
  INFO(where);

  multiply(variant, d_a.data() + offsets.a, d_b.data() + offsets.b, c_at, m, n, k);
  CUDA_CHECK(cudaDeviceSynchronize());

  const auto all = d_c.to_host();
  const std::span<const float> c(all.data() + offsets.c, c_count);
  COURSE_CHECK_MATCH(check_product(a, b, c_at, c, shape, input, seed), where);
  check_guards_of_c(all, offsets.c, c_count, product_guard(), where);
  // A rung that multiplies right but uses A or B as scratch (the padded path included) breaks
  // the caller's matrices: both must be exactly the values uploaded, where they were uploaded.
  COURSE_CHECK_UNCHANGED(d_a.data() + offsets.a, a.values, "A", where);
  COURSE_CHECK_UNCHANGED(d_b.data() + offsets.b, b.values, "B", where);
}

// One product, then the same buffers again with one element of A changed, then one of B: C must
// follow each change. A launcher that replays a result kept from an earlier call, keyed on the
// pointers, the shape or a few elements read back, fails here, in the correctness row itself.
// After every call A and B must still hold what was uploaded (with the changed element).
// The shape takes the tensor-core rungs' direct path (K a multiple of 8, aligned pointers).
void check_changed_input(Variant variant, std::uint64_t seed) {
  const Shape shape{129, 257, 72};
  const auto [m, n, k] = shape;
  Operand a = make_operand(std::size_t(m) * k, Input::Uniform, derive_seed(seed, 0));
  Operand b = make_operand(std::size_t(k) * n, Input::Uniform, derive_seed(seed, 1));
  auto d_a = upload_framed<bf16>(a.values, 0, product_guard());
  auto d_b = upload_framed<bf16>(b.values, 0, product_guard());
  DeviceBuffer<float> d_c(std::size_t(m) * n + product_guard());
  auto run_and_check = [&](const std::string& what) {
    d_c.poison();
    multiply(variant, d_a.data(), d_b.data(), d_c.data(), m, n, k);
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto all = d_c.to_host();
    COURSE_CHECK_MATCH(
        check_product(a, b, d_c.data(), std::span<const float>(all.data(), std::size_t(m) * n),
                      shape, Input::Uniform, seed),
        context(variant, shape, Input::Uniform, seed, {}) + what);
    COURSE_CHECK_UNCHANGED(d_a.data(), a.values, "A",
                           context(variant, shape, Input::Uniform, seed, {}) + what);
    COURSE_CHECK_UNCHANGED(d_b.data(), b.values, "B",
                           context(variant, shape, Input::Uniform, seed, {}) + what);
  };
  // An element in the middle of each matrix, moved by 1 towards 0 (a different BF16 value, still
  // in [-1, 1]): the first and last ones stay as they were.
  auto change = [](Operand& host, DeviceBuffer<bf16>& device, std::size_t at) {
    const float value = host.floats[at];
    change_element(host.values, device.data(), at,
                   __float2bfloat16(value > 0.0f ? value - 1.0f : value + 1.0f));
    host.floats[at] = __bfloat162float(host.values[at]);
  };
  run_and_check("");
  change(a, d_a, std::size_t(m / 2) * k + k / 2);
  run_and_check(", then again with A[64][36] changed, in the same buffers");
  change(b, d_b, std::size_t(n / 2) * k + k / 2);  // B is column-major: column 128, row 36
  run_and_check(", then again with B[36][128] changed too, in the same buffers");
}

// A rung this GPU or build cannot run (unsupported()) is SKIPPED with the reason, here for its
// correctness row, by COURSE_SPEED_TEST_UNLESS for its speed row.
void check_correct(Variant variant) {
  COURSE_SKIP_IF(unsupported(variant));
  const std::uint64_t base = base_seed();
  std::uint64_t stream = 0;
  for (const Shape shape : correctness_shapes()) {
    check_one(variant, shape, Input::Uniform, derive_seed(base, stream++));
    // Small integers on every shape but the largest (one input there is enough).
    if (second_input_on(shape))
      check_one(variant, shape, Input::SmallIntegers, derive_seed(base, stream++));
  }
  for (const Shape shape : limit_shapes())
    check_one(variant, shape, Input::Uniform, derive_seed(base, stream++));
  // A, B one BF16 and C one float past a 16-byte boundary, alone and all together: no rung may
  // assume cudaMalloc's alignment of any of them. Both shapes would take the tensor-core rungs'
  // direct path (K a multiple of 8) if the pointers allowed it; a misaligned A or B sends them
  // through the launcher's padded copies, a misaligned C never does. Then C 8 bytes past a
  // 16-byte boundary, with N a multiple of 4: float2 stores are allowed, 16-byte ones are not.
  auto misaligned =
      fewer_under_sanitizer<Shape>({{128, 256, 64}, {129, 257, 72}}, {{128, 128, 16}});
  for (const Shape shape : none_under_racecheck(misaligned))
    for (const Offsets offsets : kMisalignedOperands)
      check_one(variant, shape, Input::Uniform, derive_seed(base, stream++), offsets);
  for (const Shape shape : none_under_racecheck(misaligned))
    if (shape.n % 4 == 0)
      check_one(variant, shape, Input::Uniform, derive_seed(base, stream++), kCEightBytesPast);
  check_changed_input(variant, derive_seed(base, stream++));
}

constexpr Shape kSpeedShape{4096, 4096, 4096};

// Times @p variant, and simt_bf16 for the speedup, at 4096^3 with the harness's measuring
// procedure (tensor_cores_bench.hpp): fresh inputs before every launch, every timed product
// checked against cuBLAS's, the stream and the clock the harness's own. A fast wrong answer earns
// nothing. The share is of cuBLAS BF16 on the tensor cores, measured in this run.
SpeedSample sample_of(Variant variant) {
  const auto [m, n, k] = kSpeedShape;
  lesson12::bench::Bench problem(m, n, k, lesson12::bench::Input::Uniform);
  const MeasureOptions options = speed_options(1000);
  SpeedSample sample = speed_sample(course::measure(problem.trial(variant), options));
  const auto& ceiling = ceilings::cublas_gemm_bf16(m, n, k);
  sample.ceiling = ceiling.name;
  if (!sample.failure.empty())
    return sample;
  add_speedup(sample, course::measure(problem.trial(Variant::SimtBf16), options), "simt_bf16");
  sample.share = gflop_per_s(problem.flops(), sample.time_ms) / ceiling.value;
  return sample;
}

}  // namespace

COURSE_CORRECT_TEST("simt_bf16.correct", check_correct(Variant::SimtBf16));

COURSE_CORRECT_TEST("wmma.correct", check_correct(Variant::Wmma));
COURSE_SPEED_TEST_UNLESS(unsupported(Variant::Wmma), "wmma.speed", Graded::Share,
                         sample_of(Variant::Wmma));

COURSE_CORRECT_TEST("mma_sync.correct", check_correct(Variant::MmaSync));
COURSE_SPEED_TEST_UNLESS(unsupported(Variant::MmaSync), "mma_sync.speed", Graded::Share,
                         sample_of(Variant::MmaSync));

COURSE_CORRECT_TEST("wgmma.correct", check_correct(Variant::Wgmma));
COURSE_SPEED_TEST_UNLESS(unsupported(Variant::Wgmma), "wgmma.speed", Graded::Share,
                         sample_of(Variant::Wgmma));

// Runs without a GPU: every check happens before the launcher touches the device (it asks
// unsupported() only after them), so it never calls unsupported() itself.
TEST_CASE("launcher.bad_arguments") {
  // Never dereferenced. A and B (10 x 10 BF16) take 200 bytes each, C (10 x 10 floats) 400.
  auto* base = reinterpret_cast<unsigned char*>(std::uintptr_t{1} << 20);
  const auto* a = reinterpret_cast<const bf16*>(base);
  const auto* b = reinterpret_cast<const bf16*>(base + 4096);
  auto* c = reinterpret_cast<float*>(base + 8192);
  const auto c_at = [&](std::ptrdiff_t byte) { return reinterpret_cast<float*>(base + byte); };
  for (const auto& info : kVariants) {
    CAPTURE(info.name);
    const Variant v = info.variant;
    const auto call = [v](const bf16* d_a, const bf16* d_b, float* d_c, int m, int n, int k) {
      multiply(v, d_a, d_b, d_c, m, n, k);
    };
    check_product_refusals(call, a, b, c, kMaxExtent);
    // Overlaps counted in bytes: C inside A, C starting on A's last BF16 (byte 198 of 200), C
    // ending on B's first BF16 (C's 400 bytes from byte 4096 - 398 reach byte 4097).
    CHECK_THROWS_WITH_AS(multiply(v, a, b, c_at(100), 10, 10, 10), doctest::Contains("overlaps"),
                         std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, c_at(198), 10, 10, 10), std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, c_at(4096 - 398), 10, 10, 10), std::invalid_argument);
    CHECK_THROWS_AS(multiply(v, a, b, c_at(4096 + 100), 10, 10, 10), std::invalid_argument);
    check_empty_products<bf16, bf16>(call);
  }
}
