/// @file
/// @brief Lesson 11's given device helper for the radix rungs: an exclusive scan across a block
/// (lesson 10 builds scans step by step; here it is a tool).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace course::lesson11 {

/// Shared memory block_exclusive_scan() needs: one word per warp and one for the total.
struct ScanScratch {
  std::uint32_t warp[33];  ///< per-warp sums, then their exclusive prefix; [32] the block's total
};

/// The exclusive prefix sum of @p x over the threads of the block (in threadIdx.x order), and in
/// @p total the sum of all. Every thread of the block must call it (it has barriers); blockDim.x
/// is a multiple of 32, at most 1024. @p scratch may be reused after the next __syncthreads().
__device__ inline std::uint32_t block_exclusive_scan(std::uint32_t x, ScanScratch& scratch,
                                                     std::uint32_t& total) {
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned warps = blockDim.x / 32;
  // Inclusive scan inside each warp (Kogge-Stone with shuffles: no shared memory, no barrier).
  std::uint32_t inclusive = x;
  for (unsigned offset = 1; offset < 32; offset <<= 1) {
    const std::uint32_t below = __shfl_up_sync(0xFFFFFFFFu, inclusive, offset);
    if (lane >= offset)
      inclusive += below;
  }
  if (lane == 31)
    scratch.warp[warp] = inclusive;
  __syncthreads();
  // The first warp scans the warps' sums.
  if (warp == 0) {
    const std::uint32_t sum = lane < warps ? scratch.warp[lane] : 0;
    std::uint32_t running = sum;
    for (unsigned offset = 1; offset < 32; offset <<= 1) {
      const std::uint32_t below = __shfl_up_sync(0xFFFFFFFFu, running, offset);
      if (lane >= offset)
        running += below;
    }
    scratch.warp[lane] = running - sum;
    if (lane == 31)
      scratch.warp[32] = running;
  }
  __syncthreads();
  total = scratch.warp[32];
  return scratch.warp[warp] + inclusive - x;
}

}  // namespace course::lesson11
