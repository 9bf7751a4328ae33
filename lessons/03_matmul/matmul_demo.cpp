// Lesson 03's demo: the whole ladder at one shape, as a table (time, GFLOP/s, threads per
// block), and with --sweep tile seed 003's experiment: the tiled rung at TILE = 4, 8, 16, 32.
// See README.md, "How to work on this lesson".
#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "course/buffer.hpp"
#include "course/data.hpp"
#include "course/demo.hpp"
#include "course/error.hpp"
#include "course/product_check.hpp"
#include "matmul.cuh"

namespace {

using namespace course;
using namespace course::lesson03;

constexpr const char* kDefaultSize = "4096";  // seed 003's matrices are 4096 x 4096

struct Dims {
  int m;
  int n;
  int k;
};

// This lesson's own options.
struct MatmulOptions {
  std::string input = "uniform";  ///< --input: uniform or seed003
  std::string sweep;              ///< --sweep: empty or "tile"
};

// "N" (N x N x N) or "MxNxK", each a count such as 4096, 4k or 2^12; nothing if malformed or
// outside the launcher's limits.
std::optional<Dims> parse_dims(const std::string& text) {
  const auto parts = parse_shape3(text);
  if (!parts)
    return std::nullopt;
  for (const auto part : *parts)
    if (part < 1 || part > static_cast<std::uint64_t>(kMaxExtent))
      return std::nullopt;
  const auto [m, n, k] = *parts;
  const auto limit = static_cast<std::uint64_t>(kMaxElements);
  if (m * k > limit || k * n > limit || m * n > limit)
    return std::nullopt;
  return Dims{static_cast<int>(m), static_cast<int>(n), static_cast<int>(k)};
}


// The operands on the device, and a way to time one launcher against them.
struct Problem {
  Dims dims;
  DeviceBuffer<float> a, b, c;
  std::uint64_t seed;

  double flops() const { return 2.0 * dims.m * dims.n * dims.k; }

  // Runs @p launch once (checked: "ok", "WRONG", "not implemented", an error) and, if it ran,
  // times it.
  LadderRow run(const std::string& rung, std::string_view kind, int threads, int outputs,
                const std::function<void(cudaStream_t)>& launch, int repeat) {
    LadderRow row;
    row.rung = rung;
    row.kind = kind;
    c.poison();
    row.status = try_rung([&] {
      launch(nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
    });
    if (row.status != "ok")
      return row;
    const auto check = product::check(a.data(), b.data(), c.data(), dims.m, dims.n, dims.k,
                                      product::Second::B, seed);
    if (!check.ok)
      row.status = "WRONG";
    row.timing = time_on_gpu(launch, {.warmup = 2, .repeats = repeat});
    row.metric = gflop_per_s(flops(), row.timing.median_ms);
    row.extra = {std::to_string(threads), std::to_string(outputs)};
    return row;
  }
};

std::string shape_text(Dims d) {
  return std::to_string(d.m) + " x " + std::to_string(d.n) + " x " + std::to_string(d.k);
}

std::vector<LadderReport> run_demo_tables(const DemoOptions& options, const MatmulOptions& extra) {
  const Dims d = *parse_dims(options.size.empty() ? kDefaultSize : options.size);
  const std::size_t a_count = std::size_t(d.m) * d.k, b_count = std::size_t(d.k) * d.n;
  const bool seed003 = extra.input == "seed003";
  const std::uint64_t seed = base_seed();
  const auto a =
      seed003 ? seed003_matrix_a(d.m, d.k) : uniform_floats(a_count, derive_seed(seed, 0));
  const auto b =
      seed003 ? seed003_matrix_b(d.k, d.n) : uniform_floats(b_count, derive_seed(seed, 1));
  Problem problem{d, DeviceBuffer<float>{std::span<const float>(a)},
                  DeviceBuffer<float>{std::span<const float>(b)},
                  DeviceBuffer<float>(std::size_t(d.m) * d.n), seed};
  const auto& ceiling = ceilings::cublas_sgemm(d.m, d.n, d.k);
  const std::string input_text = seed003 ? "seed 003's matrices" : "uniform random matrices";
  const std::vector<std::string> columns{"threads/block", "outputs/thread"};

  std::vector<LadderReport> reports;
  LadderReport ladder;
  ladder.title = "Lesson 03, C = A B with M x N x K = " + shape_text(d) + ", " + input_text;
  ladder.metric_unit = "GFLOP/s";
  ladder.baseline = "naive";
  ladder.ceiling = ceiling;
  ladder.extra_columns = columns;
  for (const auto& info : kVariants) {
    if (!options.wants(std::string(info.name)))
      continue;
    ladder.rows.push_back(problem.run(
        std::string(info.name), info.kind, info.threads, info.outputs,
        [&, v = info.variant](cudaStream_t s) {
          multiply(v, problem.a.data(), problem.b.data(), problem.c.data(), d.m, d.n, d.k, s);
        },
        options.repeat));
  }
  ladder.notes = {
      "GFLOP/s = 2 M N K / time; the ceiling is cuBLAS SGEMM (FP32, no tensor cores), same shape, "
      "measured in this run. 'WRONG' = outside the error bound of a float dot product "
      "(course::product::check).",
      "tiled runs at TILE = " + std::to_string(kTiledTile) + "; --sweep tile times the others."};
  if (!ladder.rows.empty())
    reports.push_back(ladder);

  if (extra.sweep == "tile") {
    LadderReport sweep;
    sweep.title =
        "Lesson 03, seed 003's experiment: tiled<TILE> at " + shape_text(d) + ", " + input_text;
    sweep.metric_unit = "GFLOP/s";
    sweep.baseline = "tiled<4>";
    sweep.ceiling = ceiling;
    sweep.extra_columns = columns;
    const LadderRow* best = nullptr;
    for (const int tile : kTileSweep) {
      sweep.rows.push_back(problem.run(
          "tiled<" + std::to_string(tile) + ">", "exercise", tile * tile, 1,
          [&, tile](cudaStream_t s) {
            multiply_tiled(tile, problem.a.data(), problem.b.data(), problem.c.data(), d.m, d.n,
                           d.k, s);
          },
          options.repeat));
    }
    for (const auto& row : sweep.rows)
      if (row.status == "ok" && (best == nullptr || row.timing.median_ms < best->timing.median_ms))
        best = &row;
    sweep.notes = {best != nullptr
                       ? "best: " + best->rung + ", " + fixed(best->timing.median_ms, 3) + " ms, " +
                             fixed(best->metric, 1) + " GFLOP/s"
                       : "no tile size ran correctly (is the tiled rung written yet?)"};
    reports.push_back(sweep);
  }
  return reports;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec;
  spec.lesson = "03_matmul";
  spec.description = "Lesson 03: the matrix multiplication ladder, from naive to cuBLAS.";
  spec.size_help = "MxNxK, or N for N x N x N; counts such as 1000, 4k or 2^12 (default 4096)";
  for (const auto& info : kVariants)
    spec.variant_names.emplace_back(info.name);
  MatmulOptions extra;
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--input", extra.input, "the matrices: uniform (random in [-1, 1)) or seed003")
        ->check(CLI::IsMember({"uniform", "seed003"}));
    app.add_option("--sweep", extra.sweep, "tile: also time tiled<TILE> at TILE = 4, 8, 16, 32")
        ->check(CLI::IsMember({"tile"}));
  };
  spec.validate = [](const DemoOptions& options) -> std::optional<std::string> {
    if (!parse_dims(options.size.empty() ? kDefaultSize : options.size))
      return "--size takes MxNxK or N, with 1 <= M, N, K <= " + std::to_string(kMaxExtent) +
             " and at most 2^31 - 1 elements in A, B and C, e.g. 4096 or 1000x1000x1000";
    if (options.block != 0)
      return "--block: each rung's block shape is fixed (see the threads/block column); "
             "use --sweep tile to vary the tiled rung's";
    return std::nullopt;
  };
  spec.run = [&](const DemoOptions& options) { return run_demo_tables(options, extra); };
  return run_demo(argc, argv, spec);
}
