// Lesson 00: checks the arguments once, then hands the call to the rung's launcher.
#include <string>

#include "course/error.hpp"
#include "debugging.cuh"
#include "debugging_rungs.cuh"

namespace course::lesson00 {

namespace {

void require_length(const char* what, std::size_t n) {
  require(n <= kMaxLength, std::string(what) + ": n must be at most 2^28 = " +
                               std::to_string(kMaxLength) + " elements");
}

// Checks an out-of-place call that reads n floats at d_in and writes outputs floats at d_out.
void require_buffers(const char* what, const float* d_in, const float* d_out, std::size_t n,
                     std::size_t outputs) {
  require(d_in != nullptr && d_out != nullptr,
          std::string(what) + ": d_in and d_out must be device pointers");
  require(d_in + n <= d_out || d_out + outputs <= d_in,
          std::string(what) + ": d_in and d_out overlap; the call is out of place");
}

// An array-to-array call: checks n and the buffers, then launches unless there is nothing to do.
void checked_launch(const char* what, const float* d_in, float* d_out, std::size_t n,
                    std::size_t outputs, cudaStream_t stream,
                    void (*launch)(const float*, float*, int, cudaStream_t)) {
  require_length(what, n);
  if (n == 0)
    return;
  require_buffers(what, d_in, d_out, n, outputs);
  launch(d_in, d_out, static_cast<int>(n), stream);
}

}  // namespace

void count_positive(const float* d_in, std::int32_t* d_count, std::size_t n, cudaStream_t stream) {
  require_length("count_positive", n);
  require(d_count != nullptr, "count_positive: d_count must be a device pointer");
  if (n == 0) {
    CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(std::int32_t), stream));
    return;
  }
  require(d_in != nullptr, "count_positive: d_in must be a device pointer");
  const auto* count_bytes = reinterpret_cast<const unsigned char*>(d_count);
  const auto* in_bytes = reinterpret_cast<const unsigned char*>(d_in);
  require(
      count_bytes + sizeof(std::int32_t) <= in_bytes || in_bytes + n * sizeof(float) <= count_bytes,
      "count_positive: d_count lies inside d_in");
  launch_count(d_in, d_count, static_cast<int>(n), stream);
}

void downsample(const float* d_in, float* d_out, std::size_t n, cudaStream_t stream) {
  checked_launch("downsample", d_in, d_out, n, downsampled_length(n), stream, launch_downsample);
}

void reverse(const float* d_in, float* d_out, std::size_t n, cudaStream_t stream) {
  checked_launch("reverse", d_in, d_out, n, n, stream, launch_reverse);
}

void smooth(const float* d_in, float* d_out, std::size_t n, cudaStream_t stream) {
  checked_launch("smooth", d_in, d_out, n, n, stream, launch_smooth);
}

}  // namespace course::lesson00
