// Lesson 10, the stretch rung solved: a single-pass scan with decoupled look-back (Merrill and
// Garland, 2016), the algorithm of CUB's DeviceScan. Reads the input once and writes the output
// once: 8 bytes per element, against hierarchical's 16 or more.
#include <cuda/atomic>

#include "course/error.hpp"
#include "scan_rungs.cuh"

namespace course::lesson10 {

namespace {

//! [single_pass_kernel]
// A tile of kTile = kThreads x kItems consecutive elements per block. Each warp owns kItems x 32
// consecutive elements of its tile.
constexpr int kThreads = 128;
constexpr int kItems = 32;
constexpr int kWarps = kThreads / 32;
constexpr int kWarpItems = 32 * kItems;
constexpr int kTile = kThreads * kItems;
constexpr unsigned kFullMask = 0xffffffffu;

// A tile's status: the flag and the value in one 64-bit word, so that a reader who sees the flag
// sees the value that goes with it (one aligned 64-bit store is seen whole or not at all). That is
// why relaxed atomics are enough here: no other memory is published through the flag. Were flag
// and value two words, the writer would need a release store of the flag (or __threadfence()
// between the two stores) and the reader an acquire load.
enum : unsigned {
  kInvalid = 0,    // nothing published yet (the memset before the launch)
  kAggregate = 1,  // value = the sum of this tile alone
  kPrefix = 2,     // value = the sum of this tile and every tile before it
};
using Status = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

template <class T>
__device__ unsigned long long pack(unsigned flag, T value) {
  unsigned bits;
  static_assert(sizeof(T) == sizeof(bits));
  memcpy(&bits, &value, sizeof bits);
  return (static_cast<unsigned long long>(flag) << 32) | bits;
}
template <class T>
__device__ T value_of(unsigned long long word) {
  const auto bits = static_cast<unsigned>(word);
  T value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

// Shared-memory index with one padding word per 32. A warp reading kItems = 32 consecutive words
// per lane (lane l from 32 l) then hits 32 different banks: word 32 l + k lies at 33 l + k, bank
// (l + k) % 32; the warp-striped stores (word 32 k + l, at 33 k + l) are conflict-free too.
__device__ inline unsigned padded(unsigned index) {
  return index + index / 32;
}

// Warp 0 of tile `tile` (> 0) finds the sum of every tile before it. Lane l looks at tile
// tile - 1 - l: 32 predecessors at once, nearest first. Once none of them is invalid, the lanes up
// to the nearest one with a prefix add their values (aggregates, and that prefix); if no lane
// found a prefix, the window moves 32 tiles further back. Every predecessor publishes its
// aggregate without waiting for anyone, and tile ids are handed out in launch order (an atomic
// counter), so every tile waited for has a running block: no deadlock.
//
// A window that still holds an invalid predecessor is polled again only after a pause. Without
// it, the waiting warps of every resident block (up to ~1200 on an H100) read the same few
// status lines of the newest tiles back to back, and those requests queue at the one or two L2
// slices that hold them, in front of the DRAM traffic the loads and stores of every block need.
// The pauses are CUB's for sm_90 (its fixed delay constructor for 4-byte scans).
constexpr unsigned kFirstPollDelayNs = 1140;  // after publishing the aggregate
constexpr unsigned kPollDelayNs = 688;        // between two polls of a window not yet valid

// One lane's poll: its predecessor's status word. Lanes past tile 0 read as "prefix 0": they
// never count, as tile 0 is always a prefix.
template <class T>
__device__ unsigned long long poll(unsigned long long* status, long long predecessor) {
  return predecessor >= 0 ? Status(status[predecessor]).load(cuda::memory_order_relaxed)
                          : pack(kPrefix, T{0});
}

//! [single_pass_look_back]
template <class T>
__device__ T look_back(unsigned long long* status, unsigned tile, unsigned lane) {
  T exclusive{0};
  for (long long window = static_cast<long long>(tile) - 1;; window -= 32) {
    const long long predecessor = window - lane;
    unsigned long long word = poll<T>(status, predecessor);
    while (__any_sync(kFullMask, (word >> 32) == kInvalid)) {
      __nanosleep(kPollDelayNs);
      word = poll<T>(status, predecessor);
    }
    const unsigned prefixes = __ballot_sync(kFullMask, (word >> 32) == kPrefix);
    const unsigned last = prefixes != 0 ? __ffs(prefixes) - 1 : 31;
    T v = lane <= last ? value_of<T>(word) : T{0};
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
      v += __shfl_down_sync(kFullMask, v, offset);
    exclusive += __shfl_sync(kFullMask, v, 0);
    if (prefixes != 0)
      return exclusive;
  }
}
//! [single_pass_look_back]

template <class T>
__global__ void __launch_bounds__(kThreads)
    single_pass_kernel(const T* in, T* out, std::size_t n, bool exclusive,
                       unsigned long long* state) {
  __shared__ T staging[kWarps][kWarpItems + kWarpItems / 32];
  __shared__ T warp_totals[kWarps];
  __shared__ T tile_exclusive;
  __shared__ unsigned tile_shared;
  unsigned long long* const counter = state;
  unsigned long long* const status = state + 1;
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;

  // Tiles in the order blocks start, not blockIdx order: a block only ever waits for tiles that
  // blocks already running have claimed.
  if (threadIdx.x == 0)
    tile_shared = static_cast<unsigned>(atomicAdd(counter, 1ull));
  __syncthreads();
  const unsigned tile = tile_shared;
  const std::size_t warp_start = static_cast<std::size_t>(tile) * kTile + warp * kWarpItems;
  const bool full = warp_start + kWarpItems <= n;
  T* const stage = staging[warp];

  // Load: warp-striped (lane l takes elements l, l + 32, ...: every load instruction of the warp
  // reads 128 consecutive bytes), then transposed through shared memory so that each lane holds
  // kItems consecutive elements. Only the warp's own staging area is touched: __syncwarp suffices.
  T items[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const unsigned index = k * 32 + lane;
    stage[padded(index)] = full || warp_start + index < n ? in[warp_start + index] : T{0};
  }
  __syncwarp();
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    items[k] = stage[padded(lane * kItems + k)];

    // Each lane scans its items sequentially; the warp scans the lanes' totals with shuffles
    // (Kogge-Stone across registers, no shared memory, no barrier).
#pragma unroll
  for (int k = 1; k < kItems; ++k)
    items[k] += items[k - 1];
  T warp_inclusive = items[kItems - 1];
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const T up = __shfl_up_sync(kFullMask, warp_inclusive, offset);
    if (lane >= offset)
      warp_inclusive += up;
  }
  T lane_exclusive = __shfl_up_sync(kFullMask, warp_inclusive, 1);
  if (lane == 0)
    lane_exclusive = T{0};
  if (lane == 31)
    warp_totals[warp] = warp_inclusive;
  __syncthreads();
  // Every thread adds up the few warp totals itself, in the same order: the tile's aggregate and
  // the sum of the warps before its own.
  T warp_exclusive{0};
  T aggregate{0};
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    if (w == static_cast<int>(warp))
      warp_exclusive = aggregate;
    aggregate += warp_totals[w];
  }

  //! [single_pass_publish]
  // Publish, look back, publish again. Tile 0 knows its prefix at once. The others publish their
  // aggregate first, so that their successors can use it while they look back themselves.
  if (warp == 0) {
    T before{0};
    if (tile == 0) {
      if (lane == 0)
        Status(status[0]).store(pack(kPrefix, aggregate), cuda::memory_order_relaxed);
    } else {
      if (lane == 0)
        Status(status[tile]).store(pack(kAggregate, aggregate), cuda::memory_order_relaxed);
      __nanosleep(kFirstPollDelayNs);  // the predecessors need about this long to publish
      before = look_back<T>(status, tile, lane);
      if (lane == 0)
        Status(status[tile]).store(pack(kPrefix, before + aggregate), cuda::memory_order_relaxed);
    }
    if (lane == 0)
      tile_exclusive = before;
  }
  __syncthreads();
  const T prefix = tile_exclusive + warp_exclusive + lane_exclusive;
  //! [single_pass_publish]

  // Results back through shared memory (exclusive: shifted by one within the lane's items), then
  // stored warp-striped: coalesced again.
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const T result = exclusive ? (k == 0 ? prefix : prefix + items[k - 1]) : prefix + items[k];
    stage[padded(lane * kItems + k)] = result;
  }
  __syncwarp();
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const unsigned index = k * 32 + lane;
    if (full || warp_start + index < n)
      out[warp_start + index] = stage[padded(index)];
  }
}
//! [single_pass_kernel]

}  // namespace

template <class T>
void run_single_pass(const T* d_in, T* d_out, std::size_t n, ScanKind kind, cudaStream_t stream) {
  const std::size_t tiles = (n + kTile - 1) / kTile;
  // The tile counter, then one status word per tile, all zero (kInvalid) before each scan: two
  // launches in all, this memset and the kernel.
  auto* state = workspace<unsigned long long>(tiles + 1);
  CUDA_CHECK(cudaMemsetAsync(state, 0, (tiles + 1) * sizeof(unsigned long long), stream));
  single_pass_kernel<T><<<static_cast<unsigned>(tiles), kThreads, 0, stream>>>(
      d_in, d_out, n, kind == ScanKind::Exclusive, state);
  CUDA_CHECK_LAST();
}

#define COURSE_LESSON10_INSTANTIATE(T) \
  template void run_single_pass<T>(const T*, T*, std::size_t, ScanKind, cudaStream_t);
COURSE_LESSON10_INSTANTIATE(int)
COURSE_LESSON10_INSTANTIATE(float)
#undef COURSE_LESSON10_INSTANTIATE

}  // namespace course::lesson10
