// Lesson 03's demo: the whole ladder at one shape, as a table (time, GFLOP/s, threads per
// block), and with --sweep tile the matmul lab report's experiment: the tiled rung at TILE = 4, 8,
// 16, 32.
// See README.md, "How to work on this lesson".
#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "course/bench.hpp"
#include "course/data.hpp"
#include "course/demo.hpp"
#include "matmul.cuh"
#include "matmul_bench.hpp"

namespace {

using namespace course;
using namespace course::lesson03;

constexpr const char* kDefaultSize = "4096";  // the matmul lab report's matrices are 4096 x 4096

struct Dims {
  int m;
  int n;
  int k;
};

// This lesson's own options.
struct MatmulOptions {
  std::string input = "uniform";  ///< --input: uniform or lab-report
  std::string sweep;              ///< --sweep: empty or "tile"
};

// "N" (N x N x N) or "MxNxK", each a count such as 4096, 4k or 2^12; nothing if malformed or
// outside the launcher's limits.
std::optional<Dims> parse_dims(const std::string& text) {
  const auto parts = parse_shape3(text);
  if (!parts)
    return std::nullopt;
  for (const auto part : *parts)
    if (part < 1 || part > static_cast<std::uint64_t>(kMaxExtent))
      return std::nullopt;
  const auto [m, n, k] = *parts;
  const auto limit = static_cast<std::uint64_t>(kMaxElements);
  if (m * k > limit || k * n > limit || m * n > limit)
    return std::nullopt;
  return Dims{static_cast<int>(m), static_cast<int>(n), static_cast<int>(k)};
}

// One rung's row: timed by the harness's measuring procedure (matmul_bench.hpp), the same one
// that grades it. "WRONG" when a timed product was wrong or work escaped the timed stream, with
// the reason in the note; "not implemented" or an error's first words when it did not run.
LadderRow run_row(const std::string& rung, std::string_view kind, int threads, int outputs,
                  const Trial& trial, const MeasureOptions& measure_options, double flops) {
  LadderRow row;
  row.rung = rung;
  row.kind = kind;
  Measurement measured;
  row.status = try_rung([&] { measured = measure(trial, measure_options); });
  if (row.status != "ok")
    return row;
  if (!measured.sound()) {
    row.status = "WRONG";
    row.note = measured.failure;
  }
  row.timing = measured.timing;
  if (row.timing.median_ms > 0)
    row.metric = gflop_per_s(flops, row.timing.median_ms);
  row.extra = {std::to_string(threads), std::to_string(outputs)};
  return row;
}

std::string shape_text(Dims d) {
  return std::to_string(d.m) + " x " + std::to_string(d.n) + " x " + std::to_string(d.k);
}

std::vector<LadderReport> run_demo_tables(const DemoOptions& options, const MatmulOptions& extra) {
  const Dims d = *parse_dims(options.size.empty() ? kDefaultSize : options.size);
  const bool lab_report = extra.input == "lab-report";
  lesson03::bench::Bench problem(
      d.m, d.n, d.k,
      lab_report ? lesson03::bench::Input::LabReport : lesson03::bench::Input::Uniform);
  const MeasureOptions measure_options{
      .warmup = 2, .repeats = options.repeat, .flush_l2 = true, .seed = base_seed()};
  const auto& ceiling = ceilings::cublas_sgemm(d.m, d.n, d.k);
  const std::string input_text =
      lab_report ? "the matmul lab report's matrices (A negated on every other launch)"
                 : "uniform random matrices";
  const std::vector<std::string> columns{"threads/block", "outputs/thread"};

  std::vector<LadderReport> reports;
  LadderReport ladder;
  ladder.title = "Lesson 03, C = A B with M x N x K = " + shape_text(d) + ", " + input_text;
  ladder.metric_unit = "GFLOP/s";
  ladder.baseline = "naive";
  ladder.ceiling = ceiling;
  ladder.extra_columns = columns;
  for (const auto& info : kVariants) {
    if (!options.wants(std::string(info.name)))
      continue;
    ladder.rows.push_back(run_row(std::string(info.name), info.kind, info.threads, info.outputs,
                                  problem.trial(info.variant), measure_options, problem.flops()));
  }
  ladder.notes = {
      "GFLOP/s = 2 M N K / time; the ceiling is cuBLAS SGEMM (FP32, no tensor cores), same shape, "
      "measured in this run. Every timed product is checked against cuBLAS's, on fresh inputs for "
      "each launch; 'WRONG' = a timed product outside rounding's reach, or work outside the "
      "timed stream (the note says which).",
      "tiled runs at TILE = " + std::to_string(kTiledTile) + "; --sweep tile times the others."};
  if (!ladder.rows.empty())
    reports.push_back(ladder);

  if (extra.sweep == "tile") {
    LadderReport sweep;
    sweep.title = "Lesson 03, the matmul lab report's experiment: tiled<TILE> at " + shape_text(d) +
                  ", " + input_text;
    sweep.metric_unit = "GFLOP/s";
    sweep.baseline = "tiled<4>";
    sweep.ceiling = ceiling;
    sweep.extra_columns = columns;
    const LadderRow* best = nullptr;
    for (const int tile : kTileSweep) {
      sweep.rows.push_back(run_row("tiled<" + std::to_string(tile) + ">", "exercise", tile * tile,
                                   1, problem.trial_tiled(tile), measure_options, problem.flops()));
    }
    for (const auto& row : sweep.rows)
      if (row.status == "ok" && (best == nullptr || row.timing.median_ms < best->timing.median_ms))
        best = &row;
    sweep.notes = {best != nullptr
                       ? "best: " + best->rung + ", " + fixed(best->timing.median_ms, 3) + " ms, " +
                             fixed(best->metric, 1) + " GFLOP/s"
                       : "no tile size ran correctly (is the tiled rung written yet?)"};
    reports.push_back(sweep);
  }
  return reports;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec;
  spec.lesson = "03_matmul";
  spec.description = "Lesson 03: the matrix multiplication ladder, from naive to cuBLAS.";
  spec.size_help = "MxNxK, or N for N x N x N; counts such as 1000, 4k or 2^12 (default 4096)";
  for (const auto& info : kVariants)
    spec.variant_names.emplace_back(info.name);
  MatmulOptions extra;
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--input", extra.input,
                   "the matrices: uniform (random in [-1, 1)) or lab-report (the matmul lab "
                   "report's A and B)")
        ->check(CLI::IsMember({"uniform", "lab-report"}));
    app.add_option("--sweep", extra.sweep, "tile: also time tiled<TILE> at TILE = 4, 8, 16, 32")
        ->check(CLI::IsMember({"tile"}));
  };
  spec.validate = [](const DemoOptions& options) -> std::optional<std::string> {
    if (!parse_dims(options.size.empty() ? kDefaultSize : options.size))
      return "--size takes MxNxK or N, with 1 <= M, N, K <= " + std::to_string(kMaxExtent) +
             " and at most 2^26 (8192 x 8192) elements in each of A, B and C, e.g. 4096 or "
             "1000x1000x1000";
    return std::nullopt;
  };
  // Each rung's block shape is fixed (the threads/block column); --sweep tile varies tiled's.
  spec.takes_block = false;
  spec.run = [&](const DemoOptions& options) { return run_demo_tables(options, extra); };
  return run_demo(argc, argv, spec);
}
