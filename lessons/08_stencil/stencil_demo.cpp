// Lesson 08's demo: the kernel ladder at one grid size as a table (with the PMPP notes' OP/B), then
// the Jacobi driver: heat diffusing from a hot wall and a hot ball, its middle plane as a PNG.
// See README.md, "How to work on this lesson".
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "course/demo.hpp"
#include "stencil.cuh"
#include "stencil_bench.hpp"
#include "stencil_rungs.cuh"

namespace {

using namespace course;
using namespace course::lesson08;

constexpr const char* kDefaultSize = "512";

// This lesson's own options.
struct StencilOptions {
  std::string jacobi_size = "256";          ///< --jacobi-size
  int sweeps = 500;                         ///< --sweeps
  std::string png = "lesson08_jacobi.png";  ///< --png
};

// "N" (N x N x N) or "NXxNYxNZ", each a count such as 512, 1k or 2^9, within the launcher's
// limits; nothing if malformed.
std::optional<Grid> parse_grid(const std::string& text) {
  const auto parts = parse_shape3(text, kMaxExtent, kMaxPoints);
  if (!parts)
    return std::nullopt;
  const auto [nx, ny, nz] = *parts;
  return Grid{static_cast<int>(nx), static_cast<int>(ny), static_cast<int>(nz)};
}

std::string shape_text(Grid g) {
  return std::to_string(g.nx) + " x " + std::to_string(g.ny) + " x " + std::to_string(g.nz);
}

// The PMPP notes' arithmetic intensity: 13 FLOP per output (7 multiplies, 6 adds) over the bytes
// each rung loads from global memory per output, for whole tiles (stores not counted, as in the
// notes; counting them adds 4 bytes to every denominator).
double op_per_byte(Variant variant) {
  constexpr double kFlop = 13.0;
  switch (variant) {
    case Variant::Basic:  // seven loads per output
      return kFlop / (7 * 4.0);
    case Variant::SharedTiled:  // an 8^3 tile loaded for 6^3 outputs
      return kFlop / 4.0 * std::pow(double(kOutTile) / kInTile, 3);
    case Variant::CoarsenedZ:  // 32^2 per plane for 30^2 outputs, 32 + 2 planes for 32
    case Variant::RegisterTiled:
      return kFlop / 4.0 * std::pow(double(kPlaneOut) / kPlaneIn, 2) * kPlanesPerBlock /
             (kPlanesPerBlock + 2);
    case Variant::Tuned:  // two TMA boxes of 132 x 10 per plane for 256 x 8 outputs, 8 + 2
                          // planes for 8 (the cp.async fallback of other GPUs: 1.93)
      return kFlop / 4.0 * (256.0 * 8) / (264.0 * 10) * 8.0 / 10.0;
  }
  return 0.0;
}

std::string threads_per_block(Variant variant) {
  switch (variant) {
    case Variant::Basic:
      return "32x4x4 threads";
    case Variant::SharedTiled:
      return "8x8x8 threads";
    case Variant::CoarsenedZ:
    case Variant::RegisterTiled:
      return "32x32 threads, 32 planes";
    case Variant::Tuned:
      return "32x2x8 threads, 4 points each, 8 planes";
  }
  return "";
}

// The FP32 FLOP of one sweep of @p g, as the roofline counts them (README.md, "Roofline"): 13 per
// interior point (7 multiplies and 6 adds, or one multiply and 6 multiply-adds); a boundary point
// is only copied.
double sweep_flop(Grid g) {
  const auto inner = [](int extent) { return extent > 2 ? extent - 2.0 : 0.0; };
  return 13.0 * inner(g.nx) * inner(g.ny) * inner(g.nz);
}

LadderReport kernel_ladder(const DemoOptions& options) {
  if (!options.wants_any(kVariants))
    return {};  // only the Jacobi run was asked for
  const Grid g = *parse_grid(options.size_or(kDefaultSize));
  StencilBench bench(g, heat_coefficients(0.125f));

  LadderReport report("Lesson 08, 7-point stencil, one sweep of a " + shape_text(g) + " float grid",
                      "GB/s", "basic", ceilings::device_copy());
  report.extra_columns = {"OP/B"};
  // The harness times the rung as the speed tests do: fresh fields, every timed output checked
  // against the given basic rung, the clocks cross-checked (stencil_bench.hpp).
  add_rungs(
      report, options, kVariants, measure_trials(bench, options),
      [&](LadderRow& row, const VariantInfo& info) {
        if (!row.ran())
          return;
        if (row.status == "ok")
          row.note = threads_per_block(info.variant);
        row.metric = gb_per_s(bench.bytes(), row.timing.median_ms);
        row.work = {sweep_flop(g), bench.bytes()};  // every rung: the grid read once, written once
        row.extra = {fixed(op_per_byte(info.variant), 2)};
      });
  report.notes = {
      "GB/s counts every point read once and written once (8 bytes); the ceiling is a "
      "device-to-device cudaMemcpy measured in this run.",
      "OP/B: 13 FLOP per point over the bytes the rung loads from global memory per point, for "
      "whole tiles (the PMPP notes' count; the ceiling of any rung is 13/4 = 3.25).",
      "Roofline (FLOP/B, of roof): 13 FLOP per interior point per byte that must cross DRAM, the "
      "grid read once and written once (8 bytes per point) for every rung: about 13/8 = 1.6 "
      "FLOP/B, far below the ridge, so every rung is memory-bound and its 'of roof' is its share "
      "of the copy.",
      "Every timed sweep reads a fresh field and is checked on the GPU against the given basic "
      "rung (WRONG: a timed output was not)."};
  return report;
}

LadderReport jacobi_table(const DemoOptions& options, const StencilOptions& stencil_options) {
  const Grid g = *parse_grid(stencil_options.jacobi_size);
  const int sweeps = stencil_options.sweeps;
  JacobiBench bench(g, heat_coefficients(0.125f), sweeps);
  // A run is many sweeps long: a few timed runs are enough for a stable median.
  MeasureOptions measuring = options.measuring();
  measuring.warmup = 1;
  measuring.repeats = std::min(options.repeat, 5);

  // The fastest kernel rung that is written: the last of the ladder that runs.
  Variant best = Variant::Basic;
  {
    const Grid probe{4, 4, 4};
    DeviceBuffer<float> d_a(probe.count()), d_b(probe.count());
    d_a.fill_bytes(0);
    for (auto info = kVariants.rbegin(); info != kVariants.rend(); ++info)
      if (try_rung([&] {
            stencil(info->variant, d_a.data(), d_b.data(), probe, heat_coefficients(0.125f));
          }) == "ok") {
        best = info->variant;
        break;
      }
  }

  LadderReport report("Lesson 08, Jacobi heat diffusion: " + std::to_string(sweeps) +
                          " sweeps of a " + shape_text(g) + " grid, alpha = 1/8",
                      "GB/s", "basic", ceilings::device_copy());
  report.extra_columns = {"us / sweep"};
  double basic_ms = 0.0;
  for (const Variant kernel : {Variant::Basic, best}) {
    if (kernel == best && best == Variant::Basic && !report.rows.empty())
      break;
    const LadderRow run = measured_row(
        kJacobiName, "stretch", [&] { return measure(bench.trial(kernel), measuring); },
        [&](LadderRow& row) {
          if (!row.ran())
            return;
          if (row.status == "ok")
            row.note = "kernel " + std::string(name_of(kernel));
          row.metric = gb_per_s(bench.bytes(), row.timing.median_ms);
          // The whole timed sequence: the copy of the initial field (8 bytes a point), then the
          // sweeps.
          row.work = {sweeps * sweep_flop(g), bench.bytes() + 2.0 * sizeof(float) * g.count()};
          const double ms = row.timing.median_ms;
          row.extra = {fixed(1000.0 * ms / std::max(sweeps, 1), 1)};
          if (kernel == Variant::Basic)
            basic_ms = ms;
          if (kernel == best) {
            if (basic_ms > 0 && ms > 0)
              row.speedup = basic_ms / ms;
            // The picture: the heat field after the same sweeps (untimed).
            const auto field = bench.run(heat_initial_field(g), kernel);
            save_slice_png(stencil_options.png, field, g, g.nz / 2, 0.0f, 1.0f);
            report.notes.push_back("the middle plane (z = " + std::to_string(g.nz / 2) +
                                   ") after " + std::to_string(sweeps) +
                                   " sweeps: " + stencil_options.png);
          }
        });
    report.rows.push_back(run);
    if (run.status != "ok")
      break;  // the driver is not written yet (or is wrong)
  }
  report.notes.insert(report.notes.begin(),
                      "heat from the wall x = 0 (held at 1) and a ball of radius n/6 (1 at the "
                      "start) for the picture; the timed runs (median of " +
                          std::to_string(measuring.repeats) +
                          ") start from fresh uniform [0, 1) fields, each checked against as many "
                          "sweeps of the given basic rung, and include one copy of the initial "
                          "field; GB/s = 8 bytes per point per sweep; blue 0, white 0.5, red 1.");
  report.notes.insert(report.notes.begin() + 1,
                      "Roofline (FLOP/B, of roof): the whole timed run, 13 FLOP per interior point "
                      "per sweep, per byte that must cross DRAM: 8 bytes per point per sweep (each "
                      "sweep reads one buffer and writes the other) plus 8 per point for the copy "
                      "of the initial field.");
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec("08_stencil",
                "Lesson 08: the 3D 7-point stencil ladder, and heat diffusion with the Jacobi "
                "driver.",
                "NXxNYxNZ, or N for N x N x N; counts such as 512, 1k or 2^9 (default 512)",
                kVariants);
  spec.variant_names.emplace_back(kJacobiName);
  StencilOptions stencil_options;
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--jacobi-size", stencil_options.jacobi_size,
                   "grid of the Jacobi run, NXxNYxNZ or N (default 256)");
    app.add_option("--sweeps", stencil_options.sweeps, "sweeps of the Jacobi run (default 500)");
    app.add_option("--png", stencil_options.png,
                   "where the Jacobi run's middle plane goes (default lesson08_jacobi.png)");
  };
  spec.validate = [&](const DemoOptions& options) -> std::optional<std::string> {
    const std::string limit = std::to_string(kMaxExtent);
    if (!parse_grid(options.size_or(kDefaultSize)))
      return "--size takes NXxNYxNZ or N with 1 <= each <= " + limit +
             " and at most 2^30 points, e.g. 512 or 257x3x5";
    if (!parse_grid(stencil_options.jacobi_size))
      return "--jacobi-size takes NXxNYxNZ or N with 1 <= each <= " + limit +
             " and at most 2^30 points, e.g. 256";
    if (stencil_options.sweeps < 0 || stencil_options.sweeps > 1000000)
      return "--sweeps must be in [0, 1000000]";
    if (stencil_options.png.empty())
      return "--png needs a file name";
    return std::nullopt;
  };
  spec.takes_block = false;  // the block shapes are fixed (see the table's note column)
  spec.run = [&](const DemoOptions& options) {
    std::vector<LadderReport> reports;
    LadderReport kernels = kernel_ladder(options);
    if (!kernels.rows.empty())
      reports.push_back(kernels);
    if (options.wants(kJacobiName))
      reports.push_back(jacobi_table(options, stencil_options));
    return reports;
  };
  return run_demo(argc, argv, spec);
}
