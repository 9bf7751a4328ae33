// Lesson 10's demo: the section scans against Kogge-Stone, the whole-input scans against CUB,
// each rung's number of additions (its work) beside its time. See README.md, "How to work on
// this lesson".
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <ranges>
#include <string>
#include <type_traits>
#include <vector>

#include "course/bench.hpp"
#include "course/demo.hpp"
#include "scan.cuh"
#include "scan_bench.hpp"

namespace {

using namespace course;
using namespace course::lesson10;

constexpr const char* kDefaultSize = "2^26";
constexpr std::uint64_t kMaxDemoSize = kMaxCount;

struct ScanOptions {
  std::string type = "float";  ///< --type
  bool exclusive = false;      ///< --exclusive
};

// "1.23 G" style.
std::string count_text(double count) {
  if (count >= 1e9)
    return fixed(count / 1e9, 2) + " G";
  if (count >= 1e6)
    return fixed(count / 1e6, 2) + " M";
  return fixed(count, 0);
}

// Additions of a Kogge-Stone over s elements: sum over the strides 1, 2, ..., s/2 of (s - stride).
double kogge_stone_additions(double s) {
  return s * std::log2(s) - (s - 1);
}

// The additions each rung's algorithm does at n (README, "Work"), counting the padding lanes of
// the last section or tile as the kernels do.
double additions(Variant variant, std::size_t n, int block) {
  const double b = block;
  const double c = kThreePhaseCoarsening;
  const auto sections = [n](double s) { return std::ceil(static_cast<double>(n) / s); };
  switch (variant) {
    case Variant::KoggeStone:
    case Variant::KoggeStoneDoubleBuffer:
      return sections(b) * kogge_stone_additions(b);
    case Variant::BrentKung: {
      const double s = 2 * b;
      return sections(s) * (2 * s - 2 - std::log2(s));  // up-sweep s - 1, down-sweep s - 1 - log2 s
    }
    case Variant::ThreePhase:
      // Sequential sub-scans, a Kogge-Stone over the ends, the add-back.
      return sections(c * b) * (b * (c - 1) + kogge_stone_additions(b) + (b - 1) * c);
    case Variant::Hierarchical: {
      const double s = c * b;
      const double m = sections(s);
      const double own = additions(Variant::ThreePhase, n, block);
      return m <= 1 ? own
                    : own + additions(Variant::Hierarchical, static_cast<std::size_t>(m), block) +
                          (static_cast<double>(n) - s);
    }
    case Variant::SinglePass: {
      // Tiles of 128 threads x 32: per tile, the lanes' sequential scans (128 x 31), four warp
      // scans of 129, every thread's sum of the 4 warp totals (128 x 4), two additions per thread
      // for its prefix, one per item for the result (4096), and one window of look-back (162).
      const double per_tile = 128 * 31 + 4 * 129 + 128 * 4 + 128 * 2 + 4096 + 162;
      return sections(4096) * per_tile;
    }
  }
  return 0;
}

// The bytes each rung must move through DRAM at n, as the roofline counts them (README,
// "Roofline"): every rung reads its input once and writes its output once, 4 bytes an element
// either way; hierarchical also writes each section's total, scans the totals (recursively, in
// place) and then reads and writes its output again to add the offsets back, reading one offset
// per section; single_pass also zeroes the tile counter and one 8-byte status word per tile of
// 4096, and publishes each tile's word once.
double dram_bytes(Variant variant, std::size_t n, int block) {
  constexpr double e = sizeof(float);  // == sizeof(int)
  const double count = static_cast<double>(n);
  switch (variant) {
    case Variant::Hierarchical: {
      const double s = static_cast<double>(kThreePhaseCoarsening) * block;
      const double m = std::ceil(count / s);
      if (m <= 1)
        return 2 * e * count;
      return 2 * e * count + e * m +
             dram_bytes(Variant::Hierarchical, static_cast<std::size_t>(m), block) +
             2 * e * (count - s) + e * (m - 1);
    }
    case Variant::SinglePass: {
      const double tiles = std::ceil(count / 4096);
      return 2 * e * count + 8 * (tiles + 1) + 8 * tiles;
    }
    default:
      return 2 * e * count;
  }
}

// Times the rungs @p segmented (or not) on fresh inputs for every launch, each launch's output
// checked against CUB's scan (course::measure, scan_bench.hpp): the timing the tests grade. A
// rung whose timed output is wrong, or whose work escapes the timed stream, is marked WRONG, with
// the reason in its note.
template <class T>
LadderReport run_table(const DemoOptions& options, const ScanOptions& mine, std::size_t n,
                       bool segmented) {
  const int block = options.block_or(kDefaultBlock);
  const ScanKind kind = mine.exclusive ? ScanKind::Exclusive : ScanKind::Inclusive;
  LadderReport report;
  auto rungs = kVariants | std::views::filter([&](const VariantInfo& info) {
                 return info.segmented == segmented;
               });
  if (!options.wants_any(rungs))
    return report;
  ScanBench<T> bench(n);
  report.title = std::string("Lesson 10, ") +
                 (segmented ? "section scans (each section on its own)" : "whole-input scans") +
                 ": " + std::string(name_of(kind)) + " scan of " + std::to_string(n) + " " +
                 mine.type + "s, block " + std::to_string(block);
  report.metric_unit = "GB/s";
  // Float additions are FP32 FLOP (under the FP32 peak too); int additions are not.
  report.ops_unit = std::is_same_v<T, float> ? "FLOP" : "int add";
  report.baseline = segmented ? "kogge_stone" : "hierarchical";
  report.ceiling = ceilings::cub_inclusive_sum(n);
  report.extra_columns = {"section", "additions", "adds/elem"};
  add_rungs(
      report, options, rungs,
      [&](const VariantInfo& info) {
        return measure(bench.trial(info.variant, kind, block), options.measuring());
      },
      [&](LadderRow& row, const VariantInfo& info) {
        const std::size_t section = section_length(info.variant, block);
        const double adds = additions(info.variant, n, block);
        if (row.ran()) {
          row.metric = gb_per_s(8.0 * static_cast<double>(n), row.timing.median_ms);
          row.work = {adds, dram_bytes(info.variant, n, block)};
        }
        row.extra = {section == kWholeInput ? "all" : std::to_string(section), count_text(adds),
                     fixed(adds / static_cast<double>(n), 2)};
        if (info.variant == Variant::SinglePass && row.note.empty())
          row.note = "tiles of 4096, block 128 (its own shape)";
      });
  report.notes = {
      "GB/s counts each element read once and written once (8 bytes); the ceiling is CUB's "
      "inclusive float scan of the same n, measured in this run. Every timed run scans fresh "
      "inputs (floats in [0, 1), ints in [-31, 31]), checked against CUB's scan of them.",
      "additions: what each rung's algorithm does at this n (README, \"Work\"); a sequential scan "
      "does n - 1 (1.00 per element).",
      "Roofline (" + report.ops_unit +
          "/B, of roof): those additions per byte that must cross DRAM: the input read once and "
          "the output written once (8 bytes per element); hierarchical also writes the section "
          "totals, scans them and reads and writes its output again (about 16 bytes per element), "
          "single_pass also zeroes and publishes one 8-byte status word per tile."};
  if (segmented)
    report.notes.push_back(
        "The section rungs scan each section on their own: the same bytes as a whole scan, not "
        "the same answer. hierarchical turns three_phase into a whole scan.");
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec("10_scan",
                "Lesson 10: the prefix-scan ladder, Kogge-Stone to decoupled look-back, against "
                "CUB, with each rung's number of additions.",
                "elements, e.g. 2^26, 2^28 or 64M (default 2^26, at most 2^30)", kVariants);
  const BlockRule blocks{.power_of_two = true, .min = kMinBlock, .max = kMaxBlock};
  spec.block_help = blocks.help(kDefaultBlock);
  ScanOptions mine;
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--type", mine.type, "element type: int or float (default float)")
        ->check(CLI::IsMember({"int", "float"}));
    app.add_flag("--exclusive", mine.exclusive, "exclusive scans (default inclusive)");
  };
  spec.validate = [&](const DemoOptions& options) -> std::optional<std::string> {
    if (auto problem =
            count_problem("--size", options.size_or(kDefaultSize), kMaxDemoSize, "2^26 or 2^28"))
      return problem;
    return blocks.problem(options.block);
  };
  spec.run = [&](const DemoOptions& options) {
    const std::size_t n = *parse_count(options.size_or(kDefaultSize));
    std::vector<LadderReport> reports;
    for (const bool segmented : {true, false}) {
      LadderReport report = mine.type == "int" ? run_table<int>(options, mine, n, segmented)
                                               : run_table<float>(options, mine, n, segmented);
      if (!report.rows.empty())
        reports.push_back(std::move(report));
    }
    return reports;
  };
  return run_demo(argc, argv, spec);
}
