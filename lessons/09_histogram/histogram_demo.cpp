// Lesson 09's demo: the letter-histogram ladder against CUB on uniform letters and on long runs
// (or on the input named by --input), contiguous against interleaved partitioning, and the
// 256-bin byte histogram against CUB's. See README.md, "How to work on this lesson".
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <ranges>
#include <string>
#include <vector>

#include "course/bench.hpp"
#include "course/data.hpp"
#include "course/demo.hpp"
#include "course/error.hpp"
#include "histogram.cuh"
#include "histogram_bench.hpp"
#include "histogram_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson09;

constexpr const char* kDefaultSize = "2^28";
constexpr std::uint64_t kMaxDemoSize = kMaxCount;
// NVIDIA cuda-samples' histogram256 on an H200, 64 MiB (measured for the course; README).
constexpr double kSamplesHistogram256 = 448.0;

constexpr const char* kRooflineNote =
    "Roofline (byte/B, of roof): bytes of input classified and counted, per byte that must cross "
    "DRAM: the input read once and the counts written once. Counting is integer work: the only "
    "roof is memory, and 'of roof' is the rung's GB/s over the copy's.";

Input input_named(const std::string& name) {
  return value_named(kInputs, name, &InputInfo::input).value_or(Input::UniformLetters);
}

std::string_view what_of(Input input) {
  for (const auto& info : kInputs)
    if (info.input == input)
      return info.what;
  return "?";
}

// What one launch of @p variant must do, as the roofline counts it (README.md, "Roofline"), in
// bytes of input: every byte classified and counted once (integer work, so the table has only the
// memory roof), against the bytes that must cross DRAM: the input read once and the counts written
// once, and for privatized_global each block's private copy of the 7 bins, written and read back
// (its design puts them in global memory on purpose).
Work work_of(Variant variant, std::size_t n, int block) {
  const double counts = sizeof(std::uint32_t) * static_cast<double>(bins_of(variant));
  double bytes = static_cast<double>(n) + counts;
  if (variant == Variant::PrivatizedGlobal) {
    const double blocks = std::ceil(static_cast<double>(n) / block);  // one thread per byte
    bytes += 2.0 * sizeof(std::uint32_t) * kLetterBins * blocks;
  }
  return {static_cast<double>(n), bytes};
}

// Times every wanted rung with @p bins bins on fresh text of kind @p input for every launch, each
// launch's counts checked against CUB's (course::measure, histogram_bench.hpp): the timing the
// tests grade. A rung whose timed counts are wrong, or whose work escapes the timed stream, is
// marked WRONG, with the reason in its note.
LadderReport ladder(const DemoOptions& options, Input input, std::size_t n, int bins) {
  auto rungs =
      kVariants | std::views::filter([&](const VariantInfo& info) { return info.bins == bins; });
  if (!options.wants_any(rungs))
    return {};
  const int block = options.block_or(kDefaultBlock);
  HistogramBench bench(n);
  LadderReport report;
  report.metric_unit = "GB/s";
  report.ops_unit = "byte";
  // The ceiling on the kind of text the rungs are timed on.
  bench.load(input, base_seed(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  report.ceiling = histogram_ceiling(bench.text(), n, bins);
  if (bins == kByteBins) {
    report.title = "Lesson 09, the 256-bin byte histogram: " + std::to_string(n) + " bytes of " +
                   std::string(what_of(input));
    report.baseline = "bytes256";
  } else {
    report.title = "Lesson 09, the letter histogram (7 bins): " + std::to_string(n) + " bytes of " +
                   std::string(what_of(input)) + ", block " + std::to_string(block);
    report.baseline = "atomic_global";
  }
  add_rungs(
      report, options, rungs,
      [&](const VariantInfo& info) {
        return measure(bench.trial(info.variant, input, block), options.measuring());
      },
      [&](LadderRow& row, const VariantInfo& info) {
        if (!row.ran())
          return;
        row.work = work_of(info.variant, n, block);
        row.metric = gb_per_s(static_cast<double>(n), row.timing.median_ms);
      });
  if (bins == kByteBins) {
    report.notes = {
        "GB/s counts each byte read once; the ceiling is CUB's HistogramEven with 256 "
        "bins on the same kind of bytes. Every timed run counts fresh bytes, checked against CUB's "
        "counts. NVIDIA's cuda-samples histogram256 reads " +
            fixed(kSamplesHistogram256, 0) +
            " GB/s on an H200 (64 MiB, lessons/09_histogram/README.md).",
        kRooflineNote};
    return report;
  }
  report.notes = {
      "GB/s counts each byte read once; the ceiling is CUB's HistogramEven, 7 bins of "
      "4 letters from 'a', on the same kind of bytes, in this run. Every timed run counts fresh "
      "bytes, checked against CUB's counts.",
      std::string(kRooflineNote) +
          " privatized_global also writes each block's private copy of the 7 bins to global "
          "memory and reads it back: 56 bytes per block of " +
          std::to_string(block) + " bytes."};
  const LadderRow* contiguous = find_row(report.rows, "coarsened_contiguous");
  const LadderRow* interleaved = find_row(report.rows, "coarsened_interleaved");
  if (contiguous != nullptr && contiguous->status == "ok" && interleaved != nullptr &&
      interleaved->status == "ok")
    report.notes.push_back("Partitioning: coarsened_contiguous takes " +
                           fixed(contiguous->timing.median_ms / interleaved->timing.median_ms, 2) +
                           " x the time of coarsened_interleaved (same threads, same work; "
                           "only which bytes each thread reads differs).");
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec("09_histogram",
                "Lesson 09: the letter-histogram ladder against CUB on uniform letters and long "
                "runs, and the 256-bin byte histogram.",
                "bytes, e.g. 2^28, 64M or 1000003 (default 2^28, at most 2^30)", kVariants);
  const BlockRule blocks{};  // a multiple of 32 in [32, 1024]
  spec.block_help = blocks.help(kDefaultBlock);
  std::string input_name;
  spec.add_options = [&](CLI::App& app) {
    std::vector<std::string> names;
    for (const auto& info : kInputs)
      names.emplace_back(info.name);
    app.add_option("--input", input_name,
                   "the input of every table: uniform, english, runs, one, none or bytes "
                   "(default: letter tables on uniform and runs, the byte table on bytes)")
        ->check(CLI::IsMember(names));
  };
  spec.validate = [&](const DemoOptions& options) -> std::optional<std::string> {
    if (auto problem =
            count_problem("--size", options.size_or(kDefaultSize), kMaxDemoSize, "2^28 or 64M"))
      return problem;
    return blocks.problem(options.block);
  };
  spec.run = [&](const DemoOptions& options) {
    const std::size_t n = *parse_count(options.size_or(kDefaultSize));
    std::vector<Input> letter_inputs{Input::UniformLetters, Input::LongRuns};
    Input byte_input = Input::UniformBytes;
    if (!input_name.empty()) {
      letter_inputs = {input_named(input_name)};
      byte_input = input_named(input_name);
    }
    std::vector<LadderReport> reports;
    for (const Input input : letter_inputs) {
      LadderReport report = ladder(options, input, n, kLetterBins);
      if (!report.rows.empty())
        reports.push_back(std::move(report));
    }
    LadderReport bytes = ladder(options, byte_input, n, kByteBins);
    if (!bytes.rows.empty())
      reports.push_back(std::move(bytes));
    return reports;
  };
  return run_demo(argc, argv, spec);
}
