#include "course/gpu.hpp"

#include <cuda_runtime.h>

#include <cstdlib>
#include <sstream>
#include <string_view>

#include "course/error.hpp"

namespace course {

namespace {

// "12.4" from CUDA's version number 12040.
std::string cuda_version(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// Why no kernel can run here, naming the real cause: no driver at all, a driver older than the
// runtime this build links, no device, or a device too old for the course.
std::optional<std::string> find_unavailable_reason() {
  int driver = 0;
  int runtime = 0;
  // Both only report versions: 0 for the driver when none is installed (no libcuda.so.1).
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = CUDART_VERSION;
  if (driver == 0)
    return std::string(
        "no NVIDIA driver is installed (libcuda.so.1 is missing, or only a stub), so no kernel "
        "can run on this machine");
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorInsufficientDriver)
    return "the NVIDIA driver supports CUDA " + cuda_version(driver) +
           ", older than the CUDA runtime this build uses (" + cuda_version(runtime) +
           "): update the driver, or build with an older CUDA toolkit";
  if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0)) {
    std::string reason = "the NVIDIA driver (CUDA " + cuda_version(driver) +
                         ") is installed but finds no CUDA device";
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible != nullptr)
      reason += std::string(" (CUDA_VISIBLE_DEVICES=\"") + visible + "\" hides the others)";
    return reason;
  }
  if (status != cudaSuccess)
    return std::string("no usable CUDA device: cudaGetDeviceCount failed with ") +
           cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + "; driver CUDA " +
           cuda_version(driver) + ", runtime " + cuda_version(runtime) + ")";
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return std::string("cudaGetDevice failed");
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess)
    return std::string("cudaGetDeviceProperties failed");
  if (prop.major * 10 + prop.minor < kMinComputeCapability)
    return std::string(prop.name) + " has compute capability " + std::to_string(prop.major) +
           "." + std::to_string(prop.minor) + "; the course needs 7.5 or newer";
  return std::nullopt;
}

}  // namespace

const std::optional<std::string>& gpu_unavailable_reason() {
  static const std::optional<std::string> reason = find_unavailable_reason();
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

// The run's configuration is read once, at the first question (the tests' main() asks before
// any test runs and prints it, for the row runner to compare with what it set).
bool quick_mode() {
  static const bool quick = [] {
    const char* value = std::getenv("COURSE_QUICK");
    return value != nullptr && *value != '\0' && *value != '0';
  }();
  return quick;
}

bool sanitize_mode() {
  static const bool sanitize = [] {
    const char* value = std::getenv("COURSE_SANITIZE");
    return value != nullptr && std::string_view(value) == "1";
  }();
  return sanitize;
}

std::string_view sanitize_tool() {
  static const std::string tool = [] {
    const char* value = std::getenv("COURSE_SANITIZE_TOOL");
    return std::string(sanitize_mode() && value != nullptr ? value : "");
  }();
  return tool;
}

}  // namespace course
