/// @file
/// @brief Errors that throw: CUDA failures, bad arguments, rungs not yet written.
///
/// Library code never calls exit(): a failure becomes an exception that doctest reports
/// against the test that caused it, while the other tests go on.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace course {

/// A CUDA runtime call failed. what() names the call, the file and line, and CUDA's message.
class CudaError : public std::runtime_error {
 public:
  /// @param code CUDA's error; @param expression the failing call, as written;
  /// @param file, line where it was made.
  CudaError(cudaError_t code, const char* expression, const char* file, int line);
  /// The CUDA error code returned by the failing call.
  [[nodiscard]] cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/// Thrown by a skeleton's exercise rung until the student writes it.
/// Its message always starts with "not implemented", which the grader and tests look for.
class NotImplemented : public std::logic_error {
 public:
  /// @param rung the rung's name, e.g. "tiled"; @param where the file the student should edit.
  NotImplemented(const std::string& rung, const std::string& where);
};

/// Thrown for a rung this GPU or this build cannot run (an instruction the GPU lacks, code not
/// compiled for it). Its message says why; tests report such a rung SKIPPED, never failed, and
/// demos print the reason in the row.
class Unsupported : public std::runtime_error {
 public:
  /// @param rung the rung's name; @param why what the GPU or the build lacks.
  Unsupported(const std::string& rung, const std::string& why);
};

/// Throws CudaError; used by CUDA_CHECK.
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expression, const char* file,
                                   int line);

/// Throws std::invalid_argument(message) unless @p condition holds. Launchers validate every
/// argument with it before touching the GPU, so a bad call never launches a kernel.
inline void require(bool condition, const std::string& message) {
  if (!condition) throw std::invalid_argument(message);
}

}  // namespace course

/// Checks a CUDA runtime call; throws course::CudaError on failure.
#define CUDA_CHECK(expression)                                                       \
  do {                                                                               \
    const cudaError_t course_status_ = (expression);                                 \
    if (course_status_ != cudaSuccess)                                               \
      ::course::throw_cuda_error(course_status_, #expression, __FILE__, __LINE__);   \
  } while (0)

/// Checks the launch just made (bad configuration, missing kernel image); use after every <<<>>>.
#define CUDA_CHECK_LAST() CUDA_CHECK(cudaGetLastError())
