// Lesson 06's demo: the kernel ladder, then one table of host-memory kinds with the seed's
// columns (H2D, kernel, D2H, total, CPU). See README.md, "Run the demo".
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "box_blur.cuh"
#include "box_blur_cpu.hpp"
#include "course/buffer.hpp"
#include "course/compare.hpp"
#include "course/data.hpp"
#include "course/demo.hpp"
#include "course/error.hpp"

namespace {

using namespace course;
using namespace course::lesson06;

constexpr const char* kDefaultSize = "16M";  // the seed's vector
constexpr Tolerance kTolerance{1e-6, 1e-5};

// This lesson's own options.
struct BlurOptions {
  std::string kernel_size = "2^26";  ///< --kernel-size: large enough that launch overhead fades
  int radius = 8;                    ///< --radius
  int chunks = kDefaultChunks;       ///< --chunks, of the streams rung
  std::string trip_kernel = "global";  ///< --trip-kernel: the kernel the host-memory trips use
};


double cpu_ms(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

LadderReport kernel_ladder(const DemoOptions& options, const BlurOptions& blur_options) {
  const std::size_t n = *parse_count(blur_options.kernel_size);
  const int block = options.block != 0 ? options.block : kDefaultBlock;
  const auto input = uniform_floats(n, base_seed(), 0.0f, 1.0f);
  const auto expected = blur_reference(input, blur_options.radius);
  DeviceBuffer<float> d_in{std::span<const float>(input)};
  DeviceBuffer<float> d_out(n);
  LadderReport report;
  report.title = "Lesson 06, box blur kernels, " + std::to_string(n) + " floats, radius " +
                 std::to_string(blur_options.radius) + ", block " + std::to_string(block);
  report.metric_unit = "GB/s";
  report.baseline = "global";
  report.ceiling = ceilings::device_copy();
  for (const auto& info : kKernels) {
    if (!options.wants(std::string(info.name))) continue;
    LadderRow row;
    row.rung = info.name;
    row.kind = info.kind;
    auto run = [&, kernel = info.rung](cudaStream_t s) {
      blur(kernel, d_in.data(), d_out.data(), n, blur_options.radius, s, block);
    };
    d_out.poison();
    row.status = try_rung([&] { run(nullptr); });
    if (row.status == "ok") {
      if (!compare_close(d_out.to_host(), expected, kTolerance, {n}).ok) row.status = "WRONG";
      row.timing = time_on_gpu(run, {.warmup = 2, .repeats = options.repeat});
      row.metric = gb_per_s(2.0 * n * sizeof(float), row.timing.median_ms);
    }
    report.rows.push_back(row);
  }
  report.notes = {"GB/s counts each element read once and written once."};
  return report;
}

LadderReport memory_table(const DemoOptions& options, const BlurOptions& blur_options) {
  const std::size_t n = *parse_count(options.size.empty() ? kDefaultSize : options.size);
  const std::size_t bytes = n * sizeof(float);
  PipelineOptions trip;
  trip.radius = blur_options.radius;
  trip.block = options.block != 0 ? options.block : kDefaultBlock;
  trip.chunks = blur_options.chunks;
  for (const auto& info : kKernels)
    if (info.name == blur_options.trip_kernel) trip.kernel = info.rung;
  const auto input = uniform_floats(n, base_seed(), 0.0f, 1.0f);
  std::vector<double> expected;
  const double reference_ms = cpu_ms([&] { expected = blur_reference(input, trip.radius); });
  const auto& h2d = ceilings::pinned_host_to_device(bytes);
  const auto& d2h = ceilings::pinned_device_to_host(bytes);
  const auto& both = ceilings::pinned_bidirectional(bytes);
  const double ceiling_transfer_ms = bytes / (h2d.value * 1e6) + bytes / (d2h.value * 1e6);
  const double ceiling_overlapped_ms = 2.0 * bytes / (both.value * 1e6);

  LadderReport report;
  report.title = "Lesson 06, host memory: one trip of " + std::to_string(n) + " floats (" +
                 std::to_string(bytes >> 20) + " MiB each way), radius " +
                 std::to_string(trip.radius) + ", " + blur_options.trip_kernel + " kernel";
  report.metric_unit = "GB/s";
  report.baseline = "pageable";
  report.ceiling = h2d;
  report.extra_columns = {"H2D ms", "kernel ms", "D2H ms", "CPU ms"};
  std::vector<float> output(n);
  PipelineTimes pinned_times{};
  for (const auto& info : kMemories) {
    if (!options.wants(std::string(info.name))) continue;
    LadderRow row;
    row.rung = info.name;
    row.kind = info.kind;
    std::vector<PipelineTimes> trips;
    std::fill(output.begin(), output.end(), std::numeric_limits<float>::quiet_NaN());
    row.status = try_rung([&] { trips.push_back(run_pipeline(info.rung, input, output, trip)); });
    if (row.status == "ok") {
      if (!compare_close(output, expected, kTolerance, {n}).ok) row.status = "WRONG";
      for (int i = 0; i < std::min(options.repeat, 10); ++i)
        trips.push_back(run_pipeline(info.rung, input, output, trip));
      trips.erase(trips.begin());  // the first trip was the warm-up
      auto median = [&](double PipelineTimes::*field) {
        std::vector<double> values;
        for (const auto& t : trips) values.push_back(t.*field);
        std::sort(values.begin(), values.end());
        return values[values.size() / 2];
      };
      const PipelineTimes t{median(&PipelineTimes::h2d_ms), median(&PipelineTimes::kernel_ms),
                            median(&PipelineTimes::d2h_ms), median(&PipelineTimes::total_ms)};
      if (info.rung == Memory::Pinned) pinned_times = t;
      row.timing = {t.total_ms, t.total_ms, t.total_ms, static_cast<int>(trips.size())};
      row.metric = gb_per_s(2.0 * bytes, t.total_ms);
      const bool copies = t.h2d_ms > 0 && t.d2h_ms > 0;
      row.share = copies ? ceiling_transfer_ms / (t.h2d_ms + t.d2h_ms) : ceiling_overlapped_ms / t.total_ms;
      auto cell = [](double ms) { return ms > 0 ? fixed(ms, 3) : std::string("-"); };
      double cpu = reference_ms;
      if (info.rung == Memory::WriteCombined) {
        // The CPU reference reading its input from write-combined memory.
        HostBuffer<float> wc(n, HostMemory::WriteCombined);
        std::memcpy(wc.data(), input.data(), bytes);
        cpu = cpu_ms([&] { (void)blur_reference(wc.span(), trip.radius); });
        row.note = "CPU reads WC " + fixed(cpu / reference_ms, 1) + "x slower";
      }
      row.extra = {cell(t.h2d_ms), cell(t.kernel_ms), cell(t.d2h_ms), fixed(cpu, 1)};
      if (info.rung == Memory::Streams && pinned_times.total_ms > 0)
        row.note = fixed(t.total_ms / std::max(pinned_times.h2d_ms, pinned_times.d2h_ms), 2) +
                   " x max(H2D, D2H) of pinned";
      if (info.rung == Memory::Mapped) row.note = "kernel reads and writes host memory";
    }
    report.rows.push_back(row);
  }
  report.notes = {
      "time = the whole trip (H2D + kernel + D2H, or overlapped); GB/s = 2 x " +
          std::to_string(bytes >> 20) + " MiB over the bus / trip time; 'of ceiling' = transfer time "
          "at the pinned ceilings / the rung's H2D + D2H time, or, for the overlapped rungs (mapped, "
          "streams), time at the both-ways ceiling / trip time.",
      "pinned ceilings in this run: H2D " + fixed(h2d.value, 1) + " GB/s, D2H " + fixed(d2h.value, 1) +
          " GB/s, both ways at once " + fixed(both.value, 1) + " GB/s (" +
          fixed(both.value / std::max(h2d.value, d2h.value), 2) + "x one direction); CPU = the "
          "reference blur on the CPU (double precision), " + fixed(reference_ms, 1) + " ms."};
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec;
  spec.lesson = "06_box_blur";
  spec.description = "Lesson 06: a box blur, and every way of moving a vector to the GPU and back.";
  spec.size_help = "elements of the host-memory trips, e.g. 16M or 2^24 (default 16M)";
  for (const auto& info : kKernels) spec.variant_names.emplace_back(info.name);
  for (const auto& info : kMemories) spec.variant_names.emplace_back(info.name);
  BlurOptions blur_options;
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--kernel-size", blur_options.kernel_size, "elements of the kernel ladder (default 2^26)");
    app.add_option("--radius", blur_options.radius, "blur radius R, 1..32 (default 8)");
    app.add_option("--chunks", blur_options.chunks, "chunks of the streams rung, 1..256 (default 16)");
    app.add_option("--trip-kernel", blur_options.trip_kernel, "kernel of the host-memory trips (default global)")
        ->check(CLI::IsMember({"global", "shared_halo", "sliding_window"}));
  };
  spec.validate = [&](const DemoOptions& options) -> std::optional<std::string> {
    const auto n = parse_count(options.size.empty() ? kDefaultSize : options.size);
    const auto k = parse_count(blur_options.kernel_size);
    if (!n || *n < 1 || *n > (std::uint64_t{1} << 30)) return "--size takes a count in [1, 2^30], e.g. 16M";
    if (!k || *k < 1 || *k > (std::uint64_t{1} << 30)) return "--kernel-size takes a count in [1, 2^30]";
    if (blur_options.radius < 1 || blur_options.radius > kMaxRadius) return "--radius must be in [1, 32]";
    if (blur_options.chunks < 1 || blur_options.chunks > kMaxChunks) return "--chunks must be in [1, 256]";
    if (options.block != 0 && (options.block % 32 != 0 || options.block < 64))
      return "--block must be a multiple of 32 in [64, 1024]";
    return std::nullopt;
  };
  spec.run = [&](const DemoOptions& options) {
    std::vector<LadderReport> reports;
    LadderReport kernels = kernel_ladder(options, blur_options);
    if (!kernels.rows.empty()) reports.push_back(kernels);
    LadderReport memory = memory_table(options, blur_options);
    if (!memory.rows.empty()) reports.push_back(memory);
    return reports;
  };
  return run_demo(argc, argv, spec);
}
