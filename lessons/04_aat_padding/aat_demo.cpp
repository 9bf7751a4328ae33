// Lesson 04's demo: the whole ladder at one shape, as a table, beside cuBLAS SGEMM computing
// A·Aᵀ and cuBLAS SSYRK. See README.md, "Run the demo".
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "aat.cuh"
#include "course/buffer.hpp"
#include "course/ceilings.hpp"
#include "course/compare.hpp"
#include "course/data.hpp"
#include "course/demo.hpp"
#include "course/error.hpp"
#include "course/product_check.hpp"

namespace {

using namespace course;
using namespace course::lesson04;

constexpr const char* kDefaultSize = "4096x4096";


// True when C is bit-for-bit equal to its transpose.
bool symmetric(const std::vector<float>& c, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (std::memcmp(&c[static_cast<std::size_t>(i) * n + j],
                      &c[static_cast<std::size_t>(j) * n + i], sizeof(float)) != 0)
        return false;
  return true;
}

std::vector<LadderReport> run_ladder(const DemoOptions& options) {
  const auto [rows, cols] = *parse_shape(options.size.empty() ? kDefaultSize : options.size);
  const int n = static_cast<int>(rows);
  const int k = static_cast<int>(cols);
  const std::uint64_t seed = base_seed();
  const auto input = uniform_floats(static_cast<std::size_t>(n) * k, seed);
  DeviceBuffer<float> d_a{std::span<const float>(input)};
  DeviceBuffer<float> d_c(static_cast<std::size_t>(n) * n);
  const double flops = 2.0 * n * static_cast<double>(n) * k;
  const auto& sgemm = ceilings::cublas_sgemm_aat(n, k);
  const auto& ssyrk = ceilings::cublas_ssyrk(n, k);

  LadderReport report;
  report.title =
      "Lesson 04, C = A A^T for A of " + std::to_string(n) + " x " + std::to_string(k) + " floats";
  report.metric_unit = "GFLOP/s";
  report.baseline = "tiled_unpadded";
  report.ceiling = sgemm;
  report.extra_columns = {"of SSYRK", "threads"};
  for (const auto& info : kVariants) {
    if (!options.wants(std::string(info.name)))
      continue;
    LadderRow row;
    row.rung = info.name;
    row.kind = info.kind;
    auto run = [&, variant = info.variant](cudaStream_t stream) {
      aat(variant, d_a.data(), d_c.data(), n, k, stream);
    };
    d_c.poison();
    row.status = try_rung([&] { run(nullptr); });
    if (row.status == "ok") {
      const auto checked = product::check(d_a.data(), nullptr, d_c.data(), n, n, k,
                                          product::Second::ATransposed, seed);
      if (!checked.ok || !symmetric(d_c.to_host(), n))
        row.status = "WRONG";
      row.timing = time_on_gpu(run, {.warmup = 2, .repeats = options.repeat});
      row.metric = gflop_per_s(flops, row.timing.median_ms);
      row.extra = {fixed(100.0 * row.metric / ssyrk.value, 1) + " %", std::to_string(info.threads)};
    }
    report.rows.push_back(row);
  }
  // The two cuBLAS ceilings as rows of their own, timed in this run (FP32, no tensor cores).
  for (const auto* ceiling : {&sgemm, &ssyrk}) {
    LadderRow row;
    row.rung = ceiling->name;
    row.kind = "ceiling";
    row.status = "ok";
    row.timing = ceiling->timing;
    row.metric = ceiling->value;
    row.extra = {fixed(100.0 * ceiling->value / ssyrk.value, 1) + " %", "-"};
    row.note = ceiling == &ssyrk ? "one triangle, counted as 2 n^2 k" : "both triangles";
    report.rows.push_back(row);
  }
  report.notes = {
      "GFLOP/s counts 2 n^2 k for every rung, whether it computes both triangles or one and "
      "mirrors it, so that rungs and ceilings compare by time.",
      "cuBLAS SGEMM A*A^T " + fixed(sgemm.value, 1) + " GFLOP/s (" +
          fixed(sgemm.timing.median_ms, 3) + " ms); cuBLAS SSYRK " + fixed(ssyrk.value, 1) +
          " GFLOP/s-equivalent (" + fixed(ssyrk.timing.median_ms, 3) +
          " ms); both FP32 without tensor cores, measured in this run."};
  return {report};
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec;
  spec.lesson = "04_aat_padding";
  spec.description = "Lesson 04: C = A A^T, from bank-conflicted tiles to beyond cuBLAS SGEMM.";
  spec.size_help = "NxK for A of N rows and K columns, or N for N x N (default 4096x4096)";
  for (const auto& info : kVariants)
    spec.variant_names.emplace_back(info.name);
  spec.validate = [](const DemoOptions& options) -> std::optional<std::string> {
    const auto shape = parse_shape(options.size.empty() ? kDefaultSize : options.size);
    if (!shape || shape->first < 1 || shape->second < 1 ||
        shape->first > static_cast<std::uint64_t>(kMaxN) ||
        shape->second > static_cast<std::uint64_t>(INT32_MAX) / shape->first)
      return "--size takes NxK with 1 <= N <= " + std::to_string(kMaxN) +
             ", K >= 1 and N * K < 2^31, e.g. 4096x4096 or 1000x257";
    if (options.block != 0)
      return "--block: this lesson's block shapes are fixed (32x32, 256)";
    return std::nullopt;
  };
  spec.run = run_ladder;
  return run_demo(argc, argv, spec);
}
