// Lesson 09, the given code: the first rung (PMPP's basic histogram kernel), and the helpers the
// other rungs use: the resident-block count and the scratch memory.
#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "course/buffer.hpp"
#include "course/error.hpp"
#include "course/gpu.hpp"
#include "histogram_rungs.cuh"

namespace course::lesson09 {

namespace {

//! [atomic_global_kernel]
// One thread per byte. A letter's thread adds 1 to its bin in global memory with atomicAdd: the
// read-modify-write happens in one indivisible step in the L2 cache, so two threads that count
// into the same bin at once cannot lose an update. But all 7 bins sit in one 32-byte sector, and
// atomics on one address are done one after the other: millions of threads queue up at 7
// counters. Correct, and as slow as that sounds.
__global__ void atomic_global_kernel(const unsigned char* __restrict__ text, std::size_t n,
                                     std::uint32_t* __restrict__ bins) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const int bin = letter_bin(text[i]);
    if (bin >= 0)
      atomicAdd(&bins[bin], 1u);
  }
}
//! [atomic_global_kernel]

std::mutex mutex;

}  // namespace

unsigned resident_blocks(const void* kernel, int block) {
  const std::lock_guard lock(mutex);
  static std::map<std::pair<const void*, int>, unsigned> known;
  const auto key = std::make_pair(kernel, block);
  if (const auto found = known.find(key); found != known.end())
    return found->second;
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
  const unsigned blocks = static_cast<unsigned>(std::max(1, per_sm * gpu_info().sm_count));
  known.emplace(key, blocks);
  return blocks;
}

std::uint32_t* workspace(std::size_t count) {
  const std::lock_guard lock(mutex);
  static DeviceBuffer<std::uint32_t> buffer;
  if (buffer.size() < count)
    buffer = DeviceBuffer<std::uint32_t>(count);
  return buffer.data();
}

void launch_atomic_global(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                          int block, cudaStream_t stream) {
  atomic_global_kernel<<<blocks_for(n, block), block, 0, stream>>>(d_text, n, d_bins);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson09
