// COURSE_CHECK_UNCHANGED (course/testing.hpp): an input the interface declares const must hold,
// after the launcher ran, exactly the bytes the test uploaded.
#include <cstring>
#include <sstream>
#include <vector>

#include <cuda_runtime.h>

#include "course/compare.hpp"
#include "course/error.hpp"

namespace course {

std::string changed_input_bytes(const void* device, const void* host, std::size_t bytes,
                                std::size_t element_bytes, std::string_view name) {
  if (bytes == 0)
    return {};
  // cudaMemcpyDefault: the input may be device memory, or host memory for a trip that starts
  // on the host. The copy waits for the launcher's work on every stream (a blocking copy).
  std::vector<unsigned char> now(bytes);
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(now.data(), device, bytes, cudaMemcpyDefault));
  if (std::memcmp(now.data(), host, bytes) == 0)
    return {};
  const auto* before = static_cast<const unsigned char*>(host);
  std::size_t changed = 0, first = 0;
  for (std::size_t i = 0; i < bytes; i += element_bytes) {
    if (std::memcmp(now.data() + i, before + i, element_bytes) != 0 && changed++ == 0)
      first = i / element_bytes;
  }
  std::ostringstream out;
  out << "the launcher wrote its input " << name
      << ", which the interface declares const: " << changed << " of " << bytes / element_bytes
      << " elements changed, the first at index " << first;
  return out.str();
}

}  // namespace course
