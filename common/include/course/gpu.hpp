/// @file
/// @brief Is there a GPU to run on, and what is it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace course {

/// The properties of the current device that the harness and the lessons use.
struct GpuInfo {
  int device = 0;               ///< CUDA device ordinal
  std::string name;             ///< e.g. "NVIDIA H100 80GB HBM3"
  int major = 0;                ///< compute capability, major
  int minor = 0;                ///< compute capability, minor
  int sm_count = 0;             ///< streaming multiprocessors
  std::size_t l2_bytes = 0;     ///< L2 cache size
  std::size_t memory_bytes = 0; ///< global memory size
  std::size_t shared_per_block_optin = 0;  ///< shared memory a block may opt in to
};

/// The lowest compute capability the course supports (Turing, 7.5).
inline constexpr int kMinComputeCapability = 75;

/// Why kernels cannot run here (no driver, no device, too old a device), or nothing if they can.
/// Cached after the first call.
[[nodiscard]] const std::optional<std::string>& gpu_unavailable_reason();

/// The current device's properties. Throws course::CudaError when there is no usable GPU.
[[nodiscard]] const GpuInfo& gpu_info();

/// One line: "NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs, 50 MB L2, 80 GB)".
[[nodiscard]] std::string describe(const GpuInfo& info);

/// True when $COURSE_QUICK is set (the sanitizer runs): tests skip their largest sizes.
[[nodiscard]] bool quick_mode();

/// True when $COURSE_SANITIZE is 1 (a run under compute-sanitizer): every test buffer ends where
/// its data ends, with no guard or trap values after it, so that memcheck sees a read or write
/// past the end; and shared memory is not poisoned (racecheck would track every poisoning store).
[[nodiscard]] bool sanitize_mode();

/// The compute-sanitizer tool the test runs under ($COURSE_SANITIZE_TOOL: memcheck, racecheck,
/// synccheck or initcheck), or "" outside the sanitizer runs. racecheck tracks every
/// shared-memory access, a hundred times slower than memcheck: tests give it fewer cases.
[[nodiscard]] std::string_view sanitize_tool();

}  // namespace course
