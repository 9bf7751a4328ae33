#include "course/gpu.hpp"

#include <cuda_runtime.h>

#include <cstdlib>
#include <sstream>

#include "course/error.hpp"

namespace course {

const std::optional<std::string>& gpu_unavailable_reason() {
  static const std::optional<std::string> reason = []() -> std::optional<std::string> {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess)
      return std::string("no usable CUDA device (cudaGetDeviceCount: ") +
             cudaGetErrorString(status) + ")";
    if (count == 0) return std::string("no CUDA device found");
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return std::string("cudaGetDevice failed");
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess)
      return std::string("cudaGetDeviceProperties failed");
    if (prop.major * 10 + prop.minor < kMinComputeCapability)
      return std::string(prop.name) + " has compute capability " + std::to_string(prop.major) +
             "." + std::to_string(prop.minor) + "; the course needs 7.5 or newer";
    return std::nullopt;
  }();
  return reason;
}

const GpuInfo& gpu_info() {
  static const GpuInfo info = [] {
    GpuInfo result;
    CUDA_CHECK(cudaGetDevice(&result.device));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, result.device));
    result.name = prop.name;
    result.major = prop.major;
    result.minor = prop.minor;
    result.sm_count = prop.multiProcessorCount;
    result.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
    result.memory_bytes = prop.totalGlobalMem;
    result.shared_per_block_optin = prop.sharedMemPerBlockOptin;
    return result;
  }();
  return info;
}

std::string describe(const GpuInfo& info) {
  std::ostringstream out;
  out << info.name << " (cc " << info.major << "." << info.minor << ", " << info.sm_count
      << " SMs, " << info.l2_bytes / (1024 * 1024) << " MB L2, "
      << (info.memory_bytes + (1u << 29)) / (1u << 30) << " GB)";
  return out.str();
}

bool quick_mode() {
  const char* value = std::getenv("COURSE_QUICK");
  return value != nullptr && *value != '\0' && *value != '0';
}

}  // namespace course
