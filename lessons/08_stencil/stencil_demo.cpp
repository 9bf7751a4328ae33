// Lesson 08's demo: the kernel ladder at one grid size as a table (with the seed's OP/B), then
// the Jacobi driver: heat diffusing from a hot wall and a hot ball, its middle plane as a PNG.
// See README.md, "How to work on this lesson".
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "course/buffer.hpp"
#include "course/compare.hpp"
#include "course/data.hpp"
#include "course/demo.hpp"
#include "course/error.hpp"
#include "stencil.cuh"
#include "stencil_cpu.hpp"
#include "stencil_rungs.cuh"

namespace {

using namespace course;
using namespace course::lesson08;

constexpr const char* kDefaultSize = "512";
constexpr Tolerance kTolerance{1e-30, 1e-5};  // as the tests (non-negative data and weights)

// This lesson's own options.
struct StencilOptions {
  std::string jacobi_size = "256";          ///< --jacobi-size
  int sweeps = 500;                         ///< --sweeps
  std::string png = "lesson08_jacobi.png";  ///< --png
};

// "N" (N x N x N) or "NXxNYxNZ", each a count such as 512, 1k or 2^9, within the launcher's
// limits; nothing if malformed.
std::optional<Grid> parse_grid(const std::string& text) {
  const auto parts = parse_shape3(text);
  if (!parts)
    return std::nullopt;
  for (const auto part : *parts)
    if (part < 1 || part > static_cast<std::uint64_t>(kMaxExtent))
      return std::nullopt;
  const auto [nx, ny, nz] = *parts;
  return Grid{static_cast<int>(nx), static_cast<int>(ny), static_cast<int>(nz)};
}

std::string shape_text(Grid g) {
  return std::to_string(g.nx) + " x " + std::to_string(g.ny) + " x " + std::to_string(g.nz);
}

// The seed's arithmetic intensity: 13 FLOP per output (7 multiplies, 6 adds) over the bytes each
// rung loads from global memory per output, for whole tiles (stores not counted, as in the
// seed; counting them adds 4 bytes to every denominator).
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
    case Variant::Tuned:  // 128 x 8 per plane + 2 halo rows + 2 halo points per row, 6 + 2
                          // planes for 6
      return kFlop / 4.0 * (128.0 * 8) / (128.0 * 10 + 2 * 8) * 6.0 / 8.0;
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
      return "32x8 threads, 4 points each, 6 planes";
  }
  return "";
}

LadderReport kernel_ladder(const DemoOptions& options) {
  if (std::none_of(kVariants.begin(), kVariants.end(),
                   [&](const VariantInfo& info) { return options.wants(std::string(info.name)); }))
    return {};  // only the Jacobi run was asked for
  const Grid g = *parse_grid(options.size.empty() ? kDefaultSize : options.size);
  const std::size_t count = g.count();
  const auto input = uniform_floats(count, base_seed(), 0.0f, 1.0f);
  const Coefficients c = heat_coefficients(0.125f);
  const auto expected = stencil_reference(input, g, c);
  DeviceBuffer<float> d_in{std::span<const float>(input)};
  DeviceBuffer<float> d_out(count);

  LadderReport report;
  report.title = "Lesson 08, 7-point stencil, one sweep of a " + shape_text(g) + " float grid";
  report.metric_unit = "GB/s";
  report.baseline = "basic";
  report.ceiling = ceilings::device_copy();
  report.extra_columns = {"OP/B"};
  for (const auto& info : kVariants) {
    if (!options.wants(std::string(info.name)))
      continue;
    LadderRow row;
    row.rung = info.name;
    row.kind = info.kind;
    auto run = [&, variant = info.variant](cudaStream_t stream) {
      stencil(variant, d_in.data(), d_out.data(), g, c, stream);
    };
    d_out.poison();
    row.status = try_rung([&] { run(nullptr); });
    if (row.status == "ok") {
      const Extent extent{std::size_t(g.nx), std::size_t(g.ny), std::size_t(g.nz)};
      if (!compare_close(d_out.to_host(), expected, kTolerance, extent).ok)
        row.status = "WRONG";
      row.timing = time_on_gpu(run, {.warmup = 2, .repeats = options.repeat});
      row.metric = gb_per_s(8.0 * count, row.timing.median_ms);
      row.extra = {fixed(op_per_byte(info.variant), 2)};
      row.note = threads_per_block(info.variant);
    }
    report.rows.push_back(row);
  }
  report.notes = {
      "GB/s counts every point read once and written once (8 bytes); the ceiling is a "
      "device-to-device cudaMemcpy measured in this run.",
      "OP/B: 13 FLOP per point over the bytes the rung loads from global memory per point, for "
      "whole tiles (the seed's count; the ceiling of any rung is 13/4 = 3.25)."};
  return report;
}

// Times @p sweeps sweeps of @p kernel from the initial field (after a one-sweep warm-up) and
// returns the milliseconds and the buffer holding the result.
std::pair<double, float*> timed_jacobi(DeviceBuffer<float>& d_a, DeviceBuffer<float>& d_b,
                                       std::span<const float> initial, Grid g,
                                       const Coefficients& c, int sweeps, Variant kernel) {
  d_a.upload(initial);
  (void)jacobi(d_a.data(), d_b.data(), g, c, 1, kernel);
  d_a.upload(initial);
  EventTimer timer;
  timer.start();
  float* result = jacobi(d_a.data(), d_b.data(), g, c, sweeps, kernel);
  return {timer.stop(), result};
}

LadderReport jacobi_table(const StencilOptions& options) {
  const Grid g = *parse_grid(options.jacobi_size);
  const std::size_t count = g.count();
  const auto initial = heat_initial_field(g);
  const Coefficients c = heat_coefficients(0.125f);
  DeviceBuffer<float> d_a(count), d_b(count);

  // The fastest kernel rung that is written: the last of the ladder that runs.
  Variant best = Variant::Basic;
  for (auto info = kVariants.rbegin(); info != kVariants.rend(); ++info)
    if (try_rung([&] { stencil(info->variant, d_a.data(), d_b.data(), g, c); }) == "ok") {
      best = info->variant;
      break;
    }

  LadderReport report;
  report.title = "Lesson 08, Jacobi heat diffusion: " + std::to_string(options.sweeps) +
                 " sweeps of a " + shape_text(g) + " grid, alpha = 1/8";
  report.metric_unit = "GB/s";
  report.baseline = "basic";
  report.ceiling = ceilings::device_copy();
  report.extra_columns = {"us / sweep"};
  double basic_ms = 0.0;
  for (const Variant kernel : {Variant::Basic, best}) {
    if (kernel == best && best == Variant::Basic && !report.rows.empty())
      break;
    LadderRow row;
    row.rung = std::string(kJacobiName);
    row.kind = "stretch";
    std::pair<double, float*> run{};
    row.status =
        try_rung([&] { run = timed_jacobi(d_a, d_b, initial, g, c, options.sweeps, kernel); });
    if (row.status == "ok") {
      std::vector<float> field(count);
      CUDA_CHECK(
          cudaMemcpy(field.data(), run.second, count * sizeof(float), cudaMemcpyDeviceToHost));
      // With weights >= 0 that sum to 1, no value leaves the range of the initial field, [0, 1].
      const bool bounded = std::all_of(field.begin(), field.end(),
                                       [](float v) { return v >= 0.0f && v <= 1.0f + 1e-6f; });
      if (!bounded)
        row.status = "WRONG";
      row.timing = {run.first, run.first, run.first, 1};
      row.metric = gb_per_s(8.0 * count * options.sweeps, std::max(run.first, 1e-6));
      row.extra = {fixed(1000.0 * run.first / std::max(options.sweeps, 1), 1)};
      row.note = "kernel " + std::string(name_of(kernel));
      if (kernel == Variant::Basic)
        basic_ms = run.first;
      if (kernel == best) {
        if (basic_ms > 0 && run.first > 0)
          row.speedup = basic_ms / run.first;
        save_slice_png(options.png, field, g, g.nz / 2, 0.0f, 1.0f);
        report.notes.push_back("the middle plane (z = " + std::to_string(g.nz / 2) + ") after " +
                               std::to_string(options.sweeps) + " sweeps: " + options.png);
      }
    }
    report.rows.push_back(row);
    if (row.status != "ok")
      break;  // the driver is not written yet (or is wrong)
  }
  report.notes.insert(report.notes.begin(),
                      "heat from the wall x = 0 (held at 1) and a ball of radius n/6 (1 at the "
                      "start); GB/s = 8 bytes per point per sweep; blue 0, white 0.5, red 1.");
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec;
  spec.lesson = "08_stencil";
  spec.description =
      "Lesson 08: the 3D 7-point stencil ladder, and heat diffusion with the Jacobi driver.";
  spec.size_help = "NXxNYxNZ, or N for N x N x N; counts such as 512, 1k or 2^9 (default 512)";
  for (const auto& info : kVariants)
    spec.variant_names.emplace_back(info.name);
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
    if (!parse_grid(options.size.empty() ? kDefaultSize : options.size))
      return "--size takes NXxNYxNZ or N with 1 <= each <= " + limit + ", e.g. 512 or 257x3x5";
    if (!parse_grid(stencil_options.jacobi_size))
      return "--jacobi-size takes NXxNYxNZ or N with 1 <= each <= " + limit + ", e.g. 256";
    if (stencil_options.sweeps < 0 || stencil_options.sweeps > 1000000)
      return "--sweeps must be in [0, 1000000]";
    if (stencil_options.png.empty())
      return "--png needs a file name";
    if (options.block != 0)
      return "--block: this lesson's block shapes are fixed (see the table's note column)";
    return std::nullopt;
  };
  spec.run = [&](const DemoOptions& options) {
    std::vector<LadderReport> reports;
    LadderReport kernels = kernel_ladder(options);
    if (!kernels.rows.empty())
      reports.push_back(kernels);
    if (options.wants(std::string(kJacobiName)))
      reports.push_back(jacobi_table(stencil_options));
    return reports;
  };
  return run_demo(argc, argv, spec);
}
