/// @file
/// @brief Move-only RAII CUDA streams and events, for lessons that overlap copies and kernels.
#pragma once

#include <cuda_runtime.h>

#include <utility>

namespace course {

namespace detail {

/// Owns one CUDA handle (a stream, an event): move-only, and given back with @p Destroy when the
/// owner goes, or when another handle is moved in.
template <class Handle, cudaError_t (*Destroy)(Handle)>
class OwnedHandle {
 public:
  OwnedHandle() = default;
  ~OwnedHandle() { reset(); }
  OwnedHandle(const OwnedHandle&) = delete;
  OwnedHandle& operator=(const OwnedHandle&) = delete;
  OwnedHandle(OwnedHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  OwnedHandle& operator=(OwnedHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  /// Where a create call writes the new handle.
  [[nodiscard]] Handle* out() noexcept { return &handle_; }
  [[nodiscard]] Handle get() const noexcept { return handle_; }

 private:
  void reset() noexcept {
    if (handle_ != nullptr)
      Destroy(handle_);
    handle_ = nullptr;
  }
  Handle handle_ = nullptr;
};

}  // namespace detail

/// A CUDA stream that does not synchronize with the legacy default stream.
class Stream {
 public:
  /// Creates the stream (cudaStreamCreateWithFlags, cudaStreamNonBlocking). Move-only: a move
  /// takes the other's stream, and the stream is destroyed with the last owner.
  Stream();
  /// The handle, for launches and copies.
  [[nodiscard]] cudaStream_t get() const noexcept { return stream_.get(); }
  /// Waits until everything enqueued so far has finished.
  void synchronize() const;
  /// Makes later work on this stream wait for @p event's last record.
  void wait(cudaEvent_t event) const;

 private:
  detail::OwnedHandle<cudaStream_t, cudaStreamDestroy> stream_;
};

/// A CUDA event without timing, for ordering work between streams.
class Event {
 public:
  /// Creates the event (cudaEventDisableTiming). Move-only, as a Stream.
  Event();
  /// The handle.
  [[nodiscard]] cudaEvent_t get() const noexcept { return event_.get(); }
  /// Records the event on @p stream: it completes when the work enqueued before it has.
  void record(cudaStream_t stream) const;

 private:
  detail::OwnedHandle<cudaEvent_t, cudaEventDestroy> event_;
};

}  // namespace course
