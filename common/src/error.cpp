#include "course/error.hpp"

#include <string>

namespace course {

namespace {
std::string describe(cudaError_t code, const char* expression, const char* file, int line) {
  return std::string("CUDA error ") + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) +
         ") in " + expression + " at " + file + ":" + std::to_string(line);
}
}  // namespace

CudaError::CudaError(cudaError_t code, const char* expression, const char* file, int line)
    : std::runtime_error(describe(code, expression, file, line)), code_(code) {}

NotImplemented::NotImplemented(const std::string& rung, const std::string& where)
    : std::logic_error("not implemented: rung '" + rung + "' (write it in " + where + ")") {}

Unsupported::Unsupported(const std::string& rung, const std::string& why)
    : std::runtime_error("unsupported: rung '" + rung + "' cannot run here: " + why) {}

void throw_cuda_error(cudaError_t code, const char* expression, const char* file, int line) {
  // CUDA also keeps the error as its "last error", which the next CUDA_CHECK_LAST() would report
  // again, against an innocent launch. Reading it clears it (a sticky error stays sticky).
  (void)cudaGetLastError();
  throw CudaError(code, expression, file, line);
}

}  // namespace course
