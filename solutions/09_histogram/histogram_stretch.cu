// Lesson 09, the stretch rungs solved: counting the 7 bins in registers (no atomic per byte at
// all), and the general 256-bin byte histogram with one private copy per warp.
#include <algorithm>
#include <cstdint>

#include "course/error.hpp"
#include "histogram_rungs.cuh"

namespace course::lesson09 {

namespace {

constexpr int kWarp = 32;

//! [register_privatized_kernel]
// With only 7 bins, each thread can keep its own counters in registers: no atomic, no shared
// counter, no contention, whatever the input (a run of one letter costs exactly what random
// letters cost). What is left is to classify bytes cheaply enough to keep up with the memory:
//
// (1) 16-byte loads (uint4). The first bytes before a 16-byte boundary (`head`, up to 15) and
//     the last ones after the last whole vector (`tail`, up to 15) are read one by one.
// (2) A 256-entry table in shared memory maps a byte to its increment: 1 << (4 bin) for a
//     letter, 0 for any other byte. Adding the increments of 8 bytes gives 8 four-bit counters
//     in one register (nibble k = letters of bin k among those 8 bytes, at most 8: no carry).
//     Letters sit in 26 different banks, and equal bytes read the same word: no bank conflicts.
// (3) The nibbles are widened into two registers of four 8-bit counters (bins 0, 2, 4, 6 and
//     1, 3, 5), at most 16 more per vector. After kRoundsPerFlush rounds of kUnroll vectors
//     (3 x 4 x 16 = 192 < 256) they are added to 7 32-bit counters before they could overflow.
// (4) kUnroll independent loads in flight per thread; a grid of exactly the resident blocks,
//     striding over the vectors.
// (5) At the end, warp shuffles sum each counter over the warp, shared memory over the warps,
//     and 7 threads do the block's only 7 atomics.
constexpr int kRegisterThreads = 256;
constexpr int kUnroll = 4;
constexpr int kRoundsPerFlush = 3;
static_assert(kRoundsPerFlush * kUnroll * 16 <= 255, "8-bit counters would overflow");

//! [register_privatized_helpers]
// The increments of the four bytes of @p word: 8 four-bit counters.
__device__ std::uint32_t nibbles_of(std::uint32_t word, const std::uint32_t* increment) {
  return increment[word & 0xFF] + increment[(word >> 8) & 0xFF] + increment[(word >> 16) & 0xFF] +
         increment[word >> 24];
}

// Adds 8 four-bit counters to the 8-bit counters: even bins in `even`, odd bins in `odd`.
__device__ void widen(std::uint32_t nibbles, std::uint32_t& even, std::uint32_t& odd) {
  even += nibbles & 0x0F0F0F0Fu;
  odd += (nibbles >> 4) & 0x0F0F0F0Fu;
}

// Counts the 16 bytes of @p v into the 8-bit counters (each gains at most 16).
__device__ void count_vector(uint4 v, const std::uint32_t* increment, std::uint32_t& even,
                             std::uint32_t& odd) {
  widen(nibbles_of(v.x, increment) + nibbles_of(v.y, increment), even, odd);
  widen(nibbles_of(v.z, increment) + nibbles_of(v.w, increment), even, odd);
}
//! [register_privatized_helpers]

// Adds the 8-bit counters to the thread's 32-bit ones (odd's top byte is bin 7: always 0).
__device__ void flush(std::uint32_t even, std::uint32_t odd, std::uint32_t (&counts)[kLetterBins]) {
  counts[0] += even & 0xFF;
  counts[2] += (even >> 8) & 0xFF;
  counts[4] += (even >> 16) & 0xFF;
  counts[6] += even >> 24;
  counts[1] += odd & 0xFF;
  counts[3] += (odd >> 8) & 0xFF;
  counts[5] += (odd >> 16) & 0xFF;
}

//! [register_privatized_loop]
__global__ void __launch_bounds__(kRegisterThreads)
    register_privatized_kernel(const unsigned char* __restrict__ text, std::size_t n,
                               std::size_t head, std::uint32_t* __restrict__ bins) {
  __shared__ std::uint32_t increment[256];
  __shared__ std::uint32_t warp_counts[kRegisterThreads / kWarp][kLetterBins];
  for (unsigned byte = threadIdx.x; byte < 256; byte += blockDim.x) {
    const int bin = letter_bin(static_cast<unsigned char>(byte));
    increment[byte] = bin >= 0 ? 1u << (4 * bin) : 0u;
  }
  __syncthreads();

  const auto* vectors = reinterpret_cast<const uint4*>(text + head);
  const std::size_t count = (n - head) / 16;
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::uint32_t counts[kLetterBins] = {};  // constant indices only: stays in registers
  std::size_t i = thread;
  while (i < count) {
    std::uint32_t even = 0, odd = 0;
    for (int round = 0; round < kRoundsPerFlush && i < count; ++round, i += kUnroll * threads) {
      uint4 v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const std::size_t j = i + u * threads;
        v[u] = j < count ? vectors[j] : make_uint4(0, 0, 0, 0);  // byte 0 counts nothing
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        count_vector(v[u], increment, even, odd);
    }
    flush(even, odd, counts);
  }
  //! [register_privatized_loop]
  // The head and the tail: at most 15 bytes each, one per thread.
  const std::size_t tail_start = head + 16 * count;
  std::uint32_t even = 0, odd = 0;
  if (thread < head)
    widen(increment[text[thread]], even, odd);
  if (thread < n - tail_start)
    widen(increment[text[tail_start + thread]], even, odd);
  flush(even, odd, counts);

  const unsigned lane = threadIdx.x % kWarp;
  const unsigned warp = threadIdx.x / kWarp;
#pragma unroll
  for (int bin = 0; bin < kLetterBins; ++bin) {
    std::uint32_t c = counts[bin];
#pragma unroll
    for (int offset = kWarp / 2; offset > 0; offset /= 2)
      c += __shfl_down_sync(0xFFFFFFFFu, c, offset);
    if (lane == 0)
      warp_counts[warp][bin] = c;
  }
  __syncthreads();
  if (threadIdx.x < kLetterBins) {
    std::uint32_t total = 0;
    for (int w = 0; w < kRegisterThreads / kWarp; ++w)
      total += warp_counts[w][threadIdx.x];
    if (total > 0)
      atomicAdd(&bins[threadIdx.x], total);
  }
}
//! [register_privatized_kernel]

//! [bytes256_kernel]
// 256 bins are too many for registers, so they go back to shared memory, with three changes from
// coarsened_interleaved: (1) one private copy per warp (8 KB per block), so that only the 32
// threads of a warp ever compete for a counter; (2) 16-byte loads, head and tail one by one, as
// in register_privatized; (3) a grid of exactly the resident blocks. The block's 256 counters
// are summed over the warps and added to the result: 256 atomics per block.
constexpr int kBytesThreads = 256;
constexpr int kBytesWarps = kBytesThreads / kWarp;

__device__ void count_word(std::uint32_t word, std::uint32_t* mine) {
  atomicAdd(&mine[word & 0xFF], 1u);
  atomicAdd(&mine[(word >> 8) & 0xFF], 1u);
  atomicAdd(&mine[(word >> 16) & 0xFF], 1u);
  atomicAdd(&mine[word >> 24], 1u);
}

__device__ void count_bytes(uint4 v, std::uint32_t* mine) {
  count_word(v.x, mine);
  count_word(v.y, mine);
  count_word(v.z, mine);
  count_word(v.w, mine);
}

//! [bytes256_body]
__global__ void __launch_bounds__(kBytesThreads)
    bytes256_kernel(const unsigned char* __restrict__ text, std::size_t n, std::size_t head,
                    std::uint32_t* __restrict__ bins) {
  __shared__ std::uint32_t warp_bins[kBytesWarps][kByteBins];
  for (unsigned k = threadIdx.x; k < kBytesWarps * kByteBins; k += blockDim.x)
    warp_bins[k / kByteBins][k % kByteBins] = 0;
  __syncthreads();
  std::uint32_t* mine = warp_bins[threadIdx.x / kWarp];

  const auto* vectors = reinterpret_cast<const uint4*>(text + head);
  const std::size_t count = (n - head) / 16;
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = thread;
  for (; i + threads < count; i += 2 * threads) {  // two loads in flight
    const uint4 a = vectors[i];
    const uint4 b = vectors[i + threads];
    count_bytes(a, mine);
    count_bytes(b, mine);
  }
  if (i < count)
    count_bytes(vectors[i], mine);
  const std::size_t tail_start = head + 16 * count;
  if (thread < head)
    atomicAdd(&mine[text[thread]], 1u);
  if (thread < n - tail_start)
    atomicAdd(&mine[text[tail_start + thread]], 1u);
  __syncthreads();
  for (unsigned bin = threadIdx.x; bin < kByteBins; bin += blockDim.x) {
    std::uint32_t total = 0;
    for (int w = 0; w < kBytesWarps; ++w)
      total += warp_bins[w][bin];
    if (total > 0)
      atomicAdd(&bins[bin], total);
  }
}
//! [bytes256_body]
//! [bytes256_kernel]

// Bytes before the first 16-byte boundary of d_text (at most n).
std::size_t head_bytes(const unsigned char* d_text, std::size_t n) {
  const auto misalignment = reinterpret_cast<std::uintptr_t>(d_text) % 16;
  return std::min<std::size_t>(n, (16 - misalignment) % 16);
}

}  // namespace

void launch_register_privatized(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                                cudaStream_t stream) {
  const std::size_t head = head_bytes(d_text, n);
  const std::size_t vectors = (n - head) / 16;
  const unsigned blocks =
      std::max(1u, std::min(resident_blocks(register_privatized_kernel, kRegisterThreads),
                            blocks_for(vectors, kRegisterThreads * kUnroll)));
  register_privatized_kernel<<<blocks, kRegisterThreads, 0, stream>>>(d_text, n, head, d_bins);
  CUDA_CHECK_LAST();
}

void launch_bytes256(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                     cudaStream_t stream) {
  const std::size_t head = head_bytes(d_text, n);
  const std::size_t vectors = (n - head) / 16;
  const unsigned blocks = std::max(1u, std::min(resident_blocks(bytes256_kernel, kBytesThreads),
                                                blocks_for(vectors, kBytesThreads * 2)));
  bytes256_kernel<<<blocks, kBytesThreads, 0, stream>>>(d_text, n, head, d_bins);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson09
