// Lesson 04's demo: the whole ladder at one shape, as a table, beside cuBLAS SGEMM computing
// A·Aᵀ and cuBLAS SSYRK, and the memory lab's Table 3.2 beside this run's tiled_unpadded and
// tiled_padded rungs. See README.md, "Run the demo".
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "aat.cuh"
#include "aat_bench.hpp"
#include "course/bench.hpp"
#include "course/ceilings.hpp"
#include "course/demo.hpp"
#include "course/gpu.hpp"

namespace {

using namespace course;
using namespace course::lesson04;

constexpr const char* kDefaultSize = "4096x4096";

// The memory lab's Table 3.2: milliseconds on its GPU of the time, without and with the padding
// column, beside the rungs that stand for those two kernels here.
constexpr PublishedRow kLabTable32[] = {{"tiled_unpadded", "unpadded", 551.73},
                                        {"tiled_padded", "padded", 120.59}};

// True when C is bit-for-bit equal to its transpose.
bool symmetric(const std::vector<float>& c, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (std::memcmp(&c[static_cast<std::size_t>(i) * n + j],
                      &c[static_cast<std::size_t>(j) * n + i], sizeof(float)) != 0)
        return false;
  return true;
}

// The memory lab's Table 3.2 beside this run's tiled_unpadded and tiled_padded rows of @p ladder
// (copied, not timed again); no rows when --variant left both out.
LadderReport table_3_2(const LadderReport& ladder, int n, int k) {
  const std::string a = std::to_string(n) + " x " + std::to_string(k);
  LadderReport table = published_beside(
      ladder, kLabTable32,
      "The memory lab's Table 3.2, live: unpadded against padded shared tiles, C = A A^T for A "
      "of " +
          a + " floats",
      "tiled_unpadded",
      "lab kernel, lab ms, lab speedup: the kernel, time and speedup in the memory lab's "
      "Table 3.2, on a GPU of its day (16 banks, half-warps), 16 x 16 tiles padded to "
      "[16][17], a size it does not give; here: " +
          gpu_info().name + ", A of " + a +
          ", 32 x 32 tiles padded to [32][33], 32 banks, the ladder's timings above (not timed "
          "again); x tiled_unpadded: this run's speedup.");
  table.notes.push_back(
      "Roofline: 2 n^2 k FLOP over 4 (n k + n^2) bytes, A read once and C written once.");
  return table;
}

std::vector<LadderReport> run_ladder(const DemoOptions& options) {
  const auto [rows, cols] = *parse_shape(options.size_or(kDefaultSize));
  const int n = static_cast<int>(rows);
  const int k = static_cast<int>(cols);
  lesson04::bench::Bench problem(n, k);
  const auto& sgemm = ceilings::cublas_sgemm_aat(n, k);
  const auto& ssyrk = ceilings::cublas_ssyrk(n, k);

  LadderReport report(
      "Lesson 04, C = A A^T for A of " + std::to_string(n) + " x " + std::to_string(k) + " floats",
      "GFLOP/s", "tiled_unpadded", sgemm);
  report.extra_columns = {"of SSYRK", "threads"};
  // Timed by the harness's measuring procedure (aat_bench.hpp), the same one that grades it:
  // "WRONG" when a timed C was wrong or work escaped the timed stream (the note says which), or
  // when the last C is not bit-for-bit symmetric.
  add_rungs(
      report, options, kVariants, measure_trials(problem, options),
      [&](LadderRow& row, const VariantInfo& info) {
        if (!row.ran())
          return;
        if (row.status == "ok" && !symmetric(problem.c().to_host(), n)) {
          row.status = "WRONG";
          row.note = "C is not bit-for-bit symmetric";
        }
        row.work = {problem.flops_done(info.variant), problem.bytes()};
        if (row.timing.median_ms > 0)  // the share of SSYRK below needs a time, as the metric does
          row.metric = gflop_per_s(problem.flops(), row.timing.median_ms);
        row.extra = {fixed(100.0 * row.metric / ssyrk.value, 1) + " %",
                     std::to_string(info.threads)};
      });
  // The two cuBLAS ceilings as rows of their own, timed in this run (FP32, no tensor cores), on
  // the roofline by what they compute: SGEMM both triangles, as the full rungs; SSYRK one
  // triangle (n (n + 1) k FLOP), which it alone writes (A read once, n (n + 1) / 2 floats of C).
  const double nd = n, kd = k;
  const Work sgemm_work{problem.flops(), problem.bytes()};
  const Work ssyrk_work{nd * (nd + 1) * kd, 4 * nd * kd + 2 * nd * (nd + 1)};
  for (const auto* ceiling : {&sgemm, &ssyrk})
    report.rows.push_back(
        ceiling_row(*ceiling, ceiling == &ssyrk ? ssyrk_work : sgemm_work,
                    ceiling == &ssyrk ? "one triangle, counted as 2 n^2 k" : "both triangles",
                    {fixed(100.0 * ceiling->value / ssyrk.value, 1) + " %", "-"}));
  report.notes = {
      "GFLOP/s counts 2 n^2 k for every rung, whether it computes both triangles or one and "
      "mirrors it, so that rungs and ceilings compare by time.",
      "Roofline: each rung by what it computes, 2 n^2 k FLOP for both triangles, n (n + 1) k "
      "for one (symmetric, register_tiled, SSYRK), over the bytes that must cross DRAM: A read "
      "once and C written once, 4 (n k + n^2) (SSYRK writes one triangle: 4 n k + 2 n (n + 1)).",
      "Every timed C (both triangles) is checked against cuBLAS's, on a fresh A for each launch.",
      "cuBLAS SGEMM A*A^T " + fixed(sgemm.value, 1) + " GFLOP/s (" +
          fixed(sgemm.timing.median_ms, 3) + " ms); cuBLAS SSYRK " + fixed(ssyrk.value, 1) +
          " GFLOP/s-equivalent (" + fixed(ssyrk.timing.median_ms, 3) +
          " ms); both FP32 without tensor cores, measured in this run."};
  std::vector<LadderReport> reports{report};
  LadderReport lab_table = table_3_2(report, n, k);
  if (!lab_table.rows.empty())
    reports.push_back(lab_table);
  return reports;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec("04_aat_padding",
                "Lesson 04: C = A A^T, from bank-conflicted tiles to beyond cuBLAS SGEMM.",
                "NxK for A of N rows and K columns, or N for N x N (default 4096x4096)", kVariants);
  spec.validate = [](const DemoOptions& options) -> std::optional<std::string> {
    const auto shape = parse_shape(options.size_or(kDefaultSize));
    if (!shape || shape->first < 1 || shape->second < 1 ||
        shape->first > static_cast<std::uint64_t>(kMaxN) ||
        shape->second > static_cast<std::uint64_t>(kMaxElements) / shape->first)
      return "--size takes NxK with 1 <= N <= " + std::to_string(kMaxN) +
             ", K >= 1 and N * K <= 2^26, e.g. 4096x4096 or 1000x257";
    return std::nullopt;
  };
  spec.takes_block = false;  // the tile and block shapes are fixed
  spec.run = run_ladder;
  return run_demo(argc, argv, spec);
}
