/// @file
/// @brief Move-only RAII buffers in device memory and in every kind of host memory.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "course/error.hpp"

namespace course {

/// Fills every multiprocessor's shared memory with 0xFF bytes (course/bench.hpp).
void poison_shared_memory(cudaStream_t stream);

namespace detail {
void* device_allocate(std::size_t bytes);
void device_free(void* pointer) noexcept;
}  // namespace detail

/// An array of @p T in device memory (cudaMalloc). Move-only; freed when it goes out of scope.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocates @p count elements, uninitialised (see poison()).
  explicit DeviceBuffer(std::size_t count)
      : data_(static_cast<T*>(detail::device_allocate(count * sizeof(T)))), count_(count) {}
  /// Allocates and uploads a copy of @p host.
  explicit DeviceBuffer(std::span<const T> host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  /// Takes over @p other's memory; @p other is left empty.
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  /// Frees this buffer's memory and takes over @p other's; @p other is left empty.
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      detail::device_free(data_);
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { detail::device_free(data_); }

  /// The device address of the first element (nullptr when empty).
  [[nodiscard]] T* data() noexcept { return data_; }
  /// The device address of the first element (nullptr when empty).
  [[nodiscard]] const T* data() const noexcept { return data_; }
  /// Elements held.
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  /// Bytes held.
  [[nodiscard]] std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  /// True when the buffer holds no element.
  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }

  /// Copies @p host to the start of the buffer (host.size() <= size()), synchronously.
  void upload(std::span<const T> host) {
    require(host.size() <= count_, "DeviceBuffer::upload: more elements than the buffer holds");
    if (!host.empty())
      CUDA_CHECK(cudaMemcpy(data_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
  }
  /// Copies the start of the buffer into @p host (host.size() <= size()), synchronously.
  void download(std::span<T> host) const {
    require(host.size() <= count_, "DeviceBuffer::download: more elements than the buffer holds");
    if (!host.empty())
      CUDA_CHECK(cudaMemcpy(host.data(), data_, host.size_bytes(), cudaMemcpyDeviceToHost));
  }
  /// The whole buffer, copied to a new host vector.
  [[nodiscard]] std::vector<T> to_host() const {
    std::vector<T> host(count_);
    download(host);
    return host;
  }
  /// Sets every byte to @p byte (asynchronously on @p stream).
  void fill_bytes(unsigned char byte, cudaStream_t stream = {}) {
    if (count_ != 0) CUDA_CHECK(cudaMemsetAsync(data_, byte, bytes(), stream));
  }
  /// Fills the buffer with 0xFF bytes, a NaN for floats and -1 for integers, so that an element a
  /// kernel forgets to write can never pass for a result; fills the GPU's shared memory the same
  /// way, so that a kernel reading shared memory it never wrote computes with NaN. Synchronous.
  void poison() {
    fill_bytes(0xFF);
    poison_shared_memory(nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

/// The kinds of host memory a lesson can ask for.
enum class HostMemory {
  Pageable,          ///< ordinary memory (operator new): every copy goes through a staging buffer
  Pinned,            ///< page-locked, cudaHostAlloc(cudaHostAllocDefault): DMA straight from it
  PinnedMallocHost,  ///< page-locked through cudaMallocHost (same memory, the older call)
  WriteCombined,     ///< page-locked, write-combined: fast to send, very slow for the CPU to read
  Mapped,            ///< page-locked and mapped into the device's address space (zero-copy)
};

/// A short name for @p kind ("pageable", "pinned", ...).
[[nodiscard]] std::string_view to_string(HostMemory kind) noexcept;

namespace detail {
void* host_allocate(std::size_t bytes, HostMemory kind);
void host_free(void* pointer, HostMemory kind) noexcept;
void* mapped_device_pointer(void* host_pointer);
}  // namespace detail

/// An array of @p T in host memory of a chosen kind. Move-only; freed when it goes out of scope.
template <class T>
class HostBuffer {
 public:
  HostBuffer() = default;
  /// Allocates @p count elements of memory kind @p kind, uninitialised.
  explicit HostBuffer(std::size_t count, HostMemory kind = HostMemory::Pageable)
      : data_(static_cast<T*>(detail::host_allocate(count * sizeof(T), kind))),
        count_(count),
        kind_(kind) {}
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  /// Takes over @p other's memory; @p other is left empty.
  HostBuffer(HostBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        count_(std::exchange(other.count_, 0)),
        kind_(other.kind_) {}
  /// Frees this buffer's memory and takes over @p other's; @p other is left empty.
  HostBuffer& operator=(HostBuffer&& other) noexcept {
    if (this != &other) {
      detail::host_free(data_, kind_);
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
      kind_ = other.kind_;
    }
    return *this;
  }
  ~HostBuffer() { detail::host_free(data_, kind_); }

  /// The host address of the first element (nullptr when empty).
  [[nodiscard]] T* data() noexcept { return data_; }
  /// The host address of the first element (nullptr when empty).
  [[nodiscard]] const T* data() const noexcept { return data_; }
  /// Elements held.
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  /// Bytes held.
  [[nodiscard]] std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  /// The kind of host memory.
  [[nodiscard]] HostMemory kind() const noexcept { return kind_; }
  /// All elements, as a span.
  [[nodiscard]] std::span<T> span() noexcept { return {data_, count_}; }
  /// All elements, as a span.
  [[nodiscard]] std::span<const T> span() const noexcept { return {data_, count_}; }
  /// Element @p i (unchecked).
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  /// Element @p i (unchecked).
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  /// The first element, for range-for and algorithms.
  T* begin() noexcept { return data_; }
  /// One past the last element.
  T* end() noexcept { return data_ + count_; }

  /// The device's address of a Mapped buffer (cudaHostGetDevicePointer), for kernels that read
  /// host memory directly. Throws std::logic_error for any other kind.
  [[nodiscard]] T* device_data() const {
    if (kind_ != HostMemory::Mapped)
      throw std::logic_error("HostBuffer::device_data: only a Mapped buffer has a device address");
    return static_cast<T*>(detail::mapped_device_pointer(data_));
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
  HostMemory kind_ = HostMemory::Pageable;
};

}  // namespace course
