// Lesson 06's --timeline (box_blur_timeline.hpp): one trip of the pinned rung and one of the
// streams rung, each traced as the GPU ran it.
#include "box_blur_timeline.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "box_blur_bench.hpp"
#include "box_blur_cpu.hpp"
#include "course/buffer.hpp"
#include "course/data.hpp"
#include "course/error.hpp"
#include "course/gpu.hpp"
#include "course/stream.hpp"
#include "course/trace.hpp"

namespace course::lesson06 {

namespace {

// Trips traced and checked after the warm ones; the one of median time is drawn. One trip of a
// few milliseconds over a shared host link can be much slower than the next.
constexpr int kTracedTrips = 3;

// One rung's trip, run warm, then traced.
struct TracedTrip {
  LadderRow row;               // time = the drawn trip's, from its trace (events' without one)
  std::optional<Trace> trace;  // empty when the rung did not run or CUPTI could not trace
  std::string why_not;         // why there is no trace, when the trips ran
};

// Runs a trip of @p memory over @p input untraced (module loading, first touches and the
// driver's first-use costs stay out of the picture), then under course::trace_gpu one more, and
// kTracedTrips after it, each behind a one-byte memset that marks where it begins: CUPTI's first
// kernel launch after it starts recording waits some milliseconds (seen on an H100), a gap that
// is not the trip's, and the unmarked trip takes it. Keeps the trace of the marked trip of median
// time, and checks every marked trip's output against the CPU reference @p expected. Without
// CUPTI the marked trips run untraced, timed with events on their stream.
TracedTrip trace_trip(Memory memory, const PipelineOptions& options, std::span<const float> input,
                      std::span<const double> expected) {
  TracedTrip traced;
  traced.row.rung = name_of(kMemories, memory);
  for (const auto& info : kMemories)
    if (info.rung == memory)
      traced.row.kind = info.kind;
  const std::size_t n = input.size();
  const TripMemory kinds = trip_memory(memory);
  HostBuffer<float> h_in(n, kinds.input), h_out(n, kinds.output);
  DeviceBuffer<float> d_in(n), d_out(n);
  DeviceBuffer<unsigned char> marker(1);
  std::copy(input.begin(), input.end(), h_in.data());
  const Stream stream;
  auto one_trip = [&] {
    trip(memory, h_in.data(), h_out.data(), n, TripBuffers{d_in.data(), d_out.data()}, options,
         stream.get());
  };
  traced.row.status = try_rung([&] {
    one_trip();
    stream.synchronize();
  });
  if (traced.row.status != "ok")
    return traced;
  EventTimer timer;
  std::vector<double> event_ms;  // of each marked trip
  std::string failure;           // the first wrong output's report
  auto marked_trip = [&] {
    CUDA_CHECK(cudaMemsetAsync(marker.data(), 0, marker.bytes(), stream.get()));
    CUDA_CHECK(cudaDeviceSynchronize());
    std::fill(h_out.data(), h_out.data() + n, std::numeric_limits<float>::quiet_NaN());
    timer.start(stream.get());
    one_trip();
    event_ms.push_back(timer.stop(stream.get()));
    CUDA_CHECK(cudaDeviceSynchronize());
    const Comparison comparison = compare_close(h_out.span(), expected, kTolerance, {n});
    if (!comparison.ok && failure.empty()) {
      const std::string report = comparison.report();
      failure = report.substr(0, report.find('\n'));
    }
  };
  traced.row.status = try_rung([&] {
    traced.trace = trace_gpu(
        [&] {
          one_trip();
          for (int k = 0; k < kTracedTrips; ++k)
            marked_trip();
        },
        traced.why_not);
    if (event_ms.empty())  // not traced: the trips run untraced
      for (int k = 0; k < kTracedTrips; ++k)
        marked_trip();
  });
  if (traced.row.status != "ok") {
    traced.trace.reset();
    return traced;
  }
  std::vector<double> times = event_ms;
  if (traced.trace) {
    const std::vector<Trace> trips = traced.trace->after_markers();
    traced.trace.reset();
    if (trips.size() == event_ms.size() &&
        std::none_of(trips.begin(), trips.end(), [](const Trace& t) { return t.spans.empty(); })) {
      std::vector<std::size_t> order(trips.size());
      for (std::size_t k = 0; k < order.size(); ++k) {
        order[k] = k;
        times[k] = trips[k].wall_ms();
      }
      std::sort(order.begin(), order.end(),
                [&](std::size_t a, std::size_t b) { return times[a] < times[b]; });
      traced.trace = trips[order[order.size() / 2]];
    } else {
      traced.why_not = "the trace did not tell the trips apart";
    }
  }
  std::sort(times.begin(), times.end());
  traced.row.timing =
      Timing{times[times.size() / 2], times.front(), times.back(), static_cast<int>(times.size())};
  traced.row.metric = gb_per_s(blur_bytes(n), traced.row.timing.median_ms);
  if (!failure.empty()) {
    traced.row.status = "WRONG";
    traced.row.note = failure;
  }
  return traced;
}

}  // namespace

std::vector<LadderReport> timelines(const DemoOptions& options, std::size_t n,
                                    const PipelineOptions& trip) {
  const std::size_t bytes = n * sizeof(float);
  const auto input = uniform_floats(n, base_seed(), 0.0f, 1.0f);
  const std::vector<double> expected = blur_reference(input, trip.radius);
  const auto& both = ceilings::pinned_bidirectional(bytes);
  int engines = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, gpu_info().device));

  std::vector<LadderReport> reports;
  std::optional<Trace> pinned;  // the serial trip's trace, which the streams trip is set against
  double pinned_ms = 0;         // and its time
  for (const Memory memory : {Memory::Pinned, Memory::Streams}) {
    const std::string name(name_of(kMemories, memory));
    if (!options.wants(name))
      continue;
    TracedTrip traced = trace_trip(memory, trip, input, expected);
    const bool streams = memory == Memory::Streams;
    LadderReport report("Lesson 06, timeline of one " + name + " trip" +
                            (streams ? " in " + std::to_string(trip.chunks) + " chunks" : "") +
                            ": " + std::to_string(n) + " floats (" + std::to_string(bytes >> 20) +
                            " MiB each way), radius " + std::to_string(trip.radius) + ", " +
                            std::string(name_of(kKernels, trip.kernel)) + " kernel",
                        "GB/s", "pinned", both);
    report.extra_columns = {"H2D ms", "kernel ms", "D2H ms", "overlapped ms"};
    report.notes.push_back(
        "time = a warm trip as the GPU timed it, from its first copy's start to its last copy's "
        "end: the median of " +
        std::to_string(kTracedTrips) +
        " traced trips, the one drawn (the trips before them paid the first-use costs: module "
        "loading, first touches, the tracer's start); GB/s = 2 x " +
        std::to_string(bytes >> 20) +
        " MiB over the bus / time; H2D, kernel and D2H = the spans of each kind added up; "
        "overlapped = their sum minus the time; the output checked against the CPU reference.");
    if (traced.row.ran() && !traced.trace)
      report.notes.push_back("No timeline: " + traced.why_not + ". time = the median of " +
                             std::to_string(kTracedTrips) +
                             " trips timed with CUDA events on their stream instead.");
    if (const auto& trace = traced.trace) {
      const double wall = trace->wall_ms(), h2d = trace->kind_ms("H2D"),
                   kernels = trace->kind_ms("kernel"), d2h = trace->kind_ms("D2H");
      const double overlapped = std::max(trace->busy_ms() - wall, 0.0);
      traced.row.extra = {fixed(h2d, 3), fixed(kernels, 3), fixed(d2h, 3), fixed(overlapped, 3)};
      report.timeline = trace;
      if (!streams) {
        pinned = trace;
        report.notes.push_back(
            trace->lanes() +
            ". One stream: the copy in, the blur and the copy out one after another, so nothing "
            "overlaps (" +
            fixed(overlapped, 3) + " ms), and the kernel is a sliver (" +
            fixed(100.0 * kernels / wall, 1) +
            " % of the trip) between two copies. The streams rung overlaps them.");
      } else {
        std::string floor;
        if (pinned) {
          const double longer = std::max(pinned->kind_ms("H2D"), pinned->kind_ms("D2H"));
          floor = " The floor is the pinned trip's longer copy, " + fixed(longer, 3) +
                  " ms; this trip took " + fixed(wall / longer, 2) + " x that.";
        }
        report.notes.push_back(
            trace->lanes() +
            ". Look for copies in both directions and kernels of different "
            "chunks running at the same time, on different streams: here an upload and a "
            "download were in flight together for " +
            fixed(trace->together_ms({"H2D"}, {"D2H"}), 3) + " ms, a kernel and a copy for " +
            fixed(trace->together_ms({"kernel"}, {"H2D", "D2H"}), 3) + " ms; " +
            fixed(overlapped, 3) + " ms of work overlapped in all. The kernels add up to " +
            fixed(kernels, 3) + " ms against " + fixed(h2d + d2h, 3) +
            " ms of copies, so overlap can hide at most the kernels and one direction." + floor);
      }
    }
    if (streams)
      report.notes.push_back(
          "asyncEngineCount = " + std::to_string(engines) + " on this GPU: " +
          (engines >= 2   ? "a copy engine for each direction, so uploads and downloads overlap "
                            "each other as well as the kernels."
           : engines == 1 ? "one copy engine, so uploads and downloads take turns; only the "
                            "kernels overlap them."
                          : "no copy engine that runs beside the kernels: nothing overlaps."));
    if (traced.row.ran() && !streams)
      pinned_ms = traced.row.timing.median_ms;
    if (traced.row.ran() && streams && pinned_ms > 0)
      traced.row.speedup = pinned_ms / traced.row.timing.median_ms;  // "x pinned"
    report.rows.push_back(std::move(traced.row));
    reports.push_back(std::move(report));
  }
  return reports;
}

}  // namespace course::lesson06
