// Lesson 11, the stretch rung, solved: LSD radix sort with 8-bit digits, 4 passes. Compared with
// the radix rung:
//   - half the passes, so half the traffic over the keys;
//   - one read of the keys counts the digits of all four passes at once (the global digit
//     totals do not change from pass to pass, only the keys' order does);
//   - one kernel per pass, which reads the keys once ("one sweep"): a tile counts its digits,
//     publishes the counts at once, ranks its keys, and finds where its keys of each digit go by
//     looking back at the counts of the tiles before it (lesson 10's decoupled look-back, one
//     look-back per digit), instead of a count kernel, a scan kernel and a scatter kernel that
//     read the keys twice;
//   - the tile is sorted by digit in shared memory, then each digit's keys leave as one run of
//     consecutive addresses: coalesced writes, where the radix rung's warps scatter their 32
//     keys to up to 16 places.
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
constexpr int kKeysPerThread = 24;
constexpr std::uint32_t kWarpKeys = 32 * kKeysPerThread;
constexpr std::uint32_t kTile = kWarps * kWarpKeys;  // 6144 keys per tile
constexpr std::uint32_t kUpsweepTile = 4096;         // keys per block of the upsweep
constexpr unsigned kAll = 0xFFFFFFFFu;
static_assert(kThreads == static_cast<int>(kDigits), "one thread per digit");

// A look-back word: one digit's count in one tile, and what the count covers, in one 32-bit word
// so that a reader never sees a flag without its count. 0: not published yet.
constexpr std::uint32_t kAggregate = 1u << 30;        // the keys of this tile alone
constexpr std::uint32_t kPrefix = 1u << 31;           // the keys of tiles 0 .. this one
constexpr std::uint32_t kCountMask = kAggregate - 1;  // counts < 2^30 (n <= 2^24)

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

//! [lanes_with_digit]
// The lanes of the warp whose digit equals this lane's: eight ballots, one per bit of the digit,
// each keeping the lanes that agree with this lane on that bit (the ballot, or its complement
// when this lane's bit is 0). Written in PTX so that each bit costs four instructions, the
// complement a predicated `not`, as CUB's ranking writes it: written in C++, the compiler spent
// twice as many on the select, and a sort of 2^24 keys on an H200 took 12 % longer (0.530 against
// 0.474 ms). __match_any_sync finds the same lanes in one instruction that costs far more than
// eight ballots: with it the sort took 1.7 times as long (0.80 against 0.47 ms, a benchmark).
__device__ inline unsigned lanes_with_digit(std::uint32_t digit) {
  unsigned peers = kAll;
#pragma unroll
  for (int b = 0; b < kBits; ++b) {
    unsigned agree;
    asm("{\n"
        "  .reg .pred p;\n"
        "  and.b32 %0, %1, %2;\n"
        "  setp.ne.u32 p, %0, 0;\n"
        "  vote.sync.ballot.b32 %0, p, 0xffffffff;\n"
        "  @!p not.b32 %0, %0;\n"
        "}\n"
        : "=r"(agree)
        : "r"(digit), "r"(1u << b));
    peers &= agree;
  }
  return peers;
}
//! [lanes_with_digit]

//! [wide_scatter_kernel]
// One pass, one tile per block: kThreads x kKeysPerThread keys, warp-striped (key i of lane l in
// warp w is key w * kWarpKeys + i * 32 + l of the tile, so (warp, i, lane) is input order).
//   1. the tile's number from a counter, not from blockIdx.x: a tile then only ever waits for
//      tiles that started before it, which are running or done (blocks may start in any order);
//   2. each warp counts its keys per digit (shared atomics); thread d adds digit d's counts and
//      publishes them at once, so that the tiles after this one can go on;
//   3. where each digit's run starts in the sorted tile (a scan over the digits);
//   4. ranks: the lanes of a warp holding the same digit (eight ballots), the highest of them
//      adds their number to the warp's position for that digit; a warp's shared atomics take
//      effect in the order it issues them, so earlier keys rank lower: the sort is stable;
//   5. the keys, sorted by digit, in shared memory;
//   6. thread d looks back over the tiles before this one for digit d until it meets a prefix;
//   7. sorted key j goes to (digit's start) + (earlier tiles' keys of the digit) + (j - the
//      digit's run start in the tile): each digit's keys leave as one run of consecutive addresses.
// A last tile that is short is filled with 0xFFFFFFFF: digit 255 in every pass, ranked after
// every real key, so its fillers are exactly positions j >= the tile's real keys, never stored.
template <bool kPairs>
__global__ void __launch_bounds__(kThreads, 3)
    wide_scatter_kernel(const std::uint32_t* __restrict__ keys_in,
                        const std::uint32_t* __restrict__ values_in,
                        std::uint32_t* __restrict__ keys_out,
                        std::uint32_t* __restrict__ values_out, std::uint32_t n, int shift,
                        const std::uint32_t* __restrict__ digit_starts, std::uint32_t* lookback,
                        std::uint32_t* tile_counter) {
  __shared__ union {
    std::uint32_t warp_offsets[kWarps][kDigits];  // counts, then positions (steps 2 to 4)
    std::uint32_t sorted[kTile];                  // the tile by digit (steps 5 to 7)
  } s;
  __shared__ std::uint32_t shift_out[kDigits];  // output position minus tile position, per digit
  __shared__ ScanScratch scratch;
  __shared__ std::uint32_t tile_slot;
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, d = threadIdx.x;

  if (threadIdx.x == 0)
    tile_slot = atomicAdd(tile_counter, 1u);
  for (int w = 0; w < kWarps; ++w)
    s.warp_offsets[w][d] = 0;
  __syncthreads();
  const std::uint32_t tile = tile_slot;
  const std::uint32_t tile_first = tile * kTile;
  const std::uint32_t tile_keys = min(n - tile_first, kTile);
  const bool full = tile_keys == kTile;
  const std::uint32_t first = tile_first + warp * kWarpKeys + lane;
  std::uint32_t key[kKeysPerThread];
#pragma unroll
  for (int i = 0; i < kKeysPerThread; ++i) {
    key[i] = full || first + i * 32 < n ? keys_in[first + i * 32] : 0xFFFFFFFFu;
  }

  // 2. Count, and publish this tile's counts before anything else: the tiles after it wait for
  // them. Tile 0 has no tiles before it: its counts are already prefixes.
#pragma unroll
  for (int i = 0; i < kKeysPerThread; ++i)
    atomicAdd(&s.warp_offsets[warp][digit_of(key[i], shift)], 1u);
  __syncthreads();
  std::uint32_t count = 0;
  for (int w = 0; w < kWarps; ++w) {  // warp w's keys of digit d start after the warps before it
    const std::uint32_t c = s.warp_offsets[w][d];
    s.warp_offsets[w][d] = count;
    count += c;
  }
  volatile std::uint32_t* const words = lookback;  // read by other blocks while they run
  words[tile * kDigits + d] = (tile == 0 ? kPrefix : kAggregate) | count;

  // 3. Runs in the tile.
  std::uint32_t tile_count;
  const std::uint32_t run_start = block_exclusive_scan(count, scratch, tile_count);
  for (int w = 0; w < kWarps; ++w)
    s.warp_offsets[w][d] += run_start;
  __syncthreads();

  // 4. Ranks: the lanes whose digit equals this lane's (peers), the highest of them adds their
  // number to the warp's position for the digit, and each peer takes its place among them.
  const unsigned lanes_up_to_me = 0xFFFFFFFFu >> (31 - lane);
  std::uint32_t rank[kKeysPerThread];
#pragma unroll
  for (int i = 0; i < kKeysPerThread; ++i) {
    const std::uint32_t digit = digit_of(key[i], shift);
    const unsigned peers = lanes_with_digit(digit);
    const int highest = 31 - __clz(peers);
    const std::uint32_t upto = __popc(peers & lanes_up_to_me);  // the highest's: all its peers
    std::uint32_t base = 0;
    if (static_cast<int>(lane) == highest)
      base = atomicAdd(&s.warp_offsets[warp][digit], upto);
    rank[i] = __shfl_sync(kAll, base, highest) + upto - 1;
  }
  __syncthreads();  // every rank taken before the sorted keys overwrite the positions

  // 5. The tile, sorted by digit.
#pragma unroll
  for (int i = 0; i < kKeysPerThread; ++i)
    s.sorted[rank[i]] = key[i];

  //! [wide_scatter_lookback]
  // 6. Decoupled look-back for digit d: add the earlier tiles' counts, nearest first, until a
  // prefix (which already holds every tile before it); a word still 0 is read again. Then this
  // tile's own prefix, for the tiles after it.
  std::uint32_t before = 0;
  if (tile > 0) {
    for (std::uint32_t t = tile - 1;; --t) {
      std::uint32_t word;
      do
        word = words[t * kDigits + d];
      while (word == 0);
      before += word & kCountMask;
      if ((word & kPrefix) != 0)
        break;
    }
    words[tile * kDigits + d] = kPrefix | (before + count);
  }
  shift_out[d] = digit_starts[d] + before - run_start;
  __syncthreads();
  //! [wide_scatter_lookback]

  // 7. Consecutive threads take consecutive sorted keys: within a digit's run, consecutive
  // addresses.
  std::uint32_t digit_at[kPairs ? kKeysPerThread : 1];
#pragma unroll
  for (int i = 0; i < kKeysPerThread; ++i) {
    const std::uint32_t j = i * kThreads + threadIdx.x;
    const std::uint32_t k = s.sorted[j];
    const std::uint32_t digit = digit_of(k, shift);
    if constexpr (kPairs)
      digit_at[i] = digit;
    if (full || j < tile_keys)
      keys_out[shift_out[digit] + j] = k;
  }
  if constexpr (kPairs) {
    // The values follow their keys through the same positions; loaded only now, so that they
    // hold no registers while the keys rank.
    std::uint32_t value[kKeysPerThread];
#pragma unroll
    for (int i = 0; i < kKeysPerThread; ++i)
      value[i] = full || first + i * 32 < n ? values_in[first + i * 32] : 0u;
    __syncthreads();  // every sorted key read before the values take their place
#pragma unroll
    for (int i = 0; i < kKeysPerThread; ++i)
      s.sorted[rank[i]] = value[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kKeysPerThread; ++i) {
      const std::uint32_t j = i * kThreads + threadIdx.x;
      if (full || j < tile_keys)
        values_out[shift_out[digit_at[i]] + j] = s.sorted[j];
    }
  }
}
//! [wide_scatter_kernel]

template <bool kPairs>
void radix_wide_sort(const Problem& p, Workspace& workspace, cudaStream_t stream) {
  const std::uint32_t n = p.count();
  const std::uint32_t tiles = (n + kTile - 1) / kTile;
  const std::size_t key_bytes = Carver::round_up(n * sizeof(std::uint32_t));
  // The digit totals, the passes' tile counters and their look-back words lie together, so that
  // one memset clears them all: every sort starts from nothing left by the sort before.
  const std::size_t histogram_bytes = kPasses * kDigits * sizeof(std::uint32_t);
  const std::size_t counter_bytes = kPasses * sizeof(std::uint32_t);
  const std::size_t lookback_bytes = std::size_t{kPasses} * tiles * kDigits * sizeof(std::uint32_t);
  const std::size_t state_bytes = histogram_bytes + counter_bytes + lookback_bytes;
  Carver carve(workspace, key_bytes * (kPairs ? 2 : 1) + Carver::round_up(state_bytes));
  std::uint32_t* spare_keys = carve.take<std::uint32_t>(n);
  std::uint32_t* spare_values = kPairs ? carve.take<std::uint32_t>(n) : nullptr;
  std::uint32_t* histogram = carve.take<std::uint32_t>(state_bytes / sizeof(std::uint32_t));
  std::uint32_t* tile_counters = histogram + kPasses * kDigits;
  std::uint32_t* lookback = tile_counters + kPasses;

  CUDA_CHECK(cudaMemsetAsync(histogram, 0, state_bytes, stream));
  const std::uint32_t upsweep_tiles = (n + kUpsweepTile - 1) / kUpsweepTile;
  const unsigned upsweep_blocks = upsweep_tiles < 1024 ? upsweep_tiles : 1024;
  wide_upsweep_kernel<<<upsweep_blocks, kThreads, 0, stream>>>(p.keys, n, histogram);
  CUDA_CHECK_LAST();
  wide_digit_starts_kernel<<<1, kThreads, 0, stream>>>(histogram);
  CUDA_CHECK_LAST();

  std::uint32_t *keys = p.keys, *values = p.values;
  for (int pass = 0; pass < kPasses; ++pass) {
    wide_scatter_kernel<kPairs><<<tiles, kThreads, 0, stream>>>(
        keys, values, spare_keys, spare_values, n, pass * kBits, histogram + pass * kDigits,
        lookback + static_cast<std::size_t>(pass) * tiles * kDigits, tile_counters + pass);
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
