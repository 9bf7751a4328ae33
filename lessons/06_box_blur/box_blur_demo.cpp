// Lesson 06's demo: the kernel ladder, then one table of host-memory kinds with the box-blur
// article's columns (H2D, kernel, D2H, total, CPU); with --timeline, one traced trip of the pinned
// and of the streams rung instead, each with its copies and kernels per stream
// (box_blur_timeline.cpp). See README.md, "Measured" and "Tasks".
#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "box_blur.cuh"
#include "box_blur_bench.hpp"
#include "box_blur_cpu.hpp"
#include "box_blur_timeline.hpp"
#include "course/buffer.hpp"
#include "course/data.hpp"
#include "course/demo.hpp"

namespace {

using namespace course;
using namespace course::lesson06;

constexpr const char* kDefaultSize = "16M";  // the box-blur article's vector

// This lesson's own options.
struct BlurOptions {
  std::string kernel_size = "2^26";    ///< --kernel-size: large enough that launch overhead fades
  int radius = 8;                      ///< --radius
  int chunks = kDefaultChunks;         ///< --chunks, of the streams rung
  std::string trip_kernel = "global";  ///< --trip-kernel: the kernel the host-memory trips use
  bool timeline = false;               ///< --timeline: trace one pinned and one streams trip
};

// The median of three runs of @p work on the CPU, in ms. One run alone is not a measurement: the
// first blur of a process also pays its page faults and cold caches, and a single run of the
// ordinary input once came out slower than the write-combined one it is compared with.
double cpu_ms(const std::function<void()>& work) {
  std::array<double, 3> runs{};
  for (double& run : runs) {
    const auto start = std::chrono::steady_clock::now();
    work();
    run =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  std::sort(runs.begin(), runs.end());
  return runs[1];
}

// Outputs per thread of the sliding window, as the lesson's text has it ("nine consecutive
// outputs").
constexpr double kWindowOutputs = 9;

// What one launch of @p kernel must do, as the README counts it ("Roofline"): every element read
// once and written once (blur_bytes), and the FP32 arithmetic of the n - 2R outputs that are
// means (the R at each end are copies). global and shared_halo: 2R + 1 additions and a division
// per output. sliding_window, per thread of nine outputs: its first window's 2R + 1 additions,
// eight slides of an addition and a subtraction, nine multiplications by 1 / (2R + 1) and the
// division that makes it.
Work kernel_work(Kernel kernel, std::size_t n, int radius) {
  const double r = radius;
  const double means =
      n > 2 * static_cast<std::size_t>(radius) ? static_cast<double>(n) - 2 * r : 0;
  const double per_output =
      kernel == Kernel::SlidingWindow
          ? (2 * r + 1 + 2 * (kWindowOutputs - 1) + kWindowOutputs + 1) / kWindowOutputs
          : 2 * r + 2;
  return {means * per_output, blur_bytes(n)};
}

LadderReport kernel_ladder(const DemoOptions& options, const BlurOptions& blur_options) {
  LadderReport report;
  if (!options.wants_any(kKernels))
    return report;  // no kernel rung asked for: measure no ceiling either
  const std::size_t n = *parse_count(blur_options.kernel_size);
  const int block = options.block_or(kDefaultBlock);
  report.title = "Lesson 06, box blur kernels, " + std::to_string(n) + " floats, radius " +
                 std::to_string(blur_options.radius) + ", block " + std::to_string(block);
  report.metric_unit = "GB/s";
  report.baseline = "global";
  report.ceiling = ceilings::device_copy();
  // The procedure of the tests (box_blur_bench.hpp), with --repeat.
  add_rungs(
      report, options, kKernels,
      [&](const auto& info) {
        return measure_kernel(info.rung, n, blur_options.radius, block, options.measuring(4000));
      },
      [&](LadderRow& row, const auto& info) {
        if (!row.ran())
          return;
        if (row.status == "ok")
          row.metric = gb_per_s(blur_bytes(n), row.timing.median_ms);
        row.work = kernel_work(info.rung, n, blur_options.radius);
      });
  report.notes = {
      "GB/s counts each element read once and written once; every timed launch's output "
      "is checked against the given global kernel's.",
      "Roofline: FLOP = the FP32 arithmetic of the n - 2R outputs that are means (a division "
      "counts 1): global and shared_halo 2R + 1 additions and a division each (2R + 2); "
      "sliding_window, per nine outputs, 2R + 1 additions for the first window, 8 x 2 to slide "
      "it, 9 multiplications by 1 / (2R + 1) and the division that makes it ((2R + 27) / 9 per "
      "output). Bytes = each element read once and written once, as for GB/s: rereading the "
      "neighbours is the caches' work, not DRAM's."};
  return report;
}

// How the host-memory trips are made, from the options.
PipelineOptions pipeline_options(const DemoOptions& options, const BlurOptions& blur_options) {
  PipelineOptions trip;
  trip.radius = blur_options.radius;
  trip.block = options.block_or(kDefaultBlock);
  trip.chunks = blur_options.chunks;
  for (const auto& info : kKernels)
    if (info.name == blur_options.trip_kernel)
      trip.kernel = info.rung;
  return trip;
}

LadderReport memory_table(const DemoOptions& options, const BlurOptions& blur_options) {
  if (!options.wants_any(kMemories))
    return {};  // no host-memory rung asked for: no CPU reference, no ceilings
  const std::size_t n = *parse_count(options.size_or(kDefaultSize));
  const std::size_t bytes = n * sizeof(float);
  const PipelineOptions trip = pipeline_options(options, blur_options);
  const auto input = uniform_floats(n, base_seed(), 0.0f, 1.0f);
  std::vector<double> expected;
  const double reference_ms = cpu_ms([&] { expected = blur_reference(input, trip.radius); });
  const auto& h2d = ceilings::pinned_host_to_device(bytes);
  const auto& d2h = ceilings::pinned_device_to_host(bytes);
  const auto& both = ceilings::pinned_bidirectional(bytes);
  const double ceiling_transfer_ms = bytes / (h2d.value * 1e6) + bytes / (d2h.value * 1e6);
  // Trips time at most 10 repeats, as the article's table did: a pageable trip takes a while.
  DemoOptions trip_repeats = options;
  trip_repeats.repeat = std::min(options.repeat, 10);

  LadderReport report("Lesson 06, host memory: one trip of " + std::to_string(n) + " floats (" +
                          std::to_string(bytes >> 20) + " MiB each way), radius " +
                          std::to_string(trip.radius) + ", " + blur_options.trip_kernel + " kernel",
                      "GB/s", "pageable", both);
  report.extra_columns = {"H2D ms", "kernel ms", "D2H ms", "CPU ms"};
  // The phases of the serial trips, timed alone by given code: each copy from or to host memory
  // of the rung's kind, and the trip's kernel on device memory. Each is a cell: its median time,
  // WRONG, or why it did not run.
  std::string kernel_cell = "-";
  auto phase = [&](const std::function<Measurement()>& measure_phase) {
    const LadderRow timed = measured_row("", "", measure_phase);
    return timed.status == "ok" ? fixed(timed.timing.median_ms, 3) : timed.status;
  };
  double pinned_h2d_ms = 0.0, pinned_d2h_ms = 0.0;
  auto fill_trip = [&](LadderRow& row, const auto& info) {
    if (!row.ran())
      return;
    if (row.status == "ok")
      row.metric = gb_per_s(blur_bytes(n), row.timing.median_ms);
    std::string h2d_cell = "-", d2h_cell = "-", cell_of_kernel = "-";
    const bool serial = info.rung == Memory::Pageable || info.rung == Memory::Pinned ||
                        info.rung == Memory::WriteCombined;
    if (serial) {
      const TripMemory kinds = trip_memory(info.rung);
      const MeasureOptions measuring = trip_repeats.measuring(6000);
      Measurement up, down;
      h2d_cell = phase(
          [&] { return up = measure_copy(cudaMemcpyHostToDevice, kinds.input, n, measuring); });
      d2h_cell = phase(
          [&] { return down = measure_copy(cudaMemcpyDeviceToHost, kinds.output, n, measuring); });
      if (kernel_cell == "-")
        kernel_cell = phase(
            [&] { return measure_kernel(trip.kernel, n, trip.radius, trip.block, measuring); });
      cell_of_kernel = kernel_cell;
      const double copies_ms = up.timing.median_ms + down.timing.median_ms;
      if (up.sound() && down.sound() && copies_ms > 0) {
        if (row.note.empty())
          row.note = "copies at " + fixed(100.0 * ceiling_transfer_ms / copies_ms, 0) +
                     " % of the pinned ceiling";
        if (info.rung == Memory::Pinned) {
          pinned_h2d_ms = up.timing.median_ms;
          pinned_d2h_ms = down.timing.median_ms;
        }
      }
    }
    double cpu = reference_ms;
    if (info.rung == Memory::WriteCombined) {
      // The CPU reference reading its input from write-combined memory.
      HostBuffer<float> wc(n, HostMemory::WriteCombined);
      std::memcpy(wc.data(), input.data(), bytes);
      cpu = cpu_ms([&] { (void)blur_reference(wc.span(), trip.radius); });
      if (row.status == "ok") {
        const double ratio = cpu / reference_ms;
        row.note = ratio >= 1.0 ? "CPU reads WC " + fixed(ratio, 1) + "x slower"
                                : "CPU reads WC " + fixed(1.0 / ratio, 1) + "x faster";
      }
    }
    row.extra = {h2d_cell, cell_of_kernel, d2h_cell, fixed(cpu, 1)};
    if (row.status == "ok" && info.rung == Memory::Mapped)
      row.note = "kernel reads and writes host memory";
    if (row.status == "ok" && info.rung == Memory::Streams && pinned_h2d_ms > 0)
      row.note = fixed(row.timing.median_ms / std::max(pinned_h2d_ms, pinned_d2h_ms), 2) +
                 " x max(H2D, D2H) of pinned";
  };
  add_rungs(
      report, options, kMemories,
      [&](const auto& info) {
        return measure_trip(info.rung, n, trip, trip_repeats.measuring(5000));
      },
      fill_trip);
  report.notes = {
      "time = the whole trip (H2D + kernel + D2H, or overlapped), timed by the harness on its own "
      "stream, every trip's output checked; GB/s = 2 x " +
          std::to_string(bytes >> 20) +
          " MiB over the bus / trip time; 'of ceiling' = the same against both directions at once "
          "(the most any trip can reach). H2D, kernel and D2H: each phase of the serial trips "
          "timed alone (the copies from and to host memory of the rung's kinds, the kernel on "
          "device memory).",
      "pinned ceilings in this run: H2D " + fixed(h2d.value, 1) + " GB/s, D2H " +
          fixed(d2h.value, 1) + " GB/s, both ways at once " + fixed(both.value, 1) + " GB/s (" +
          fixed(both.value / std::max(h2d.value, d2h.value), 2) +
          "x one direction); CPU = the "
          "reference blur on the CPU (double precision, the median of 3 runs), " +
          fixed(reference_ms, 1) + " ms.",
      "No roofline for the trips: their bytes cross the host link (PCIe or the like), not the "
      "GPU's DRAM, and their arithmetic is the kernel table's, so their work is not counted; "
      "the link is their ceiling ('of ceiling')."};
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec(
      "06_box_blur", "Lesson 06: a box blur, and every way of moving a vector to the GPU and back.",
      "elements of the host-memory trips, at most 2^26, e.g. 16M or 2^24 (default 16M)", kKernels);
  spec.add_variants(kMemories);
  const BlockRule blocks{.min = 64};
  spec.block_help = blocks.help(kDefaultBlock);
  BlurOptions blur_options;
  spec.add_options = [&](CLI::App& app) {
    app.add_option("--kernel-size", blur_options.kernel_size,
                   "elements of the kernel ladder, at most 2^26 (default 2^26)");
    app.add_option("--radius", blur_options.radius, "blur radius R, 1..32 (default 8)");
    app.add_option("--chunks", blur_options.chunks,
                   "chunks of the streams rung, 1..256 (default 16)");
    app.add_option("--trip-kernel", blur_options.trip_kernel,
                   "kernel of the host-memory trips (default global)")
        ->check(CLI::IsMember({"global", "shared_halo", "sliding_window"}));
    app.add_flag("--timeline", blur_options.timeline,
                 "instead of the tables: one traced trip of the pinned and of the streams rung "
                 "(--size floats, --chunks), their copies and kernels per stream as the GPU "
                 "ran them")
        ->excludes(app.get_option("--csv"));
  };
  spec.validate = [&](const DemoOptions& options) -> std::optional<std::string> {
    if (auto problem = count_problem("--size", options.size_or(kDefaultSize), kMaxElements, "16M"))
      return problem;
    if (auto problem = count_problem("--kernel-size", blur_options.kernel_size, kMaxElements))
      return problem;
    if (blur_options.radius < 1 || blur_options.radius > kMaxRadius)
      return "--radius must be in [1, 32]";
    if (blur_options.chunks < 1 || blur_options.chunks > kMaxChunks)
      return "--chunks must be in [1, 256]";
    if (auto problem = blocks.problem(options.block))
      return problem;
    if (blur_options.timeline)
      for (const auto& variant : options.variants)
        if (variant != "pinned" && variant != "streams")
          return "--timeline traces the pinned and streams rungs: --variant may name only those";
    return std::nullopt;
  };
  spec.run = [&](const DemoOptions& options) {
    if (blur_options.timeline)
      return timelines(options, *parse_count(options.size_or(kDefaultSize)),
                       pipeline_options(options, blur_options));
    std::vector<LadderReport> reports;
    LadderReport kernels = kernel_ladder(options, blur_options);
    if (!kernels.rows.empty())
      reports.push_back(kernels);
    LadderReport memory = memory_table(options, blur_options);
    if (!memory.rows.empty())
      reports.push_back(memory);
    return reports;
  };
  return run_demo(argc, argv, spec);
}
