// The L2 flush between timed repeats: a read of twice the L2's size (timer.hpp says why a read).
#include <algorithm>
#include <cstddef>

#include "course/buffer.hpp"
#include "course/error.hpp"
#include "course/gpu.hpp"
#include "course/timer.hpp"

namespace course {

namespace {

// Reads every 16 bytes of lines[0, count) once. The loads must happen, so their XOR goes to *sink,
// under a condition the compiler cannot decide (the caller passes write = false).
__global__ void read_lines(const uint4* __restrict__ lines, std::size_t count, bool write,
                           unsigned* sink) {
  unsigned acc = 0;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += threads) {
    const uint4 v = __ldcg(lines + i);  // L2 only: the L1 is not what is being flushed
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (write)
    sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

}  // namespace

void flush_l2(cudaStream_t stream) {
  constexpr int kThreads = 256;
  // Kept for the life of the process: allocating per flush would cost more than the flush. Filled
  // once, so that the reads see written memory (compute-sanitizer's initcheck).
  static const auto scratch = [] {
    DeviceBuffer<uint4> lines(std::max<std::size_t>(gpu_info().l2_bytes * 2, 1 << 20) /
                              sizeof(uint4));
    lines.fill_bytes(0x5A);
    CUDA_CHECK(cudaDeviceSynchronize());
    return lines;
  }();
  const int blocks = 4 * std::max(gpu_info().sm_count, 1);
  read_lines<<<blocks, kThreads, 0, stream>>>(scratch.data(), scratch.size(), false, nullptr);
  CUDA_CHECK_LAST();
}

}  // namespace course
