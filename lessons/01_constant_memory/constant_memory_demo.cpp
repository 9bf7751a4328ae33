// Lesson 01's demo: the table kernel and the polynomial ladder, as tables. See README.md.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "constant_memory.cuh"
#include "constant_memory_bench.hpp"
#include "course/bench.hpp"
#include "course/data.hpp"
#include "course/demo.hpp"

namespace {

using namespace course;
using namespace course::lesson01;

constexpr const char* kDefaultSize = "2^26";
// This lesson's own options.
struct PolyOptions {
  int degree = 63;  ///< --degree
  int sets = 32;    ///< --sets, for the divergent rung
};

std::vector<LadderReport> run_ladder(const DemoOptions& options, const PolyOptions& poly_options) {
  const std::size_t n = *parse_count(options.size_or(kDefaultSize));
  const int block = options.block_or(kDefaultBlock);
  const int degree = poly_options.degree, sets = poly_options.sets;
  Bench bench(BenchConfig{.n = n, .degree = degree, .sets = sets, .block = block});
  // The tests' procedure (constant_memory_bench.hpp): fresh inputs before every launch, every
  // timed output checked, the harness's stream and clock. A wrong timed output marks the row
  // WRONG, with a note under the table.
  const auto measure_rung = measure_trials(bench, options);
  std::vector<LadderReport> reports;

  if (options.wants("table")) {
    LadderReport table("Lesson 01, table y = sin(sqrt(i * step)), " + std::to_string(n) +
                           " floats, block " + std::to_string(block),
                       "GB/s", "table", ceilings::device_copy());
    table.notes = {
        "GB/s counts the bytes written (nothing is read); the ceiling counts a copy's "
        "bytes read + written. Each timed launch had a new step and was checked.",
        "Roofline: 3 FLOP per element (the multiply i * step, the square root and the sine, "
        "each counted as one operation) over the 4 bytes written: 0.75 FLOP/B."};
    // The first rung, table.
    add_rungs(
        table, options, std::span(kVariants).first(1), measure_rung,
        [&](LadderRow& row, const VariantInfo&) {
          if (!row.ran())
            return;
          row.work = {bench.table_flops(), bench.table_bytes()};
          row.metric = gb_per_s(bench.table_bytes(), row.timing.median_ms);
        },
        FailureNote::UnderTable);
    reports.push_back(table);
  }

  LadderReport poly("Lesson 01, polynomial of degree " + std::to_string(degree) + " (Horner) at " +
                        std::to_string(n) + " points, block " + std::to_string(block),
                    "GFLOP/s", "poly_global", ceilings::cublas_sgemm(4096, 4096, 4096));
  poly.notes = {
      "GFLOP/s counts one multiply and one add per coefficient and point (2 * degree * n); "
      "the ceiling is cuBLAS SGEMM 4096^3 in FP32 without tensor cores, measured in this run. "
      "Each timed launch had new points and coefficients and was checked.",
      "Roofline: the same 2 * degree * n FLOP over the bytes that must cross DRAM: each point "
      "read and each result written once (8 n), plus the coefficients once (4 (degree + 1) "
      "per set)."};
  // poly_global, poly_constant and poly_constant_divergent.
  add_rungs(
      poly, options, std::span(kVariants).subspan(1, 3), measure_rung,
      [&](LadderRow& row, const VariantInfo& info) {
        const bool divergent = info.variant == Variant::PolyConstantDivergent;
        if (row.ran()) {
          row.work = {bench.poly_flops(), bench.poly_bytes(divergent ? sets : 1)};
          row.metric = gflop_per_s(bench.poly_flops(), row.timing.median_ms);
        }
        if (divergent)
          row.note = std::to_string(sets) + " sets";
      },
      FailureNote::UnderTable);
  if (options.wants("readback")) {
    // Not timed: the constant buffer read back after an upload of the demo's coefficients.
    const auto coefficients =
        uniform_floats(static_cast<std::size_t>(sets) * (degree + 1), derive_seed(base_seed(), 1));
    std::vector<float> back(coefficients.size());
    std::string status = try_rung([&] {
      upload_coefficients(coefficients.data(), degree, sets);
      download_coefficients(back.data(), static_cast<int>(back.size()));
    });
    if (status == "ok" && back != coefficients)
      status = "WRONG";
    poly.notes.push_back(
        "readback: " + std::to_string(back.size()) +
        " coefficients read back from constant memory with cudaMemcpyFromSymbol: " + status);
  }
  if (!poly.rows.empty() || options.wants("readback"))
    reports.push_back(poly);
  return reports;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec(
      "01_constant_memory",
      "Lesson 01: a first kernel, and the broadcast and serialization of constant memory.",
      "elements n, e.g. 67108864, 2^26 or 64M (default 2^26)", kVariants);
  const BlockRule blocks{};  // a multiple of 32 in [32, 1024]
  spec.block_help = blocks.help(kDefaultBlock);
  PolyOptions poly_options;
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--degree", poly_options.degree, "polynomial degree, 0..63 (default 63)");
    app.add_option("--sets", poly_options.sets,
                   "coefficient sets of the divergent rung (default 32)");
  };
  spec.validate = [&](const DemoOptions& options) -> std::optional<std::string> {
    if (auto problem = count_problem("--size", options.size_or(kDefaultSize), kMaxElements, "2^26"))
      return problem;
    if (auto problem = blocks.problem(options.block))
      return problem;
    if (poly_options.degree < 0 || poly_options.degree > kMaxDegree)
      return "--degree must be in [0, 63]";
    if (poly_options.sets < 1 || poly_options.sets * (poly_options.degree + 1) > kMaxCoefficients)
      return "--sets must be at least 1, with sets * (degree + 1) <= 4096";
    return std::nullopt;
  };
  spec.run = [&](const DemoOptions& options) { return run_ladder(options, poly_options); };
  return run_demo(argc, argv, spec);
}
