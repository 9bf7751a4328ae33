// Lesson 05's demo: the memory lab's Table 3.3 (reduce1...reduce5) measured live, the whole ladder
// against CUB, and its row reductions with every version's time side by side. Every rung is
// timed by course::measure() on the trials the tests grade (reduction_bench.hpp), so a row marked
// WRONG had a wrong result in a timed launch, and the shares are the graded ones. See README.md,
// "How to work on this lesson".
#include <CLI/CLI.hpp>
#include <cstdio>
#include <ranges>
#include <string>
#include <vector>

#include "course/bench.hpp"
#include "course/demo.hpp"
#include "reduction.cuh"
#include "reduction_bench.hpp"

namespace {

using namespace course;
using namespace course::lesson05;

constexpr const char* kDefaultSize = "2^26";
constexpr std::uint64_t kMaxDemoSize = std::uint64_t{1} << 30;
// The memory lab's Table 3.3: milliseconds on its GPU of the time, for reduce1...reduce5.
constexpr double kLabMs[] = {19.09, 11.91, 10.62, 9.10, 8.67};

struct ReductionOptions {
  std::string type = "float";  ///< --type, of the full ladder
  std::string op = "sum";      ///< --op, of the full ladder
  int rows = kLabSize;         ///< --rows of the row reductions
  int cols = kLabSize;         ///< --cols of the row reductions
};

Op op_named(const std::string& name) {
  return value_named(kOps, name).value_or(Op::Sum);
}

// The unit of a ladder's work on the roofline: an FP32 add is a FLOP, under both roofs; an int
// add and the comparisons of max and min are not FP32 arithmetic, so they are counted in their
// own unit, under the memory roof only.
std::string ops_unit(const std::string& type, Op op) {
  if (op == Op::Sum)
    return type == "float" ? "FLOP" : "int add";
  return type + (op == Op::Max ? " max" : " min");
}

// Measures those of @p rungs that --variant wants, @p op over @p n elements of T, each on the
// trials the tests grade, and appends a row per rung.
template <class T, class Rungs>
void run_rungs(LadderReport& report, const DemoOptions& options, Op op, std::size_t n,
               Rungs&& rungs) {
  const int block = options.block_or(kDefaultBlock);
  ReductionBench<T> bench(op, n);
  add_rungs(
      report, options, rungs,
      [&](const VariantInfo& info) {
        return measure(bench.trial(info.variant, block), options.measuring(1000));
      },
      [&](LadderRow& row, const VariantInfo& info) {
        if (!row.ran())
          return;
        row.work = {bench.ops(), bench.bytes(info.variant, block)};
        row.metric = gb_per_s(static_cast<double>(n) * sizeof(T), row.timing.median_ms);
      });
}

// How the ladders' work is counted, for their notes.
constexpr const char* kLadderRooflineNote =
    "Roofline: n - 1 operations over the bytes that must cross DRAM: the input read once and "
    "the result written once, plus, for the five tree rungs, each pass's block results written "
    "and read again by the next pass.";

LadderReport table_3_3(const DemoOptions& options, std::size_t n) {
  LadderReport report("The memory lab's Table 3.3, live: reduce1...reduce5, int sum of " +
                          std::to_string(n) + " elements",
                      "GB/s", "interleaved_divergent", ceilings::cub_reduce_sum(n));
  report.extra_columns = {"seed", "seed ms", "x previous"};
  report.ops_unit = ops_unit("int", Op::Sum);
  auto lab_rungs = kVariants | std::views::filter([](const VariantInfo& info) {
                     return !info.lab_name.empty();  // reduce1 ... reduce5
                   });
  run_rungs<int>(report, options, Op::Sum, n, lab_rungs);
  double previous = 0.0;
  for (std::size_t r = 0; r < report.rows.size(); ++r) {
    auto& row = report.rows[r];
    const auto variant = *variant_named(kVariants, row.rung);
    const auto index = static_cast<std::size_t>(variant);
    const double ms = row.timing.median_ms;
    row.extra = {std::string(kVariants[index].lab_name), fixed(kLabMs[index], 2),
                 previous > 0 && ms > 0 ? fixed(previous / ms, 2) : "-"};
    if (row.ran())
      previous = ms;
  }
  report.notes = {
      "seed, seed ms: the rung's name and time in the memory lab's Table 3.3, on its GPU of the "
      "time; x previous: step speedup over the row above; x interleaved_divergent: cumulative. "
      "Ints in [-31, 31], a fresh input for every run; they wrap like the GPU's adds, so any "
      "order of the sum gives the same bits.",
      std::string(kLadderRooflineNote) +
          " Int adds are not FP32 arithmetic: this table has the memory roof only."};
  return report;
}

LadderReport full_ladder(const DemoOptions& options, const ReductionOptions& mine, std::size_t n) {
  const Op op = op_named(mine.op);
  LadderReport report("Lesson 05, the reduction ladder: " + mine.op + " of " + std::to_string(n) +
                          " " + mine.type + "s, block " +
                          std::to_string(options.block_or(kDefaultBlock)),
                      "GB/s", "interleaved_divergent", ceilings::cub_reduce_sum(n));
  report.ops_unit = ops_unit(mine.type, op);
  if (mine.type == "int") {
    run_rungs<int>(report, options, op, n, kVariants);
  } else {
    run_rungs<float>(report, options, op, n, kVariants);
  }
  report.notes = {
      "GB/s counts each input element read once; the ceiling is CUB's float sum of "
      "the same n, measured in this run (vectorized does not use --block). Every timed run "
      "reads a fresh input and is checked against CUB's result: WRONG marks a rung that "
      "was wrong in one.",
      std::string(kLadderRooflineNote) +
          (report.ops_unit == "FLOP"
               ? " A float add is one FLOP."
               : " The unit (" + report.ops_unit +
                     ") is not FP32 arithmetic: this table has the memory roof only.")};
  return report;
}

LadderReport row_table(const DemoOptions& options, const ReductionOptions& mine) {
  const int rows = mine.rows;
  const int cols = mine.cols;
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  LadderReport report("The memory lab's row reductions on a " + std::to_string(rows) + " x " +
                          std::to_string(cols) + " float matrix: every version side by side",
                      "GB/s", "global", ceilings::device_copy());
  report.extra_columns = {"global ms", "shared ms", "padded ms", "shared / padded"};
  for (const auto& info : kRowOps) {
    LadderRow row;
    row.rung = info.name;
    row.kind = "lab";
    const double bytes =
        static_cast<double>(count) * sizeof(float) * (info.op == RowOp::DotProduct ? 2 : 1);
    RowBench bench(info.op, rows, cols);
    std::vector<double> ms;
    std::vector<std::string> wrong;
    for (const auto& [version, name] : kRowVersions) {
      const LadderRow one = measured_row(name, "lab", [&, version = version] {
        return measure(bench.trial(version), options.measuring(2000));
      });
      if (!one.ran()) {
        ms.push_back(0.0);
        row.note += std::string(name) + ": " + one.status + "; ";
        continue;
      }
      if (one.status == "WRONG")
        wrong.push_back(std::string(name) + " wrong (" + one.note + ")");
      ms.push_back(one.timing.median_ms);
    }
    // The main columns show the fastest version that ran.
    int best = -1;
    for (int v = 0; v < 3; ++v)
      if (ms[v] > 0 && (best < 0 || ms[v] < ms[best]))
        best = v;
    row.status = best < 0 ? "not run" : wrong.empty() ? "ok" : "WRONG";
    for (const auto& text : wrong)
      row.note += text + "; ";
    if (best >= 0) {
      row.timing = {ms[best], ms[best], ms[best], options.repeat};
      row.work = {bench.flops(), bench.bytes()};
      row.metric = gb_per_s(bytes, ms[best]);
      if (ms[0] > 0)
        row.speedup = ms[0] / ms[best];
      row.note += "fastest: " + std::string(kRowVersions[best].second);
    }
    auto cell = [](double value) { return value > 0 ? fixed(value, 3) : std::string("-"); };
    row.extra = {cell(ms[0]), cell(ms[1]), cell(ms[2]),
                 ms[1] > 0 && ms[2] > 0 ? fixed(ms[1] / ms[2], 2) : "-"};
    report.rows.push_back(row);
  }
  report.notes = {
      "time, GB/s and x global are those of the fastest version; GB/s counts each "
      "matrix element read once (A and B for the dot product). Every timed run reads a "
      "fresh matrix and is checked against the global version's result. Try --rows 32768 "
      "--cols 2048 to see the padding pay.",
      "Roofline: FP32 operations per row of length d, d - 1 adds (plus d multiplies for the dot "
      "product and the sum of squares, one division for a mean), over the matrix (A and B for "
      "the dot product) read once and the output written once; max and min compare, they do "
      "no arithmetic: not on the roofline."};
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec("05_reduction",
                "Lesson 05: the memory lab's Table 3.3 live, the reduction ladder against CUB, and "
                "the memory lab's row reductions.",
                "elements of the ladder, e.g. 2^26, 2^28 or 64M (default 2^26, at most 2^30)",
                kVariants);
  const BlockRule blocks{.power_of_two = true, .min = 64};
  spec.block_help = blocks.help(kDefaultBlock);
  ReductionOptions mine;
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--type", mine.type,
                   "element type of the full ladder: int or float (default float)")
        ->check(CLI::IsMember({"int", "float"}));
    app.add_option("--op", mine.op, "operator of the full ladder: sum, max or min (default sum)")
        ->check(CLI::IsMember({"sum", "max", "min"}));
    app.add_option("--rows", mine.rows,
                   "rows of the row reductions (default 1000, the memory lab's Size)");
    app.add_option("--cols", mine.cols, "columns of the row reductions (default 1000)");
  };
  spec.validate = [&](const DemoOptions& options) -> std::optional<std::string> {
    if (auto problem =
            count_problem("--size", options.size_or(kDefaultSize), kMaxDemoSize, "2^26 or 2^28"))
      return problem;
    if (auto problem = blocks.problem(options.block))
      return problem;
    if (mine.rows < 1 || mine.rows > 65536 || mine.cols < 1 || mine.cols > 65536)
      return "--rows and --cols must be in [1, 65536]";
    return std::nullopt;
  };
  spec.run = [&](const DemoOptions& options) {
    const std::size_t n = *parse_count(options.size_or(kDefaultSize));
    std::vector<LadderReport> reports;
    LadderReport lab_table = table_3_3(options, n);
    if (!lab_table.rows.empty())
      reports.push_back(lab_table);
    LadderReport ladder = full_ladder(options, mine, n);
    if (!ladder.rows.empty())
      reports.push_back(ladder);
    reports.push_back(row_table(options, mine));
    return reports;
  };
  return run_demo(argc, argv, spec);
}
