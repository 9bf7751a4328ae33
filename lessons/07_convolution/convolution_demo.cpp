// Lesson 07's demo: the whole ladder at one size and radius, as a table with the PMPP notes'
// arithmetic intensity (OP/B) beside the bandwidth. See README.md, "How to work on this lesson".
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "convolution.cuh"
#include "convolution_bench.hpp"
#include "course/bench.hpp"
#include "course/data.hpp"
#include "course/demo.hpp"
#include "course/error.hpp"

namespace {

using namespace course;
using namespace course::lesson07;

constexpr const char* kDefaultSize = "8192x8192";

// This lesson's own options.
struct ConvolutionOptions {
  int radius = 2;                ///< --radius
  std::string filter = "gauss";  ///< --filter: box, gauss or random (random is not separable)
};

Filter make_demo_filter(const std::string& name, int radius) {
  if (name == "box")
    return make_box_filter(radius);
  if (name == "gauss")
    return make_gaussian_filter(radius);
  const int side = 2 * radius + 1;
  auto weights =
      uniform_floats(static_cast<std::size_t>(side) * side, base_seed() + 1, 0.05f, 1.0f);
  double sum = 0.0;
  for (const float w : weights)
    sum += w;
  for (float& w : weights)
    w = static_cast<float>(w / sum);
  return make_filter(radius, std::move(weights));
}

// FLOPs per byte each rung's design loads from global memory, counting weights in constant
// memory as free (README.md, "Arithmetic intensity"). The tile shapes are the reference
// solution's: 32 x 32 tiles for the exercises; 64 x 32 outputs per block for separable (both
// passes over the tile with its halo rows); for register_coarsened, a warp's strip of 128
// columns x 8 rows (64 x 32 from r = 4 on), loaded with r rows and r columns more on every side.
double design_op_per_byte(Variant variant, int r) {
  const double side = 2 * r + 1, taps = side * side;
  switch (variant) {
    case Variant::Basic:
      return 2.0 / 8.0;  // a pixel and a weight per multiply-add
    case Variant::ConstantFilter:
      return 2.0 / 4.0;
    case Variant::TiledHalo: {
      const double out = 32 - 2 * r;  // output tile edge, inside a 32 x 32 input tile
      return 2.0 * out * out * taps / (4.0 * 32 * 32);
    }
    case Variant::TiledCachedHalo:
      return 2.0 * taps / 4.0;  // halo reads served by the caches
    case Variant::Separable: {
      const double w = 64, h = 32;
      return 2.0 * side * ((h + 2 * r) * w + h * w) / (4.0 * (h + 2 * r) * (w + 2 * r));
    }
    case Variant::RegisterCoarsened: {
      // Two columns per thread and 32-row strips from r = 4 on.
      const double w = r <= 3 ? 128 : 64, h = r <= 3 ? 8 : 32;
      return 2.0 * w * h * taps / (4.0 * (h + 2 * r) * (w + 2 * r));
    }
  }
  return 0.0;
}

// What one launch must do, as the roofline counts it (README.md, "Roofline"): the FLOP the rung
// really does, 2 (2r + 1)^2 per pixel, or 2 x 2 (2r + 1) for separable's row pass and column pass;
// and the bytes that must cross DRAM, each pixel read once and written once (the filter's at most
// 900 bytes left out). No rung adds DRAM traffic on purpose: every halo is reread from the caches.
Work work_of(Variant variant, const ConvolutionBench& bench) {
  const double side = bench.filter().size();
  const double pixels = static_cast<double>(bench.width()) * bench.height();
  const double flop_per_pixel = variant == Variant::Separable ? 2.0 * 2 * side : 2.0 * side * side;
  return {flop_per_pixel * pixels, bench.bytes()};
}

std::vector<LadderReport> run_ladder(const DemoOptions& options, const ConvolutionOptions& conv) {
  const auto [w, h] = *parse_shape(options.size_or(kDefaultSize));
  const int width = static_cast<int>(w), height = static_cast<int>(h);
  const std::size_t count = static_cast<std::size_t>(width) * height;
  ConvolutionBench bench(width, height, make_demo_filter(conv.filter, conv.radius));
  const Filter& filter = bench.filter();
  const double side = filter.size();
  const double flops = 2.0 * side * side * static_cast<double>(count);
  // The separable rung needs a separable filter: with another, its row says "skipped" and why.
  const std::string not_separable = "the " + conv.filter + " filter is not separable";
  auto skipped = [&](const VariantInfo& info) {
    return info.variant == Variant::Separable && !filter.separable();
  };

  LadderReport report("Lesson 07, 2D convolution of a " + std::to_string(width) + " x " +
                          std::to_string(height) + " float image, radius " +
                          std::to_string(conv.radius) + ", " + conv.filter + " filter",
                      "GB/s", "basic", ceilings::device_copy());
  report.extra_columns = {"GFLOP/s", "OP/B"};
  // The harness times the rung as the speed tests do: fresh images, every timed output checked
  // against the given basic rung, the clocks cross-checked (convolution_bench.hpp).
  add_rungs(
      report, options, kVariants,
      [&](const VariantInfo& info) {
        if (skipped(info))
          throw Unsupported(std::string(info.name), not_separable);
        return measure(bench.trial(info.variant), options.measuring());
      },
      [&](LadderRow& row, const VariantInfo& info) {
        if (skipped(info))
          row.note = not_separable;
        if (!row.ran())
          return;
        row.work = work_of(info.variant, bench);
        if (row.timing.median_ms > 0) {
          row.metric = gb_per_s(bench.bytes(), row.timing.median_ms);
          row.extra = {fixed(gflop_per_s(flops, row.timing.median_ms), 0),
                       fixed(design_op_per_byte(info.variant, conv.radius), 2)};
        }
      });
  report.notes = {
      "GB/s counts each pixel read once and written once (8 bytes); the ceiling is a "
      "device-to-device cudaMemcpy measured in this run. GFLOP/s counts 2 (2r + 1)^2 FLOP per "
      "pixel for every rung, the separable one included (it does fewer).",
      "OP/B: FLOPs per byte each rung's design loads from global memory, weights in constant "
      "memory free (PMPP's accounting; README.md explains each), cached loads included.",
      "Roofline (FLOP/B, of roof): the FLOP each rung really does, 2 (2r + 1)^2 = " +
          fixed(2.0 * side * side, 0) +
          " per pixel (separable: 4 (2r + 1) = " + fixed(4.0 * side, 0) +
          ", a row pass and a column pass), per byte that must cross DRAM: each pixel read once "
          "and written once, 8 bytes, for every rung (the halos come from the caches). Below the "
          "ridge a rung is memory-bound on paper; the line above the table gives both roofs.",
      "Every timed run convolves a fresh image and is checked on the GPU against the given basic "
      "rung, within the README's error bound (WRONG: a timed output was not)."};
  return {report};
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec("07_convolution",
                "Lesson 07: the 2D convolution ladder, from one thread per pixel to the copy "
                "ceiling.",
                "WIDTHxHEIGHT, or N for N x N (default 8192x8192)", kVariants);
  ConvolutionOptions conv;
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--radius", conv.radius, "filter radius r, 1..7 (default 2)");
    app.add_option("--filter", conv.filter,
                   "box, gauss or random (default gauss; random is not separable)")
        ->check(CLI::IsMember({"box", "gauss", "random"}));
  };
  spec.validate = [&](const DemoOptions& options) -> std::optional<std::string> {
    if (!parse_shape(options.size_or(kDefaultSize), kMaxExtent, kMaxPixels))
      return "--size takes WIDTHxHEIGHT with 1 <= WIDTH, HEIGHT <= " + std::to_string(kMaxExtent) +
             " and at most 2^30 pixels, e.g. 8192x8192 or 4099x2053";
    if (conv.radius < 1 || conv.radius > kMaxRadius)
      return "--radius must be in [1, 7]";
    return std::nullopt;
  };
  spec.takes_block = false;  // the block shapes are fixed (32x8, 32x32, 256)
  spec.run = [&](const DemoOptions& options) { return run_ladder(options, conv); };
  return run_demo(argc, argv, spec);
}
