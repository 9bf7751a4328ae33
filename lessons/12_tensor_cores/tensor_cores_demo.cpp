// Lesson 12's demo: the whole ladder at one shape, as a table (time, GFLOP/s, threads per block,
// the instruction of the inner loop), beside cuBLAS BF16 on the tensor cores (the graded
// ceiling) and, for scale, cuBLAS TF32 and cuBLAS SGEMM; with --sweep size, the rungs at
// n x n x n for n = 256 ... 8192, each against cuBLAS BF16 at its own n.
// See README.md, "How to work on this lesson".
#include <CLI/CLI.hpp>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "course/bench.hpp"
#include "course/ceilings.hpp"
#include "course/demo.hpp"
#include "course/gpu.hpp"
#include "tensor_cores.cuh"
#include "tensor_cores_bench.hpp"

namespace {

using namespace course;
using namespace course::lesson12;

constexpr const char* kDefaultSize = "4096";

// How the rows' work is counted for the roofline, in every table of this demo.
constexpr const char* kRooflineNote =
    "Roofline: 2 M N K FLOP over 2 (M K + K N) + 4 M N bytes (BF16 A and B read once, FP32 C "
    "written once; what the L2 serves again is not counted); cuBLAS TF32 and SGEMM read FP32 "
    "A and B: 4 (M K + K N + M N) bytes. The compute roof is the tensor cores' (cuBLAS BF16 at "
    "8192^3, measured in this run).";

// --sweep size: the square sizes n x n x n.
constexpr std::array<int, 6> kSizeSweep{256, 512, 1024, 2048, 4096, 8192};

// This lesson's own options.
struct TensorOptions {
  std::string sweep;  ///< --sweep: empty or "size"
};

// What a rung's row counts (timed by the harness's measuring procedure, tensor_cores_bench.hpp,
// the same one that grades it): once it ran, @p problem's flops() and bytes() are its work on the
// roofline, its block's threads and its inner loop's instruction its extra columns; when it was
// skipped (this GPU or build cannot run it), the reason is added to @p notes.
void count_product(LadderRow& row, const VariantInfo& info, const lesson12::bench::Bench& problem,
                   std::vector<std::string>& notes) {
  if (row.status == "skipped") {
    row.note = "cannot run here (see below)";
    if (const auto why = unsupported(info.variant))
      notes.push_back(std::string(info.name) + " skipped: " + *why);
  }
  if (!row.ran())
    return;
  row.work = {problem.flops(), problem.bytes()};
  row.metric = gflop_per_s(problem.flops(), row.timing.median_ms);
  row.extra = {std::to_string(info.threads), std::string(info.instruction)};
}

// The rungs (all, or those --variant names) at n x n x n for each n of kSizeSweep. A size the
// ladder already timed (@p d square) takes the ladder's row instead of a second timing. Each
// row's share is of cuBLAS BF16 at its own n, and its speedup over simt_bf16 at its own n.
LadderReport size_sweep(const DemoOptions& options, const LadderReport& ladder, GemmDims d) {
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
  auto rows_at = [&](int n) {
    std::optional<lesson12::bench::Bench> problem;  // made for the first rung timed at n
    auto time_at_n = [&](const VariantInfo& info) {
      if (!problem)
        problem.emplace(n, n, n, lesson12::bench::Input::Uniform);
      return measured_row(
          info.name, info.kind,
          [&] { return measure(problem->trial(info.variant), options.measuring()); },
          [&](LadderRow& row) { count_product(row, info, *problem, sweep.notes); });
    };
    const bool timed_in_ladder = d.m == n && d.n == n && d.k == n;
    std::vector<LadderRow> at_n;
    for (const auto& info : rungs) {
      const LadderRow* timed = timed_in_ladder ? find_row(ladder.rows, info.name) : nullptr;
      at_n.push_back(timed != nullptr ? *timed : time_at_n(info));
      at_n.back().extra = {std::to_string(n), std::string(info.instruction)};
    }
    return at_n;
  };
  SweepRows swept = sweep_rows(
      kSizeSweep, name_of(Variant::SimtBf16),
      [](int n) -> const auto& { return ceilings::cublas_gemm_bf16(n, n, n); }, rows_at);
  sweep.rows = std::move(swept.rows);
  sweep.ceiling = swept.ceiling;
  sweep.title = "Lesson 12, C = A B at n x n x n, n = " + std::to_string(kSizeSweep.front()) +
                " ... " + std::to_string(kSizeSweep.back()) + ", uniform BF16 matrices";
  sweep.metric_unit = "GFLOP/s";
  // No row is named so: each row's speedup is over simt_bf16 at the same n (sweep_rows).
  sweep.baseline = "simt_bf16 at the same n";
  sweep.ceiling.what += "; each row's share is of cuBLAS BF16 at its own n";
  sweep.extra_columns = {"n", "instruction"};
  sweep.compute_roof = ceilings::bf16_tensor_peak();
  sweep.notes.insert(
      sweep.notes.begin(),
      {"cuBLAS BF16 at each n, GFLOP/s, measured in this run: " + swept.ceilings + ".",
       "Rows at the ladder's own shape are the ladder's timings (not timed again).",
       kRooflineNote});
  return sweep;
}

std::vector<LadderReport> run_demo_tables(const DemoOptions& options, const TensorOptions& extra) {
  const GemmDims d = *parse_gemm_dims(options.size_or(kDefaultSize), kMaxExtent, kMaxElements);
  lesson12::bench::Bench problem(d.m, d.n, d.k, lesson12::bench::Input::Uniform);
  const auto& bf16_gemm = ceilings::cublas_gemm_bf16(d.m, d.n, d.k);
  const auto& tf32_gemm = ceilings::cublas_gemm_tf32(d.m, d.n, d.k);
  const auto& sgemm = ceilings::cublas_sgemm(d.m, d.n, d.k);
  const auto& fma_peak = ceilings::fp32_fma_peak();
  const auto& tensor_peak = ceilings::bf16_tensor_peak();

  LadderReport ladder("Lesson 12, C = A B with M x N x K = " + shape_text(d) +
                          ", uniform BF16 matrices, FP32 accumulation",
                      "GFLOP/s", std::string(name_of(Variant::SimtBf16)), bf16_gemm);
  ladder.extra_columns = {"threads/block", "instruction"};
  ladder.compute_roof = tensor_peak;
  std::vector<std::string> skipped;
  add_rungs(
      ladder, options, kVariants, measure_trials(problem, options),
      [&](LadderRow& row, const VariantInfo& info) { count_product(row, info, problem, skipped); });
  const double md = d.m, nd = d.n, kd = d.k;
  const Work fp32_work{problem.flops(), 4.0 * (md * kd + kd * nd + md * nd)};
  ladder.rows.push_back(ceiling_row(bf16_gemm, {problem.flops(), problem.bytes()},
                                    "the graded ceiling: BF16 in, FP32 accumulation", {"-", "-"}));
  ladder.rows.push_back(
      ceiling_row(tf32_gemm, fp32_work, "for scale: FP32 in, TF32 products", {"-", "-"}));
  ladder.rows.push_back(
      ceiling_row(sgemm, fp32_work, "for scale: FP32, no tensor cores", {"-", "-"}));
  ladder.notes = {
      "GFLOP/s = 2 M N K / time; the ceiling is cuBLAS BF16 (cublasGemmEx, BF16 A and B, FP32 "
      "accumulation, tensor cores), same shape and layout, measured in this run. Every timed "
      "product is checked against cuBLAS FP32's product of the same BF16 values, on fresh inputs "
      "for each launch; 'WRONG' = a timed product outside rounding's reach, or work outside the "
      "timed stream (the note says which).",
      "For scale: the FP32 FMA peak of the CUDA cores, the roof of simt_bf16 and SGEMM, is " +
          fixed(fma_peak.value, 1) + " GFLOP/s; the BF16 tensor-core roof is " +
          fixed(tensor_peak.value, 1) + " GFLOP/s (" +
          fixed(tensor_peak.value / fma_peak.value, 1) + " x), both measured in this run.",
      kRooflineNote};
  ladder.notes.insert(ladder.notes.end(), skipped.begin(), skipped.end());
  std::vector<LadderReport> reports{ladder};
  if (extra.sweep == "size")
    reports.push_back(size_sweep(options, ladder, d));
  return reports;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec("12_tensor_cores",
                "Lesson 12: BF16 matrix multiplication on the tensor cores, from FFMA to wgmma.",
                kGemmSizeHelp, kVariants);
  TensorOptions extra;
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--sweep", extra.sweep,
                   "size: also time the rungs (or --variant's) at n x n x n, n = 256 ... 8192, "
                   "each against cuBLAS BF16 at its own n")
        ->check(CLI::IsMember({"size"}));
  };
  spec.validate = [](const DemoOptions& options) {
    return gemm_dims_problem(options.size_or(kDefaultSize), kMaxExtent, kMaxElements);
  };
  // Each rung's block shape is fixed (the threads/block column).
  spec.takes_block = false;
  spec.run = [&](const DemoOptions& options) { return run_demo_tables(options, extra); };
  return run_demo(argc, argv, spec);
}
