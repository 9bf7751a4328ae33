#include "course/buffer.hpp"

#include <new>

namespace course {

std::string_view to_string(HostMemory kind) noexcept {
  switch (kind) {
    case HostMemory::Pageable: return "pageable";
    case HostMemory::Pinned: return "pinned";
    case HostMemory::PinnedMallocHost: return "pinned (cudaMallocHost)";
    case HostMemory::WriteCombined: return "write-combined";
    case HostMemory::Mapped: return "mapped";
  }
  return "unknown";
}

namespace detail {

void* device_allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* pointer = nullptr;
  CUDA_CHECK(cudaMalloc(&pointer, bytes));
  return pointer;
}

void device_free(void* pointer) noexcept {
  if (pointer != nullptr) cudaFree(pointer);  // a destructor must not throw
}

void* host_allocate(std::size_t bytes, HostMemory kind) {
  if (bytes == 0) return nullptr;
  void* pointer = nullptr;
  switch (kind) {
    case HostMemory::Pageable: return ::operator new(bytes, std::align_val_t{64});
    case HostMemory::Pinned: CUDA_CHECK(cudaHostAlloc(&pointer, bytes, cudaHostAllocDefault)); break;
    case HostMemory::PinnedMallocHost: CUDA_CHECK(cudaMallocHost(&pointer, bytes)); break;
    case HostMemory::WriteCombined:
      CUDA_CHECK(cudaHostAlloc(&pointer, bytes, cudaHostAllocWriteCombined));
      break;
    case HostMemory::Mapped: CUDA_CHECK(cudaHostAlloc(&pointer, bytes, cudaHostAllocMapped)); break;
  }
  return pointer;
}

void host_free(void* pointer, HostMemory kind) noexcept {
  if (pointer == nullptr) return;
  if (kind == HostMemory::Pageable) {
    ::operator delete(pointer, std::align_val_t{64});
  } else {
    cudaFreeHost(pointer);
  }
}

void* mapped_device_pointer(void* host_pointer) {
  void* device_pointer = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(&device_pointer, host_pointer, 0));
  return device_pointer;
}

}  // namespace detail
}  // namespace course
