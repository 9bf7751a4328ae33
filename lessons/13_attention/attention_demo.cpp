// Lesson 13's demo: the whole ladder at one shape, causal off and on, as tables (time, GFLOP/s,
// threads per block, the instruction of the inner loops) against cuBLAS BF16 at 4096^3 (the
// graded ceiling), with the bytes the two unfused rungs move against the device copy; with
// --sweep size, the rungs at n = 512 ... 16384 for the same number of tokens.
// See README.md, "How to work on this lesson".
#include <CLI/CLI.hpp>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "attention.cuh"
#include "attention_bench.hpp"
#include "course/bench.hpp"
#include "course/ceilings.hpp"
#include "course/demo.hpp"
#include "course/gpu.hpp"

namespace {

using namespace course;
using namespace course::lesson13;

constexpr Shape kDefaultShape{32, 4096, 128, false};
constexpr const char* kSizeHelp =
    "BHxNxD (heads x sequence length x head dimension, D 64 or 128), or N alone for 32 x N x 128; "
    "counts such as 4096, 4k or 2^12 (default 32x4096x128)";

// --sweep size: the sequence lengths, each with as many heads as keep bh n at the ladder's.
constexpr std::array<int, 6> kSizeSweep{512, 1024, 2048, 4096, 8192, 16384};

// The graded ceiling: cuBLAS BF16 at 4096^3, the tensor cores' rate on a large product.
constexpr int kCeilingSide = 4096;

constexpr const char* kRooflineNote =
    "Roofline: 4 bh n^2 d FLOP (half when causal) over the bytes a rung must move: Q, K, V read "
    "once in BF16 and O written once in FP32, plus, for unfused and online_softmax, 4 bytes per "
    "score for each pass over S or P (6 and 3 passes). The compute roof is the tensor cores' "
    "(cuBLAS BF16 at 8192^3, measured in this run).";

// This lesson's own options.
struct AttentionOptions {
  std::string sweep;            ///< --sweep: empty or "size"
  std::string causal = "both";  ///< --causal: off, on or both
};

std::optional<Shape> parse_size(const std::string& text) {
  Shape shape = kDefaultShape;
  if (text.find('x') == std::string::npos) {
    const auto n = parse_count(text);
    if (!n || *n < 1 || *n > static_cast<std::uint64_t>(kMaxN))
      return std::nullopt;
    shape.n = static_cast<int>(*n);
  } else {
    const auto parts = parse_shape3(text, kMaxBatchHeads, kMaxElements);
    if (!parts)
      return std::nullopt;
    const auto [bh, n, d] = *parts;
    if (n > static_cast<std::uint64_t>(kMaxN) || (d != 64 && d != 128))
      return std::nullopt;
    shape = Shape{static_cast<int>(bh), static_cast<int>(n), static_cast<int>(d), false};
  }
  if (static_cast<long long>(shape.bh) * shape.n * shape.d > kMaxElements)
    return std::nullopt;
  return shape;
}

std::string shape_text(Shape shape) {
  return std::to_string(shape.bh) + " x " + std::to_string(shape.n) + " x " +
         std::to_string(shape.d) + (shape.causal ? ", causal" : "");
}

// What a rung's row counts (timed by the harness's measuring procedure, attention_bench.hpp,
// the same one that grades it): once it ran, its FLOP and bytes on the roofline, its block's
// threads and its inner loop's instruction; when it was skipped, the reason goes to @p notes.
void count_row(LadderRow& row, const VariantInfo& info, const lesson13::bench::Bench& problem,
               std::vector<std::string>& notes) {
  if (row.status == "skipped") {
    row.note = "cannot run here (see below)";
    if (const auto why = unsupported(info.variant))
      notes.push_back(std::string(info.name) + " skipped: " + *why);
  }
  if (!row.ran())
    return;
  row.work = {problem.flops(), problem.bytes(info.variant)};
  row.metric = gflop_per_s(problem.flops(), row.timing.median_ms);
  row.extra = {std::to_string(info.threads), std::string(info.instruction)};
}

// The scores' traffic of the two unfused rungs against the device copy measured in this run.
void add_traffic_notes(LadderReport& report, const lesson13::bench::Bench& problem) {
  const auto& copy = ceilings::device_copy();
  for (const Variant variant : {Variant::Unfused, Variant::OnlineSoftmax}) {
    const LadderRow* row = find_row(report.rows, name_of(variant));
    if (row == nullptr || !row->ran())
      continue;
    const double bytes = problem.bytes(variant);
    report.notes.push_back(
        std::string(name_of(variant)) + " moves " + fixed(bytes / 1e9, 2) + " GB (" +
        (variant == Variant::Unfused ? "S written once and read three times, P written and read"
                                     : "S written once and read twice, P never written") +
        "): at the device copy's " + fixed(copy.value, 0) + " GB/s that alone takes " +
        fixed(bytes / copy.value / 1e6, 3) + " ms of its " + fixed(row->timing.median_ms, 3) +
        " ms.");
  }
}

LadderReport ladder_at(const DemoOptions& options, Shape shape) {
  lesson13::bench::Bench problem(shape);
  const auto& bf16_gemm = ceilings::cublas_gemm_bf16(kCeilingSide, kCeilingSide, kCeilingSide);
  LadderReport ladder("Lesson 13, attention with bh x n x d = " + shape_text(shape) +
                          ", uniform BF16 Q, K, V, FP32 O",
                      "GFLOP/s", std::string(name_of(Variant::Unfused)), bf16_gemm);
  ladder.extra_columns = {"threads/block", "instruction"};
  ladder.compute_roof = ceilings::bf16_tensor_peak();
  std::vector<std::string> skipped;
  add_rungs(
      ladder, options, kVariants, measure_trials(problem, options),
      [&](LadderRow& row, const VariantInfo& info) { count_row(row, info, problem, skipped); });
  const double side = kCeilingSide;
  ladder.rows.push_back(ceiling_row(bf16_gemm, {2.0 * side * side * side, 8.0 * side * side},
                                    "the graded ceiling: a 4096^3 BF16 GEMM", {"-", "-"}));
  ladder.notes = {
      "GFLOP/s = 4 bh n^2 d / time (half the FLOP when causal); the ceiling is cuBLAS BF16 "
      "(cublasGemmEx, BF16 in, FP32 accumulation, tensor cores) at 4096^3, measured in this run. "
      "Every timed O is checked against the unfused rung's O of the same inputs, on fresh inputs "
      "for each launch; 'WRONG' = a timed O outside rounding's reach, or work outside the timed "
      "stream (the note says which).",
      kRooflineNote};
  add_traffic_notes(ladder, problem);
  ladder.notes.insert(ladder.notes.end(), skipped.begin(), skipped.end());
  return ladder;
}

// The rungs (all, or those --variant names) at each n of kSizeSweep with bh n kept at the
// ladder's: every row against the same ceiling, and its speedup over unfused at its own n.
LadderReport size_sweep(const DemoOptions& options, Shape base) {
  LadderReport sweep;
  std::vector<VariantInfo> rungs;
  for (const auto& info : kVariants) {
    if (!options.wants(info.name))
      continue;
    if (const auto why = unsupported(info.variant))
      sweep.notes.push_back(std::string(info.name) + " left out: " + *why);
    else
      rungs.push_back(info);
  }
  const long long tokens = static_cast<long long>(base.bh) * base.n;
  auto rows_at = [&](int n) {
    const Shape shape{static_cast<int>(std::max(1LL, tokens / n)), n, base.d, base.causal};
    lesson13::bench::Bench problem(shape);
    std::vector<LadderRow> at_n;
    for (const auto& info : rungs) {
      at_n.push_back(measured_row(
          info.name, info.kind,
          [&] { return measure(problem.trial(info.variant), options.measuring()); },
          [&](LadderRow& row) { count_row(row, info, problem, sweep.notes); }));
      at_n.back().extra = {std::to_string(shape.bh) + " x " + std::to_string(n),
                           std::string(info.instruction)};
    }
    return at_n;
  };
  SweepRows swept = sweep_rows(
      kSizeSweep, name_of(Variant::Unfused), [](int) -> const auto& {
        return ceilings::cublas_gemm_bf16(kCeilingSide, kCeilingSide, kCeilingSide);
      },
      rows_at);
  sweep.rows = std::move(swept.rows);
  sweep.ceiling = swept.ceiling;
  sweep.title = "Lesson 13, attention at n = " + std::to_string(kSizeSweep.front()) + " ... " +
                std::to_string(kSizeSweep.back()) + ", bh n = " + std::to_string(tokens) +
                " tokens, d = " + std::to_string(base.d) + (base.causal ? ", causal" : "");
  sweep.metric_unit = "GFLOP/s";
  sweep.baseline = "unfused at the same n";
  sweep.extra_columns = {"bh x n", "instruction"};
  sweep.compute_roof = ceilings::bf16_tensor_peak();
  sweep.notes.insert(sweep.notes.begin(), kRooflineNote);
  return sweep;
}

std::vector<LadderReport> run_demo_tables(const DemoOptions& options,
                                          const AttentionOptions& extra) {
  Shape shape = *parse_size(options.size_or("32x4096x128"));
  std::vector<LadderReport> reports;
  for (const bool causal : {false, true}) {
    if (extra.causal == (causal ? "off" : "on"))
      continue;
    shape.causal = causal;
    reports.push_back(ladder_at(options, shape));
    if (extra.sweep == "size")
      reports.push_back(size_sweep(options, shape));
  }
  return reports;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec("13_attention",
                "Lesson 13: attention, from three kernels to FlashAttention on Hopper.", kSizeHelp,
                kVariants);
  AttentionOptions extra;
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--sweep", extra.sweep,
                   "size: also time the rungs (or --variant's) at n = 512 ... 16384, as many "
                   "heads as keep bh n at the ladder's")
        ->check(CLI::IsMember({"size"}));
    app.add_option("--causal", extra.causal, "off, on or both (default both): the tables to make")
        ->check(CLI::IsMember({"off", "on", "both"}));
  };
  spec.validate = [](const DemoOptions& options) -> std::optional<std::string> {
    if (parse_size(options.size_or("32x4096x128")))
      return std::nullopt;
    return "--size takes BHxNxD with D 64 or 128, 1 <= N <= 32768, 1 <= BH <= 65535 and "
           "BH N D <= 2^27, or N alone (32 x N x 128)";
  };
  // Each rung's block shape is fixed (the threads/block column).
  spec.takes_block = false;
  spec.run = [&](const DemoOptions& options) { return run_demo_tables(options, extra); };
  return run_demo(argc, argv, spec);
}
