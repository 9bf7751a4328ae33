// Lesson 00's demo: each rung of the lab run and checked at one length, as a table that says which
// are right. See README.md, "How to work on this lab".
#include <string>
#include <vector>

#include "course/bench.hpp"
#include "course/demo.hpp"
#include "debugging.cuh"
#include "debugging_bench.hpp"

namespace {

using namespace course;
using namespace course::lesson00;

std::size_t length_of(const DemoOptions& options) {
  return options.size.empty() ? kBenchLength : static_cast<std::size_t>(*parse_count(options.size));
}

std::vector<LadderReport> run_lab(const DemoOptions& options) {
  const std::size_t n = length_of(options);
  // The tests' checks (debugging_bench.hpp): fresh inputs before every launch, shared memory
  // filled with NaN, every output compared with a trusted reference, the harness's stream.
  Bench bench(n);

  LadderReport report("Lesson 00, the debugging lab on " + std::to_string(n) + " floats", "GB/s",
                      "reverse", ceilings::device_copy());
  report.ops_unit = "element";  // no arithmetic worth counting: each rung under the memory roof
  report.notes = {
      "status: ok when every launch's output matched the trusted reference bit for bit, WRONG "
      "at the first that did not (why: below). GB/s counts the input read once and the output "
      "written once; reverse moves every element once, as a copy does, so it is the yardstick."};
  add_rungs(
      report, options, kVariants, measure_trials(bench, options),
      [&](LadderRow& row, const VariantInfo& info) {
        row.work = {static_cast<double>(n), bench.bytes(info.variant)};
        if (row.ran())
          row.metric = gb_per_s(bench.bytes(info.variant), row.timing.median_ms);
      },
      FailureNote::UnderTable);
  return {report};
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec("00_debugging", "Lesson 00: the debugging lab's four kernels, run and checked.",
                "N, the array length, e.g. 1000, 2^24 or 16M (default 2^24 + 1 = 16777217)",
                kVariants);
  spec.validate = [](const DemoOptions& options) -> std::optional<std::string> {
    if (options.size.empty())
      return std::nullopt;
    const auto n = parse_count(options.size);
    if (!n || *n < 1 || *n > kMaxLength)
      return "--size takes the array length N, 1 <= N <= 2^28, e.g. 1000, 2^24 or 16M";
    return std::nullopt;
  };
  spec.takes_block = false;  // every kernel of the lab runs blocks of kBlock threads
  spec.run = run_lab;
  return run_demo(argc, argv, spec);
}
