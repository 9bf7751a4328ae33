// Lesson 01's demo: the table kernel and the polynomial ladder, as tables. See README.md.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>
#include <vector>

#include "constant_memory.cuh"
#include "constant_memory_cpu.hpp"
#include "course/buffer.hpp"
#include "course/compare.hpp"
#include "course/data.hpp"
#include "course/demo.hpp"
#include "course/error.hpp"

namespace {

using namespace course;
using namespace course::lesson01;

constexpr const char* kDefaultSize = "2^26";
// This lesson's own options.
struct PolyOptions {
  int degree = 63;  ///< --degree
  int sets = 32;    ///< --sets, for the divergent rung
};

LadderRow start_row(Variant variant) {
  LadderRow row;
  row.rung = name_of(variant);
  for (const auto& info : kVariants)
    if (info.variant == variant) row.kind = info.kind;
  return row;
}

std::vector<LadderReport> run_ladder(const DemoOptions& options, const PolyOptions& poly_options) {
  const std::size_t n = *parse_count(options.size.empty() ? kDefaultSize : options.size);
  const int block = options.block != 0 ? options.block : kDefaultBlock;
  const int degree = poly_options.degree, sets = poly_options.sets;
  const std::uint64_t seed = base_seed();
  DeviceBuffer<float> d_y(n);
  std::vector<LadderReport> reports;

  if (options.wants("table")) {
    LadderReport table;
    table.title = "Lesson 01, table y = sin(sqrt(i * step)), " + std::to_string(n) +
                  " floats, block " + std::to_string(block);
    table.metric_unit = "GB/s";
    table.baseline = "table";
    table.ceiling = ceilings::device_copy();
    const float step = 1000.0f / static_cast<float>(n);
    LadderRow row = start_row(Variant::Table);
    auto run = [&](cudaStream_t s) { sin_sqrt_table(d_y.data(), n, step, s, block); };
    row.status = try_rung([&] { run(nullptr); });
    if (row.status == "ok") {
      const auto check = compare_close(d_y.to_host(), sin_sqrt_reference(n, step), {1e-5, 1e-5}, {n});
      if (!check.ok) row.status = "WRONG";
      row.timing = time_on_gpu(run, {.warmup = 2, .repeats = options.repeat});
      row.metric = gb_per_s(4.0 * n, row.timing.median_ms);
    }
    table.rows.push_back(row);
    table.notes = {"GB/s counts the bytes written (nothing is read); the ceiling counts a copy's "
                   "bytes read + written."};
    reports.push_back(table);
  }

  const auto x = uniform_floats(n, seed);
  const auto coefficients =
      uniform_floats(static_cast<std::size_t>(sets) * (degree + 1), derive_seed(seed, 1));
  DeviceBuffer<float> d_x{std::span<const float>(x)}, d_c{std::span<const float>(coefficients)};
  const auto expected = poly_reference(coefficients, degree, 1, x);
  const auto expected_sets = poly_reference(coefficients, degree, sets, x);
  const Tolerance tolerance{1e-5 * coefficient_bound(coefficients, degree, sets), 1e-5};
  const std::string uploaded = try_rung([&] { upload_coefficients(coefficients.data(), degree, sets); });

  LadderReport poly;
  poly.title = "Lesson 01, polynomial of degree " + std::to_string(degree) + " (Horner) at " +
               std::to_string(n) + " points, block " + std::to_string(block);
  poly.metric_unit = "GFLOP/s";
  poly.baseline = "poly_global";
  poly.ceiling = ceilings::cublas_sgemm(4096, 4096, 4096);
  struct Rung {
    Variant variant;
    std::function<void(cudaStream_t)> run;
    const std::vector<double>* expected;
  };
  const std::vector<Rung> rungs{
      {Variant::PolyGlobal, [&](cudaStream_t s) { poly_global(d_c.data(), degree, d_x.data(), d_y.data(), n, s, block); }, &expected},
      {Variant::PolyConstant, [&](cudaStream_t s) { poly_constant(degree, d_x.data(), d_y.data(), n, s, block); }, &expected},
      {Variant::PolyConstantDivergent, [&](cudaStream_t s) { poly_constant_divergent(degree, sets, d_x.data(), d_y.data(), n, s, block); }, &expected_sets},
  };
  for (const auto& rung : rungs) {
    LadderRow row = start_row(rung.variant);
    if (!options.wants(row.rung)) continue;
    d_y.poison();
    row.status = rung.variant != Variant::PolyGlobal && uploaded != "ok" ? uploaded : try_rung([&] { rung.run(nullptr); });
    if (row.status == "ok") {
      if (!compare_close(d_y.to_host(), *rung.expected, tolerance, {n}).ok) row.status = "WRONG";
      row.timing = time_on_gpu(rung.run, {.warmup = 2, .repeats = options.repeat});
      row.metric = gflop_per_s(2.0 * degree * static_cast<double>(n), row.timing.median_ms);
    }
    if (rung.variant == Variant::PolyConstantDivergent) row.note = std::to_string(sets) + " sets";
    poly.rows.push_back(row);
  }
  poly.notes = {"GFLOP/s counts one multiply and one add per coefficient and point (2 * degree * n); "
                "the ceiling is cuBLAS SGEMM 4096^3 in FP32 without tensor cores, measured in this run."};
  if (options.wants("readback")) {
    std::vector<float> back(static_cast<std::size_t>(sets) * (degree + 1));
    std::string status = uploaded != "ok" ? uploaded : try_rung([&] { download_coefficients(back.data(), static_cast<int>(back.size())); });
    if (status == "ok" && back != coefficients) status = "WRONG";
    poly.notes.push_back("readback: " + std::to_string(back.size()) +
                         " coefficients read back from constant memory with cudaMemcpyFromSymbol: " + status);
  }
  if (!poly.rows.empty() || options.wants("readback")) reports.push_back(poly);
  return reports;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec;
  spec.lesson = "01_constant_memory";
  spec.description = "Lesson 01: a first kernel, and the broadcast and serialization of constant memory.";
  spec.size_help = "elements n, e.g. 67108864, 2^26 or 64M (default 2^26)";
  for (const auto& info : kVariants) spec.variant_names.emplace_back(info.name);
  PolyOptions poly_options;
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--degree", poly_options.degree, "polynomial degree, 0..63 (default 63)");
    app.add_option("--sets", poly_options.sets, "coefficient sets of the divergent rung (default 32)");
  };
  spec.validate = [&](const DemoOptions& options) -> std::optional<std::string> {
    const auto n = parse_count(options.size.empty() ? kDefaultSize : options.size);
    if (!n || *n < 1 || *n > kMaxElements) return "--size takes a count in [1, 2^31 - 1], e.g. 2^26";
    if (options.block != 0 && (options.block % 32 != 0 || options.block < 32))
      return "--block must be a multiple of 32 in [32, 1024]";
    if (poly_options.degree < 0 || poly_options.degree > kMaxDegree) return "--degree must be in [0, 63]";
    if (poly_options.sets < 1 || poly_options.sets * (poly_options.degree + 1) > kMaxCoefficients)
      return "--sets must be at least 1, with sets * (degree + 1) <= 4096";
    return std::nullopt;
  };
  spec.run = [&](const DemoOptions& options) { return run_ladder(options, poly_options); };
  return run_demo(argc, argv, spec);
}
