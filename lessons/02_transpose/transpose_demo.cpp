// Lesson 02's demo: the whole ladder at one size, as a table. See README.md, "Run the demo".
#include <string>
#include <vector>

#include "course/bench.hpp"
#include "course/demo.hpp"
#include "transpose.cuh"
#include "transpose_bench.hpp"

namespace {

using namespace course;
using namespace course::lesson02;

constexpr const char* kDefaultSize = "8192x8192";

std::vector<LadderReport> run_ladder(const DemoOptions& options) {
  const auto [rows, cols] = *parse_shape(options.size_or(kDefaultSize));
  // The tests' procedure (transpose_bench.hpp): fresh inputs before every launch, every timed
  // output checked, the harness's stream and clock. The GB/s printed is the GB/s graded.
  Bench bench(static_cast<int>(rows), static_cast<int>(cols));

  LadderReport report("Lesson 02, transpose of a " + std::to_string(rows) + " x " +
                          std::to_string(cols) + " float matrix",
                      "GB/s", "naive", ceilings::device_copy());
  // A transpose does no arithmetic: its roofline counts elements moved, under the memory roof.
  report.ops_unit = "element";
  report.notes = {
      "GB/s counts every element read once and written once; the ceiling is a "
      "device-to-device cudaMemcpy measured in this run. Every timed launch ran on "
      "fresh inputs and was checked bit-exact.",
      "Roofline: one element moved per 8 bytes (read once, written once) for every rung: "
      "0.125 element/B, under the memory roof only."};
  add_rungs(
      report, options, kVariants, measure_trials(bench, options),
      [&](LadderRow& row, const VariantInfo&) {
        if (!row.ran())
          return;
        row.work = {static_cast<double>(bench.count()), bench.bytes()};
        row.metric = gb_per_s(bench.bytes(), row.timing.median_ms);
      },
      FailureNote::UnderTable);
  return {report};
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec("02_transpose", "Lesson 02: the transpose ladder, from naive to the copy ceiling.",
                "ROWSxCOLS, or N for N x N (default 8192x8192)", kVariants);
  spec.validate = [](const DemoOptions& options) -> std::optional<std::string> {
    if (!parse_shape(options.size_or(kDefaultSize), kMaxExtent, kMaxElements))
      return "--size takes ROWSxCOLS with 1 <= ROWS, COLS <= " + std::to_string(kMaxExtent) +
             " and ROWS * COLS <= 2^28, e.g. 8192x8192 or 4097x1023";
    return std::nullopt;
  };
  spec.takes_block = false;  // the tile and block shapes are fixed
  spec.run = run_ladder;
  return run_demo(argc, argv, spec);
}
