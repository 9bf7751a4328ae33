// What the GPU and this build can run (course/capability.hpp).
#include "course/capability.hpp"

#include <cuda_runtime.h>

#include "course/error.hpp"
#include "course/gpu.hpp"

namespace course {

namespace {

// Compiled for the build's architectures, as every lesson file is: what it was built for is what
// the lessons' kernels were built for. cudaFuncGetAttributes reports the PTX version of the code
// the driver runs on this GPU.
__global__ void probe_kernel() {}

int capability_of(const GpuInfo& gpu) {
  return gpu.major * 10 + gpu.minor;
}

std::string here(const GpuInfo& gpu) {
  return gpu.name + " is compute capability " + capability_text(capability_of(gpu));
}

}  // namespace

int built_for() {
  static const int version = [] {
    cudaFuncAttributes attributes{};
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, probe_kernel));
    return attributes.ptxVersion;  // e.g. 90; 75 for PTX of 7.5 compiled at load time
  }();
  return version;
}

std::string capability_text(int capability) {
  return std::to_string(capability / 10) + "." + std::to_string(capability % 10);
}

std::optional<std::string> needs_capability(int needed, std::string_view what,
                                            std::string_view lacks) {
  const GpuInfo& gpu = gpu_info();
  const int capability = capability_of(gpu);
  if (capability < needed)
    return std::string(what) + " need compute capability " + capability_text(needed) + "; " +
           here(gpu);
  if (built_for() < needed)
    return "this build's GPU code is for compute capability " + capability_text(built_for()) +
           ", which has no " + std::string(lacks) +
           "; configure with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(capability);
  return std::nullopt;
}

std::optional<std::string> needs_sm90a(std::string_view rung, std::string_view file, bool compiled,
                                       std::string_view architectures) {
  const GpuInfo& gpu = gpu_info();
  if (capability_of(gpu) != 90)
    return std::string(rung) +
           " uses Hopper's own instructions (wgmma, setmaxnreg: compute capability 9.0, code "
           "compiled for sm_90a); " +
           here(gpu);
  if (!compiled)
    return "this build has no " + std::string(rung) + " rung: " + std::string(file) +
           " is compiled for sm_90a only when CMAKE_CUDA_ARCHITECTURES includes 90 (it is " +
           std::string(architectures) + "); configure with -DCMAKE_CUDA_ARCHITECTURES=90";
  return std::nullopt;
}

}  // namespace course
