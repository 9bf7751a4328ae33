/// @file
/// @brief What ran when on the GPU: every kernel, copy and memset of a stretch of work, with its
/// stream and its start and end, from CUPTI's activity records. Tracing needs no performance
/// counters (unlike Nsight Compute), so it works where the counters are not permitted.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace course {

/// One piece of GPU work, as the GPU timed it.
struct TraceSpan {
  std::uint32_t stream = 0;  ///< CUPTI's id of the stream it ran on
  std::string kind;          ///< "H2D", "D2H", "D2D", "memset" or "kernel"
  std::string name;          ///< the kernel's function name; empty for the others
  double start_ms = 0;       ///< from the first span's start
  double end_ms = 0;         ///< from the first span's start
  double bytes = 0;          ///< bytes copied or set; 0 for kernels
};

/// The spans of a traced stretch of work, in order of start.
struct Trace {
  std::vector<TraceSpan> spans;  ///< in order of start

  /// The streams in order of their first span.
  [[nodiscard]] std::vector<std::uint32_t> streams() const;
  /// From the first start to the last end.
  [[nodiscard]] double wall_ms() const;
  /// Sum of the spans' durations: the time the work would take one piece after another.
  [[nodiscard]] double busy_ms() const;
  /// Sum of the durations of the spans of kind @p kind.
  [[nodiscard]] double kind_ms(const std::string& kind) const;
  /// How long a span of a kind in @p a and a span of a kind in @p b ran at the same time (each
  /// side's spans merged first, so that two uploads in flight at once count once).
  [[nodiscard]] double together_ms(const std::vector<std::string>& a,
                                   const std::vector<std::string>& b) const;
  /// What each stream ran, e.g. "stream 0: 16 H2D copies; stream 1: 16 kernels".
  [[nodiscard]] std::string lanes() const;
  /// The stretches that follow each memset of exactly one byte (a marker the caller enqueued
  /// before each piece of work it wants told apart), up to the next marker, each rebased to
  /// start at 0.
  [[nodiscard]] std::vector<Trace> after_markers() const;
};

/// Runs @p work, which enqueues GPU work and may synchronize, and returns every kernel, copy and
/// memset that ran on the current device meanwhile. Returns nothing, with the reason in
/// @p why_not, when CUPTI is missing from this build or refuses to trace on this machine.
[[nodiscard]] std::optional<Trace> trace_gpu(const std::function<void()>& work,
                                             std::string& why_not);

/// @p trace as text: a line per stream, @p width columns from the first start to the last end,
/// 'H' for host-to-device copies, 'D' for device-to-host, 'K' for kernels, 'm' for memsets and
/// '.' for idle, then what ran where and how much overlapped.
[[nodiscard]] std::string trace_chart(const Trace& trace, int width = 96);

}  // namespace course
