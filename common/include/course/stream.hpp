/// @file
/// @brief Move-only RAII CUDA streams and events, for lessons that overlap copies and kernels.
#pragma once

#include <cuda_runtime.h>

#include <utility>

namespace course {

/// A CUDA stream that does not synchronize with the legacy default stream.
class Stream {
 public:
  /// Creates the stream (cudaStreamCreateWithFlags, cudaStreamNonBlocking).
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  /// Takes over @p other's stream.
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  /// Destroys this stream and takes over @p other's.
  Stream& operator=(Stream&& other) noexcept;
  /// The handle, for launches and copies.
  [[nodiscard]] cudaStream_t get() const noexcept { return stream_; }
  /// Waits until everything enqueued so far has finished.
  void synchronize() const;
  /// Makes later work on this stream wait for @p event's last record.
  void wait(cudaEvent_t event) const;

 private:
  cudaStream_t stream_ = nullptr;
};

/// A CUDA event without timing, for ordering work between streams.
class Event {
 public:
  /// Creates the event (cudaEventDisableTiming).
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  /// Takes over @p other's event.
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  /// Destroys this event and takes over @p other's.
  Event& operator=(Event&& other) noexcept;
  /// The handle.
  [[nodiscard]] cudaEvent_t get() const noexcept { return event_; }
  /// Records the event on @p stream: it completes when the work enqueued before it has.
  void record(cudaStream_t stream) const;

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace course
