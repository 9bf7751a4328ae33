// Lesson 11, the radix rung, solved: LSD radix sort with 4-bit digits, 8 passes. Each pass
// (1) counts the digits of every tile of keys, (2) scans the counts into output offsets, and
// (3) scatters every key to its offset + its rank among the tile's keys with the same digit.
// The rank follows the input order, so each pass is stable, which is what makes LSD correct:
// pass p orders by digit p and keeps the order of the earlier, less significant, digits.
#include <utility>

#include "course/error.hpp"
#include "radix_device.cuh"
#include "sorting_rungs.cuh"

namespace course::lesson11 {

namespace {

constexpr int kBits = 4;                        // bits per digit
constexpr std::uint32_t kDigits = 1u << kBits;  // 16 digit values
constexpr int kPasses = 32 / kBits;             // 8
constexpr int kThreads = 256;                   // 8 warps
constexpr int kWarps = kThreads / 32;
constexpr int kKeysPerThread = 16;
constexpr std::uint32_t kWarpKeys = 32 * kKeysPerThread;  // each warp owns 512 consecutive keys
constexpr std::uint32_t kTile = kWarps * kWarpKeys;       // 4096 keys per block
constexpr unsigned kAll = 0xFFFFFFFFu;

//! [radix_match]
// The lanes of the warp whose digit is @p digit, from one ballot per digit bit: a lane matches
// when each of its bits agrees with the digit's. @p bits[b] holds the lanes whose bit b is set;
// @p valid the lanes holding a key.
__device__ inline unsigned lanes_with_digit(std::uint32_t digit, const unsigned (&bits)[kBits],
                                            unsigned valid) {
  unsigned lanes = valid;
#pragma unroll
  for (int b = 0; b < kBits; ++b)
    lanes &= ((digit >> b) & 1u) != 0 ? bits[b] : ~bits[b];
  return lanes;
}

// All lanes vote on each bit of their digit.
__device__ inline void ballot_digit(std::uint32_t digit, unsigned (&bits)[kBits]) {
#pragma unroll
  for (int b = 0; b < kBits; ++b)
    bits[b] = __ballot_sync(kAll, ((digit >> b) & 1u) != 0);
}
//! [radix_match]

//! [radix_histogram_kernel]
// Pass step 1: how many keys of each digit each tile holds. counts is digit-major,
// counts[d * tiles + tile], so that one exclusive scan over it gives each (digit, tile) its
// output offset: all keys of smaller digits, then this digit's keys in earlier tiles. A warp
// counts with ballots: lane d (< 16) adds up the lanes whose digit is d, no atomics at all.
__global__ void __launch_bounds__(kThreads)
    radix_histogram_kernel(const std::uint32_t* __restrict__ keys, std::uint32_t n, int shift,
                           std::uint32_t* __restrict__ counts, std::uint32_t tiles) {
  __shared__ std::uint32_t warp_counts[kWarps][kDigits];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::uint32_t first = blockIdx.x * kTile + warp * kWarpKeys;
  std::uint32_t count = 0;  // lane d < 16: keys of digit d seen by this warp
#pragma unroll 4
  for (int i = 0; i < kKeysPerThread; ++i) {
    const std::uint32_t index = first + i * 32 + lane;
    const bool valid = index < n;  // the last tile may be ragged
    const std::uint32_t digit = valid ? (keys[index] >> shift) & (kDigits - 1) : 0;
    unsigned bits[kBits];
    ballot_digit(digit, bits);
    count += __popc(lanes_with_digit(lane % kDigits, bits, __ballot_sync(kAll, valid)));
  }
  if (lane < kDigits)
    warp_counts[warp][lane] = count;
  __syncthreads();
  if (threadIdx.x < kDigits) {
    std::uint32_t sum = 0;
    for (int w = 0; w < kWarps; ++w)
      sum += warp_counts[w][threadIdx.x];
    counts[threadIdx.x * tiles + blockIdx.x] = sum;
  }
}
//! [radix_histogram_kernel]

//! [radix_scan_kernel]
// Pass step 2: exclusive scan of all 16 x tiles counts, in place, by one block of 1024 threads.
// Each thread owns a contiguous segment: it sums it, the block scans the 1024 sums, and each
// thread rewrites its segment as running offsets. The counts are few (16 per 4096 keys), so one
// block keeps up.
__global__ void __launch_bounds__(1024)
    radix_scan_kernel(std::uint32_t* __restrict__ counts, std::uint32_t total) {
  __shared__ ScanScratch scratch;
  const std::uint32_t per = (total + blockDim.x - 1) / blockDim.x;
  const std::uint32_t begin = min(threadIdx.x * per, total);
  const std::uint32_t end = min(begin + per, total);
  std::uint32_t sum = 0;
  for (std::uint32_t i = begin; i < end; ++i)
    sum += counts[i];
  std::uint32_t all;
  std::uint32_t running = block_exclusive_scan(sum, scratch, all);
  for (std::uint32_t i = begin; i < end; ++i) {
    const std::uint32_t count = counts[i];
    counts[i] = running;
    running += count;
  }
}
//! [radix_scan_kernel]

//! [radix_scatter_kernel]
// Pass step 3: each key goes to offset(digit, tile) + its rank among the tile's keys of that
// digit, counted in input order: the stable scatter. Warp w holds keys [w 512, w 512 + 512) of
// the tile, 32 at a time; within one group of 32, a key's rank is the number of lower lanes with
// its digit (ballots again); across groups, lane d keeps the running count of digit d in a
// register. Then the warps' totals are turned into each warp's start inside the tile.
template <bool kPairs>
__global__ void __launch_bounds__(kThreads)
    radix_scatter_kernel(const std::uint32_t* __restrict__ keys_in,
                         const std::uint32_t* __restrict__ values_in,
                         std::uint32_t* __restrict__ keys_out,
                         std::uint32_t* __restrict__ values_out, std::uint32_t n, int shift,
                         const std::uint32_t* __restrict__ offsets, std::uint32_t tiles) {
  //! [radix_scatter_rank]
  __shared__ std::uint32_t warp_start[kWarps][kDigits];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned lower_lanes = (1u << lane) - 1;
  const std::uint32_t first = blockIdx.x * kTile + warp * kWarpKeys;
  std::uint32_t key[kKeysPerThread], value[kKeysPerThread], rank[kKeysPerThread];
  std::uint32_t seen = 0;  // lane d < 16: keys of digit d in this warp's earlier groups
#pragma unroll
  for (int i = 0; i < kKeysPerThread; ++i) {
    const std::uint32_t index = first + i * 32 + lane;
    const bool valid = index < n;
    key[i] = valid ? keys_in[index] : 0;
    if constexpr (kPairs)
      value[i] = valid ? values_in[index] : 0;
    const std::uint32_t digit = (key[i] >> shift) & (kDigits - 1);
    unsigned bits[kBits];
    ballot_digit(digit, bits);
    const unsigned valid_lanes = __ballot_sync(kAll, valid);
    const unsigned peers = lanes_with_digit(digit, bits, valid_lanes);
    rank[i] = __shfl_sync(kAll, seen, digit) + __popc(peers & lower_lanes);
    seen += __popc(lanes_with_digit(lane % kDigits, bits, valid_lanes));
  }
  if (lane < kDigits)
    warp_start[warp][lane] = seen;
  //! [radix_scatter_rank]
  __syncthreads();
  // Thread d turns the warps' counts of digit d into their starts in the output: the tile's
  // offset for d, then warp 0's keys of digit d, then warp 1's, ...
  if (threadIdx.x < kDigits) {
    std::uint32_t start = offsets[threadIdx.x * tiles + blockIdx.x];
    for (int w = 0; w < kWarps; ++w) {
      const std::uint32_t count = warp_start[w][threadIdx.x];
      warp_start[w][threadIdx.x] = start;
      start += count;
    }
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kKeysPerThread; ++i) {
    if (first + i * 32 + lane >= n)
      continue;
    const std::uint32_t digit = (key[i] >> shift) & (kDigits - 1);
    const std::uint32_t target = warp_start[warp][digit] + rank[i];
    keys_out[target] = key[i];
    if constexpr (kPairs)
      values_out[target] = value[i];
  }
}
//! [radix_scatter_kernel]

template <bool kPairs>
void radix_sort(const Problem& p, Workspace& workspace, cudaStream_t stream) {
  const std::uint32_t n = p.count();
  const std::uint32_t tiles = (n + kTile - 1) / kTile;
  const std::size_t total = kDigits * tiles;
  Carver carve(workspace, Carver::round_up(n * sizeof(std::uint32_t)) * (kPairs ? 2 : 1) +
                              Carver::round_up(total * sizeof(std::uint32_t)));
  std::uint32_t* spare_keys = carve.take<std::uint32_t>(n);
  std::uint32_t* spare_values = kPairs ? carve.take<std::uint32_t>(n) : nullptr;
  std::uint32_t* counts = carve.take<std::uint32_t>(total);

  // Ping-pong between the caller's arrays and the spare ones; an even number of passes ends
  // where it started.
  std::uint32_t *keys = p.keys, *values = p.values;
  for (int pass = 0; pass < kPasses; ++pass) {
    const int shift = pass * kBits;
    radix_histogram_kernel<<<tiles, kThreads, 0, stream>>>(keys, n, shift, counts, tiles);
    CUDA_CHECK_LAST();
    radix_scan_kernel<<<1, 1024, 0, stream>>>(counts, static_cast<std::uint32_t>(total));
    CUDA_CHECK_LAST();
    radix_scatter_kernel<kPairs><<<tiles, kThreads, 0, stream>>>(
        keys, values, spare_keys, spare_values, n, shift, counts, tiles);
    CUDA_CHECK_LAST();
    std::swap(keys, spare_keys);
    std::swap(values, spare_values);
  }
  if (keys != p.keys) {
    CUDA_CHECK(
        cudaMemcpyAsync(p.keys, keys, n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
    if constexpr (kPairs)
      CUDA_CHECK(cudaMemcpyAsync(p.values, values, n * sizeof(std::uint32_t),
                                 cudaMemcpyDeviceToDevice, stream));
  }
}

}  // namespace

void launch_radix(const Problem& problem, Workspace& workspace, cudaStream_t stream) {
  if (problem.values != nullptr)
    radix_sort<true>(problem, workspace, stream);
  else
    radix_sort<false>(problem, workspace, stream);
}

}  // namespace course::lesson11
