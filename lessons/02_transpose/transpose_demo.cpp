// Lesson 02's demo: the whole ladder at one size, as a table. See README.md, "Run the demo".
#include <cstring>
#include <string>
#include <vector>

#include "course/buffer.hpp"
#include "course/data.hpp"
#include "course/demo.hpp"
#include "course/error.hpp"
#include "transpose.cuh"
#include "transpose_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson02;

constexpr const char* kDefaultSize = "8192x8192";

std::vector<LadderReport> run_ladder(const DemoOptions& options) {
  const auto [rows, cols] = *parse_shape(options.size.empty() ? kDefaultSize : options.size);
  const std::size_t count = rows * cols;
  const auto input = uniform_floats(count, base_seed());
  const auto transposed = transpose_reference(input, static_cast<int>(rows), static_cast<int>(cols));
  DeviceBuffer<float> d_in{std::span<const float>(input)};
  DeviceBuffer<float> d_out(count);

  LadderReport report;
  report.title = "Lesson 02, transpose of a " + std::to_string(rows) + " x " + std::to_string(cols) +
                 " float matrix";
  report.metric_unit = "GB/s";
  report.baseline = "naive";
  report.ceiling = ceilings::device_copy();
  for (const auto& info : kVariants) {
    if (!options.wants(std::string(info.name))) continue;
    LadderRow row;
    row.rung = info.name;
    row.kind = info.kind;
    auto run = [&, variant = info.variant](cudaStream_t stream) {
      transpose(variant, d_in.data(), d_out.data(), static_cast<int>(rows), static_cast<int>(cols), stream);
    };
    d_out.poison();
    row.status = try_rung([&] { run(nullptr); });
    if (row.status == "ok") {
      const auto got = d_out.to_host();
      const auto& expected = info.variant == Variant::Copy ? input : transposed;
      if (std::memcmp(got.data(), expected.data(), count * sizeof(float)) != 0) row.status = "WRONG";
      row.timing = time_on_gpu(run, {.warmup = 2, .repeats = options.repeat});
      row.metric = gb_per_s(2.0 * count * sizeof(float), row.timing.median_ms);
    }
    report.rows.push_back(row);
  }
  report.notes = {"GB/s counts every element read once and written once; the ceiling is a "
                  "device-to-device cudaMemcpy measured in this run."};
  return {report};
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec;
  spec.lesson = "02_transpose";
  spec.description = "Lesson 02: the transpose ladder, from naive to the copy ceiling.";
  spec.size_help = "ROWSxCOLS, or N for N x N (default 8192x8192)";
  for (const auto& info : kVariants) spec.variant_names.emplace_back(info.name);
  spec.validate = [](const DemoOptions& options) -> std::optional<std::string> {
    const auto shape = parse_shape(options.size.empty() ? kDefaultSize : options.size);
    if (!shape || shape->first < 1 || shape->second < 1 ||
        shape->first > static_cast<std::uint64_t>(kMaxExtent) || shape->second > static_cast<std::uint64_t>(kMaxExtent))
      return "--size takes ROWSxCOLS with 1 <= ROWS, COLS <= " + std::to_string(kMaxExtent) +
             ", e.g. 8192x8192 or 4097x1023";
    if (options.block != 0) return "--block: this lesson's tile shapes are fixed (32x32, 32x8, 64x64)";
    return std::nullopt;
  };
  spec.run = run_ladder;
  return run_demo(argc, argv, spec);
}
