// Lesson 03's demo: the whole ladder at one shape, as a table (time, GFLOP/s, threads per
// block), the memory lab's Table 3.1 beside this run's naive and tiled rungs, with --sweep tile
// the matmul lab report's experiment: the tiled rung at TILE = 4, 8, 16, 32, and with --sweep
// size the data-parallelism report's study: the exercise and stretch rungs at n x n x n for
// n = 256 ... 4096.
// See README.md, "How to work on this lesson".
#include <CLI/CLI.hpp>
#include <array>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "course/bench.hpp"
#include "course/demo.hpp"
#include "course/gpu.hpp"
#include "matmul.cuh"
#include "matmul_bench.hpp"

namespace {

using namespace course;
using namespace course::lesson03;

constexpr const char* kDefaultSize = "4096";  // the matmul lab report's matrices are 4096 x 4096

// The memory lab's Table 3.1: milliseconds on its GPU of the time, without and with shared
// memory, beside the rungs that stand for those two kernels here.
constexpr PublishedRow kLabTable31[] = {{"naive", "global memory", 2484.06},
                                        {"tiled", "shared memory", 133.47}};

// How the rows' work is counted for the roofline, in every table of this demo.
constexpr const char* kRooflineNote =
    "Roofline: 2 M N K FLOP over 4 (M K + K N + M N) bytes, A and B read once and C written once "
    "(what the L2 serves again is not counted), for every rung.";

// --sweep size: the square sizes n x n x n of the data-parallelism report's study.
constexpr std::array<int, 5> kSizeSweep{256, 512, 1024, 2048, 4096};

// This lesson's own options.
struct MatmulOptions {
  std::string input = "uniform";  ///< --input: uniform or lab-report
  std::string sweep;              ///< --sweep: empty, "tile" or "size"
};

// What a rung's row counts once it ran (timed by the harness's measuring procedure,
// matmul_bench.hpp, the same one that grades it): @p problem's flops() and bytes() are its work on
// the roofline; its block's threads and each thread's outputs are its extra columns.
void count_product(LadderRow& row, const lesson03::bench::Bench& problem, int threads,
                   int outputs) {
  if (!row.ran())
    return;
  row.work = {problem.flops(), problem.bytes()};
  row.metric = gflop_per_s(problem.flops(), row.timing.median_ms);
  row.extra = {std::to_string(threads), std::to_string(outputs)};
}

// The memory lab's Table 3.1 beside this run's naive and tiled rows of @p ladder (copied, not
// timed again); no rows when --variant left both out.
LadderReport table_3_1(const LadderReport& ladder, GemmDims d, const std::string& input_text) {
  LadderReport table = published_beside(
      ladder, kLabTable31,
      "The memory lab's Table 3.1, live: global memory (naive) against shared memory (tiled), "
      "C = A B with M x N x K = " +
          shape_text(d) + ", " + input_text,
      "naive",
      "lab kernel, lab ms, lab speedup: the kernel, time and speedup in the memory lab's "
      "Table 3.1, on a GPU of its day, square matrices of a size it does not give, 16 x 16 "
      "tiles; here: " +
          gpu_info().name + ", " + shape_text(d) + ", TILE = " + std::to_string(kTiledTile) +
          ", the ladder's timings above (not timed again); x naive: this run's speedup.");
  table.notes.push_back(kRooflineNote);
  return table;
}

// The data-parallelism report's study: the rungs graded for speed (or those --variant names) at
// n x n x n for each n of kSizeSweep, on @p input. A size the ladder already timed (@p d square,
// same input) takes the ladder's row instead of a second timing. Each row's share is of cuBLAS
// SGEMM at its own n, and its speedup over tiled at its own n.
LadderReport size_sweep(const DemoOptions& options, const LadderReport& ladder, GemmDims d,
                        lesson03::bench::Input input, const std::string& input_text) {
  std::vector<VariantInfo> rungs;
  for (const auto& info : kVariants)
    if (options.variants.empty() ? info.kind != "given" : options.wants(info.name))
      rungs.push_back(info);
  LadderReport sweep;
  auto rows_at = [&](int n) {
    std::optional<lesson03::bench::Bench> problem;  // made for the first rung timed at n
    auto time_at_n = [&](const VariantInfo& info) {
      if (!problem)
        problem.emplace(n, n, n, input);
      return measured_row(
          info.name, info.kind,
          [&] { return measure(problem->trial(info.variant), options.measuring()); },
          [&](LadderRow& row) { count_product(row, *problem, info.threads, info.outputs); });
    };
    const bool timed_in_ladder = d.m == n && d.n == n && d.k == n;
    std::vector<LadderRow> at_n;
    for (const auto& info : rungs) {
      const LadderRow* timed = timed_in_ladder ? find_row(ladder.rows, info.name) : nullptr;
      at_n.push_back(timed != nullptr ? *timed : time_at_n(info));
      at_n.back().extra = {std::to_string(n)};
    }
    return at_n;
  };
  SweepRows swept = sweep_rows(
      kSizeSweep, "tiled", [](int n) -> const auto& { return ceilings::cublas_sgemm(n, n, n); },
      rows_at);
  sweep.rows = std::move(swept.rows);
  sweep.ceiling = swept.ceiling;
  sweep.title = "Lesson 03, the data-parallelism report's study: C = A B at n x n x n, n = " +
                std::to_string(kSizeSweep.front()) + " ... " + std::to_string(kSizeSweep.back()) +
                ", " + input_text;
  sweep.metric_unit = "GFLOP/s";
  // No row is named so: each row's speedup is over tiled at the same n (sweep_rows).
  sweep.baseline = "tiled at the same n";
  sweep.ceiling.what += "; each row's share is of cuBLAS SGEMM at its own n";
  sweep.extra_columns = {"n"};
  sweep.notes = {"cuBLAS SGEMM at each n, GFLOP/s, measured in this run: " + swept.ceilings + ".",
                 "Rows at the ladder's own shape are the ladder's timings (not timed again).",
                 kRooflineNote};
  return sweep;
}

std::vector<LadderReport> run_demo_tables(const DemoOptions& options, const MatmulOptions& extra) {
  const GemmDims d = *parse_gemm_dims(options.size_or(kDefaultSize), kMaxExtent, kMaxElements);
  const bool lab_report = extra.input == "lab-report";
  const auto input =
      lab_report ? lesson03::bench::Input::LabReport : lesson03::bench::Input::Uniform;
  lesson03::bench::Bench problem(d.m, d.n, d.k, input);
  const auto& ceiling = ceilings::cublas_sgemm(d.m, d.n, d.k);
  const std::string input_text =
      lab_report ? "the matmul lab report's matrices (A negated on every other launch)"
                 : "uniform random matrices";
  const std::vector<std::string> columns{"threads/block", "outputs/thread"};

  std::vector<LadderReport> reports;
  LadderReport ladder("Lesson 03, C = A B with M x N x K = " + shape_text(d) + ", " + input_text,
                      "GFLOP/s", "naive", ceiling);
  ladder.extra_columns = columns;
  add_rungs(ladder, options, kVariants, measure_trials(problem, options),
            [&](LadderRow& row, const VariantInfo& info) {
              count_product(row, problem, info.threads, info.outputs);
            });
  ladder.notes = {
      "GFLOP/s = 2 M N K / time; the ceiling is cuBLAS SGEMM (FP32, no tensor cores), same shape, "
      "measured in this run. Every timed product is checked against cuBLAS's, on fresh inputs for "
      "each launch; 'WRONG' = a timed product outside rounding's reach, or work outside the "
      "timed stream (the note says which).",
      kRooflineNote,
      "tiled runs at TILE = " + std::to_string(kTiledTile) + "; --sweep tile times the others."};
  if (!ladder.rows.empty())
    reports.push_back(ladder);
  LadderReport lab_table = table_3_1(ladder, d, input_text);
  if (!lab_table.rows.empty())
    reports.push_back(lab_table);

  if (extra.sweep == "tile") {
    LadderReport sweep("Lesson 03, the matmul lab report's experiment: tiled<TILE> at " +
                           shape_text(d) + ", " + input_text,
                       "GFLOP/s", "tiled<4>", ceiling);
    sweep.extra_columns = columns;
    const LadderRow* best = nullptr;
    for (const int tile : kTileSweep) {
      sweep.rows.push_back(measured_row(
          "tiled<" + std::to_string(tile) + ">", "exercise",
          [&] { return measure(problem.trial_tiled(tile), options.measuring()); },
          [&](LadderRow& row) { count_product(row, problem, tile * tile, 1); }));
    }
    for (const auto& row : sweep.rows)
      if (row.status == "ok" && (best == nullptr || row.timing.median_ms < best->timing.median_ms))
        best = &row;
    sweep.notes = {best != nullptr
                       ? "best: " + best->rung + ", " + fixed(best->timing.median_ms, 3) + " ms, " +
                             fixed(best->metric, 1) + " GFLOP/s"
                       : "no tile size ran correctly (is the tiled rung written yet?)",
                   kRooflineNote};
    reports.push_back(sweep);
  }
  if (extra.sweep == "size")
    reports.push_back(size_sweep(options, ladder, d, input, input_text));
  return reports;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec("03_matmul", "Lesson 03: the matrix multiplication ladder, from naive to cuBLAS.",
                kGemmSizeHelp, kVariants);
  MatmulOptions extra;
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--input", extra.input,
                   "the matrices: uniform (random in [-1, 1)) or lab-report (the matmul lab "
                   "report's A and B)")
        ->check(CLI::IsMember({"uniform", "lab-report"}));
    app.add_option("--sweep", extra.sweep,
                   "tile: also time tiled<TILE> at TILE = 4, 8, 16, 32; size: also time the "
                   "exercise and stretch rungs (or --variant's) at n x n x n, n = 256 ... 4096")
        ->check(CLI::IsMember({"tile", "size"}));
  };
  spec.validate = [](const DemoOptions& options) {
    return gemm_dims_problem(options.size_or(kDefaultSize), kMaxExtent, kMaxElements);
  };
  // Each rung's block shape is fixed (the threads/block column); --sweep tile varies tiled's.
  spec.takes_block = false;
  spec.run = [&](const DemoOptions& options) { return run_demo_tables(options, extra); };
  return run_demo(argc, argv, spec);
}
