// Lesson 11, the stretch rung, solved: LSD radix sort with 8-bit digits, 4 passes. Compared with
// the radix rung:
//   - half the passes, so half the traffic over the keys;
//   - one read of the keys counts the digits of all four passes at once (the global digit
//     totals do not change from pass to pass, only the keys' order does);
//   - per pass, the tile counts are scanned digit by digit, 256 blocks at once;
//   - the scatter first sorts its tile by digit in shared memory, then writes each digit's keys
//     as one run of consecutive addresses: coalesced writes, where the radix rung's warps
//     scatter their 32 keys to up to 16 places.
#include <utility>

#include "course/error.hpp"
#include "radix_device.cuh"
#include "sorting_rungs.cuh"

namespace course::lesson11 {

namespace {

constexpr int kBits = 8;
constexpr std::uint32_t kDigits = 1u << kBits;  // 256
constexpr int kPasses = 32 / kBits;             // 4
constexpr int kThreads = 256;                   // one thread per digit in the per-digit steps
constexpr int kWarps = kThreads / 32;
constexpr int kKeysPerThread = 16;
constexpr std::uint32_t kWarpKeys = 32 * kKeysPerThread;
constexpr std::uint32_t kTile = kWarps * kWarpKeys;  // 4096 keys per block
constexpr unsigned kAll = 0xFFFFFFFFu;
static_assert(kThreads == static_cast<int>(kDigits), "one thread per digit");

__device__ inline std::uint32_t digit_of(std::uint32_t key, int shift) {
  return (key >> shift) & (kDigits - 1);
}

//! [wide_upsweep_kernel]
// Digit totals of all four passes in one read of the keys: histogram[pass][digit], privatised
// per block in shared memory (shared atomics are cheap; global ones would collide across the
// whole GPU), then added to the global counts once per block.
__global__ void __launch_bounds__(kThreads)
    wide_upsweep_kernel(const std::uint32_t* __restrict__ keys, std::uint32_t n,
                        std::uint32_t* __restrict__ histogram) {
  __shared__ std::uint32_t local[kPasses][kDigits];
  for (int pass = 0; pass < kPasses; ++pass)
    local[pass][threadIdx.x] = 0;
  __syncthreads();
  for (std::uint32_t i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
    const std::uint32_t key = keys[i];
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass)
      atomicAdd(&local[pass][digit_of(key, pass * kBits)], 1u);
  }
  __syncthreads();
  for (int pass = 0; pass < kPasses; ++pass)
    if (local[pass][threadIdx.x] != 0)
      atomicAdd(&histogram[pass * kDigits + threadIdx.x], local[pass][threadIdx.x]);
}
//! [wide_upsweep_kernel]

// Turns each pass's digit totals into the digit's first output position (exclusive scan), in
// place: one block, one thread per digit.
__global__ void __launch_bounds__(kThreads) wide_digit_starts_kernel(std::uint32_t* histogram) {
  __shared__ ScanScratch scratch;
  for (int pass = 0; pass < kPasses; ++pass) {
    std::uint32_t total;
    const std::uint32_t count = histogram[pass * kDigits + threadIdx.x];
    histogram[pass * kDigits + threadIdx.x] = block_exclusive_scan(count, scratch, total);
    __syncthreads();  // before the next pass reuses the scratch
  }
}

// Per pass: how many keys of each digit each tile holds, counts[digit * tiles + tile].
__global__ void __launch_bounds__(kThreads)
    wide_tile_counts_kernel(const std::uint32_t* __restrict__ keys, std::uint32_t n, int shift,
                            std::uint32_t* __restrict__ counts, std::uint32_t tiles) {
  __shared__ std::uint32_t local[kDigits];
  local[threadIdx.x] = 0;
  __syncthreads();
  const std::uint32_t first = blockIdx.x * kTile;
#pragma unroll 4
  for (std::uint32_t i = threadIdx.x; i < kTile; i += kThreads)
    if (first + i < n)
      atomicAdd(&local[digit_of(keys[first + i], shift)], 1u);
  __syncthreads();
  counts[threadIdx.x * tiles + blockIdx.x] = local[threadIdx.x];
}

// Per pass: block d scans row d of the counts (the tiles' counts of digit d), in place, 256
// coalesced counts at a time: where each tile's keys of digit d start among all keys of d.
__global__ void __launch_bounds__(kThreads)
    wide_row_scan_kernel(std::uint32_t* __restrict__ counts, std::uint32_t tiles) {
  __shared__ ScanScratch scratch;
  std::uint32_t* row = counts + blockIdx.x * tiles;
  std::uint32_t carry = 0;
  for (std::uint32_t base = 0; base < tiles; base += kThreads) {
    const std::uint32_t i = base + threadIdx.x;
    const std::uint32_t count = i < tiles ? row[i] : 0;
    std::uint32_t total;
    const std::uint32_t before = block_exclusive_scan(count, scratch, total);
    if (i < tiles)
      row[i] = carry + before;
    carry += total;
    __syncthreads();  // before the next chunk reuses the scratch
  }
}

//! [wide_scatter_kernel]
// Per pass: rank each key among the tile's keys of its digit in input order (as in the radix
// rung, but 256 digits: eight ballots find a lane's peers, and the lowest peer updates the warp's
// count of that digit in shared memory), place the keys in shared memory sorted by digit, then
// write the tile out in that order. Thread j writes sorted key j to
// start(digit, tile) + (j - first position of the digit in the tile): consecutive threads with
// the same digit write consecutive addresses, runs of 16 keys on average.
template <bool kPairs>
__global__ void __launch_bounds__(kThreads)
    wide_scatter_kernel(const std::uint32_t* __restrict__ keys_in,
                        const std::uint32_t* __restrict__ values_in,
                        std::uint32_t* __restrict__ keys_out,
                        std::uint32_t* __restrict__ values_out, std::uint32_t n, int shift,
                        const std::uint32_t* __restrict__ counts, std::uint32_t tiles,
                        const std::uint32_t* __restrict__ digit_starts) {
  __shared__ std::uint32_t sorted_keys[kTile];
  __shared__ std::uint32_t sorted_values[kPairs ? kTile : 1];
  __shared__ std::uint32_t warp_counts[kWarps][kDigits];  // then each warp's start in the tile
  __shared__ std::uint32_t shift_out[kDigits];  // output position minus tile position, per digit
  __shared__ ScanScratch scratch;
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned lower_lanes = (1u << lane) - 1;
  const std::uint32_t tile_first = blockIdx.x * kTile;
  const std::uint32_t first = tile_first + warp * kWarpKeys;

  for (int w = 0; w < kWarps; ++w)
    warp_counts[w][threadIdx.x] = 0;
  __syncthreads();

  std::uint32_t key[kKeysPerThread], value[kKeysPerThread], rank[kKeysPerThread];
#pragma unroll
  for (int i = 0; i < kKeysPerThread; ++i) {
    const std::uint32_t index = first + i * 32 + lane;
    const bool valid = index < n;
    key[i] = valid ? keys_in[index] : 0;
    if constexpr (kPairs)
      value[i] = valid ? values_in[index] : 0;
    const std::uint32_t digit = digit_of(key[i], shift);
    unsigned peers = __ballot_sync(kAll, valid);
#pragma unroll
    for (int b = 0; b < kBits; ++b) {
      const unsigned set = __ballot_sync(kAll, ((digit >> b) & 1u) != 0);
      peers &= ((digit >> b) & 1u) != 0 ? set : ~set;
    }
    const std::uint32_t before = warp_counts[warp][digit];
    __syncwarp();  // every peer has read the count before the leader updates it
    if (valid && lane == static_cast<unsigned>(__ffs(peers) - 1))
      warp_counts[warp][digit] = before + __popc(peers);
    __syncwarp();
    rank[i] = before + __popc(peers & lower_lanes);
  }
  __syncthreads();

  //! [wide_scatter_write]
  // Thread d: the warps' starts for digit d inside the tile's digit-d run, the run's start in
  // the tile (a scan over the digits), and where the run goes in the output.
  const std::uint32_t d = threadIdx.x;
  std::uint32_t in_digit = 0;
  for (int w = 0; w < kWarps; ++w) {
    const std::uint32_t count = warp_counts[w][d];
    warp_counts[w][d] = in_digit;
    in_digit += count;
  }
  std::uint32_t tile_count;
  const std::uint32_t run_start = block_exclusive_scan(in_digit, scratch, tile_count);
  for (int w = 0; w < kWarps; ++w)
    warp_counts[w][d] += run_start;
  shift_out[d] = digit_starts[d] + counts[d * tiles + blockIdx.x] - run_start;
  __syncthreads();

#pragma unroll
  for (int i = 0; i < kKeysPerThread; ++i) {
    if (first + i * 32 + lane >= n)
      continue;
    const std::uint32_t local = warp_counts[warp][digit_of(key[i], shift)] + rank[i];
    sorted_keys[local] = key[i];
    if constexpr (kPairs)
      sorted_values[local] = value[i];
  }
  __syncthreads();

  for (std::uint32_t j = threadIdx.x; j < tile_count; j += kThreads) {
    const std::uint32_t k = sorted_keys[j];
    const std::uint32_t target = shift_out[digit_of(k, shift)] + j;
    keys_out[target] = k;
    if constexpr (kPairs)
      values_out[target] = sorted_values[j];
  }
  //! [wide_scatter_write]
}
//! [wide_scatter_kernel]

template <bool kPairs>
void radix_wide_sort(const Problem& p, Workspace& workspace, cudaStream_t stream) {
  const std::uint32_t n = p.count();
  const std::uint32_t tiles = (n + kTile - 1) / kTile;
  const std::size_t key_bytes = Carver::round_up(n * sizeof(std::uint32_t));
  Carver carve(workspace, key_bytes * (kPairs ? 2 : 1) +
                              Carver::round_up(kDigits * tiles * sizeof(std::uint32_t)) +
                              Carver::round_up(kPasses * kDigits * sizeof(std::uint32_t)));
  std::uint32_t* spare_keys = carve.take<std::uint32_t>(n);
  std::uint32_t* spare_values = kPairs ? carve.take<std::uint32_t>(n) : nullptr;
  std::uint32_t* counts = carve.take<std::uint32_t>(std::size_t{kDigits} * tiles);
  std::uint32_t* histogram = carve.take<std::uint32_t>(kPasses * kDigits);

  CUDA_CHECK(cudaMemsetAsync(histogram, 0, kPasses * kDigits * sizeof(std::uint32_t), stream));
  const unsigned upsweep_blocks = tiles < 1024 ? tiles : 1024;
  wide_upsweep_kernel<<<upsweep_blocks, kThreads, 0, stream>>>(p.keys, n, histogram);
  CUDA_CHECK_LAST();
  wide_digit_starts_kernel<<<1, kThreads, 0, stream>>>(histogram);
  CUDA_CHECK_LAST();

  std::uint32_t *keys = p.keys, *values = p.values;
  for (int pass = 0; pass < kPasses; ++pass) {
    const int shift = pass * kBits;
    wide_tile_counts_kernel<<<tiles, kThreads, 0, stream>>>(keys, n, shift, counts, tiles);
    CUDA_CHECK_LAST();
    wide_row_scan_kernel<<<kDigits, kThreads, 0, stream>>>(counts, tiles);
    CUDA_CHECK_LAST();
    wide_scatter_kernel<kPairs><<<tiles, kThreads, 0, stream>>>(keys, values, spare_keys,
                                                                spare_values, n, shift, counts,
                                                                tiles, histogram + pass * kDigits);
    CUDA_CHECK_LAST();
    std::swap(keys, spare_keys);
    std::swap(values, spare_values);
  }
  // Four passes end in the caller's arrays.
}

}  // namespace

void launch_radix_wide(const Problem& problem, Workspace& workspace, cudaStream_t stream) {
  if (problem.values != nullptr)
    radix_wide_sort<true>(problem, workspace, stream);
  else
    radix_wide_sort<false>(problem, workspace, stream);
}

}  // namespace course::lesson11
