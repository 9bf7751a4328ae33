/// @file
/// @brief Timing GPU work with CUDA events: warm-up, repeats, median, L2 flushed in between.
#pragma once

#include <cuda_runtime.h>

#include <functional>

namespace course {

/// What a timing measured, in milliseconds.
struct Timing {
  double median_ms = 0.0;  ///< the figure to report
  double min_ms = 0.0;     ///< fastest repeat
  double max_ms = 0.0;     ///< slowest repeat
  int repeats = 0;         ///< how many repeats were timed
};

/// How to time.
struct TimingOptions {
  int warmup = 2;        ///< untimed runs first (module load, caches, clocks)
  int repeats = 15;      ///< timed runs; the median is reported
  bool flush_l2 = true;  ///< evict the L2 cache (flush_l2()) before each timed run
};

/// Times @p work (which enqueues GPU work on the stream it is given) with CUDA events around each
/// repeat. The L2 flush, when asked for, happens outside the events; the work is then queued
/// behind it, so that the events time the work and not the host's submission of it. Every
/// ceiling is timed with the flush, as course::measure() times every rung: the two sides of a
/// share are measured the same way.
[[nodiscard]] Timing time_on_gpu(const std::function<void(cudaStream_t)>& work,
                                 TimingOptions options = {}, cudaStream_t stream = {});

/// Evicts the L2 cache by reading a buffer twice its size (enqueued on @p stream). Reading, not
/// writing: a flush that writes (a cudaMemset) leaves the L2 full of dirty lines, and the timed
/// work then pays for writing them back to DRAM, a cost of about fixed size that weighs on small
/// work most (on an H100 it made a 64 MiB float4 copy 14 % slower, a 256 MiB one 4 %, the 1 GiB
/// device copy of the ceiling 1 %). After a read the lines are clean and the timed work moves
/// only its own bytes.
void flush_l2(cudaStream_t stream = {});

/// Start/stop timing of one stretch of a stream, for phase tables (H2D, kernel, D2H).
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  /// Records the start event on @p stream.
  void start(cudaStream_t stream = {});
  /// Records the stop event on @p stream, waits for it, and returns the milliseconds between.
  double stop(cudaStream_t stream = {});
  /// Records the stop event on @p stream without waiting for it.
  void record_stop(cudaStream_t stream = {});
  /// Waits for the stop event and returns the milliseconds between the two events.
  [[nodiscard]] double elapsed() const;

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

/// Gigabytes (1e9 bytes) per second for @p bytes moved in @p ms.
[[nodiscard]] inline double gb_per_s(double bytes, double ms) {
  return bytes / (ms * 1e6);
}
/// GFLOP/s for @p flops done in @p ms.
[[nodiscard]] inline double gflop_per_s(double flops, double ms) {
  return flops / (ms * 1e6);
}

}  // namespace course
