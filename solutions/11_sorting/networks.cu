// Lesson 11, the sorting networks, solved: bitonic sort and Batcher's odd-even merge sort.
//
// Both networks sort a power-of-two number of keys with a fixed pattern of compare-and-swap
// steps; here every comparator puts the smaller key at the lower position. An array of any
// length L is sorted as if it were padded to P = next_pow2(L) with keys larger than every key:
// a comparator whose upper position is >= L would leave such a pad where it is, so the pads
// never move, are never loaded from memory, and are never stored (the launch only has to skip
// those comparators). Batches of arrays are laid out one after the other in memory; the kernels
// work in a "virtual" index space where array a occupies [a P, a P + P).
#include "course/error.hpp"
#include "sorting_rungs.cuh"

namespace course::lesson11 {

namespace {

constexpr int kKeysPerThread = 4;            // a block of B threads sorts a tile of 4 B keys
constexpr std::uint32_t kPad = 0xFFFFFFFFu;  // the padding key, as large as any key

enum class Net { Bitonic, OddEven };

//! [network_comparators]
// Comparator c of the step (size, stride): the two positions it joins, or false when it idles.
// lo = c with a zero bit inserted at the stride's bit: the lower element of each pair.
template <Net kNet>
__device__ inline bool comparator(std::uint32_t c, std::uint32_t size, std::uint32_t stride,
                                  std::uint32_t& lo, std::uint32_t& hi) {
  const std::uint32_t pos = 2 * c - (c & (stride - 1));
  if constexpr (kNet == Net::Bitonic) {
    // Both halves of a size-block are sorted ascending. Comparing each element of the lower half
    // with its mirror in the upper half (pos ^ (size - 1)) leaves two bitonic halves, every key
    // of the lower one <= every key of the upper one; the later steps (plain half-cleaners at
    // stride size/4, size/8, ...) sort each half. This replaces the classic network's
    // alternating directions, so every array ends ascending and pads stay at the end.
    lo = pos;
    hi = stride == size / 2 ? pos ^ (size - 1) : pos + stride;
    return true;
  } else {
    // Batcher's merge of two sorted halves: compare across the halves at stride size/2, then at
    // each smaller stride compare only elements in different "odd/even" subsequences: pairs
    // (pos - stride, pos) whose comparator index within the size-block is >= stride.
    if (stride == size / 2) {
      lo = pos;
      hi = pos + stride;
      return true;
    }
    if ((c & (size / 2 - 1)) < stride)
      return false;
    lo = pos - stride;
    hi = pos;
    return true;
  }
}
//! [network_comparators]

// Compare-and-swap in place: the smaller key to the lower position, its value with it. Strict
// comparison: equal keys never move, so a pad never changes places with a real key.
template <bool kPairs>
__device__ inline void compare_swap(std::uint32_t& key_lo, std::uint32_t& key_hi,
                                    std::uint32_t& value_lo, std::uint32_t& value_hi) {
  if (key_lo > key_hi) {
    const std::uint32_t k = key_lo;
    key_lo = key_hi;
    key_hi = k;
    if constexpr (kPairs) {
      const std::uint32_t v = value_lo;
      value_lo = value_hi;
      value_hi = v;
    }
  }
}

// Where virtual index v lives: its array and offset, whether it is a real key, and its address.
struct Slot {
  bool real;
  std::uint32_t address;
};
__device__ inline Slot slot(std::uint32_t v, int log2_padded, std::uint32_t batch,
                            std::uint32_t length) {
  const std::uint32_t array = v >> log2_padded;
  const std::uint32_t offset = v & ((std::uint32_t{1} << log2_padded) - 1);
  return {array < batch && offset < length, array * length + offset};
}

//! [network_tile_kernel]
// One block sorts (or finishes merging) a tile of 4 x blockDim consecutive virtual positions in
// shared memory: every step of the merges of size size_lo ... size_hi whose stride is below the
// tile, with one barrier per step, where the global kernels below need one launch per step.
// Loads and stores are coalesced (consecutive threads, consecutive addresses); pads are
// materialised in shared memory as kPad and simply not stored.
template <Net kNet, bool kPairs>
__global__ void __launch_bounds__(1024)
    network_tile_kernel(std::uint32_t* __restrict__ keys, std::uint32_t* __restrict__ values,
                        std::uint32_t batch, std::uint32_t length, int log2_padded,
                        std::uint32_t size_lo, std::uint32_t size_hi) {
  extern __shared__ std::uint32_t shared[];
  const std::uint32_t tile = blockDim.x * kKeysPerThread;
  std::uint32_t* s_keys = shared;
  std::uint32_t* s_values = shared + tile;  // only used (and only allocated) for pairs
  const std::uint32_t first = blockIdx.x * tile;

  for (int r = 0; r < kKeysPerThread; ++r) {
    const std::uint32_t local = threadIdx.x + r * blockDim.x;
    const Slot s = slot(first + local, log2_padded, batch, length);
    s_keys[local] = s.real ? keys[s.address] : kPad;
    if constexpr (kPairs)
      s_values[local] = s.real ? values[s.address] : 0;
  }
  __syncthreads();

  std::uint32_t unused = 0;
  for (std::uint32_t size = size_lo; size <= size_hi; size <<= 1) {
    // Tiles are aligned to the merge size (size <= tile) or the strides stay inside the tile
    // (the finishing steps of a larger bitonic merge), so local indices are enough.
    for (std::uint32_t stride = min(size / 2, tile / 2); stride > 0; stride >>= 1) {
      for (std::uint32_t c = threadIdx.x; c < tile / 2; c += blockDim.x) {
        std::uint32_t lo, hi;
        if (comparator<kNet>(c, size, stride, lo, hi))
          compare_swap<kPairs>(s_keys[lo], s_keys[hi], kPairs ? s_values[lo] : unused,
                               kPairs ? s_values[hi] : unused);
      }
      // The next step reads what other threads just swapped.
      __syncthreads();
    }
  }

  for (int r = 0; r < kKeysPerThread; ++r) {
    const std::uint32_t local = threadIdx.x + r * blockDim.x;
    const Slot s = slot(first + local, log2_padded, batch, length);
    if (s.real) {
      keys[s.address] = s_keys[local];
      if constexpr (kPairs)
        values[s.address] = s_values[local];
    }
  }
}
//! [network_tile_kernel]

//! [network_step_kernel]
// One step whose stride is at least a tile: one comparator per thread, straight in global
// memory. The launch boundary is the barrier between steps.
template <Net kNet, bool kPairs>
__global__ void __launch_bounds__(1024)
    network_step_kernel(std::uint32_t* __restrict__ keys, std::uint32_t* __restrict__ values,
                        std::uint32_t batch, std::uint32_t length, int log2_padded,
                        std::uint32_t size, std::uint32_t stride, std::uint32_t comparators) {
  const std::uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  std::uint32_t lo, hi;
  if (c >= comparators || !comparator<kNet>(c, size, stride, lo, hi))
    return;
  const Slot upper = slot(hi, log2_padded, batch, length);
  if (!upper.real)
    return;  // the upper key is a pad: nothing would move
  const Slot lower = slot(lo, log2_padded, batch, length);
  std::uint32_t key_lo = keys[lower.address], key_hi = keys[upper.address];
  std::uint32_t value_lo = 0, value_hi = 0;
  if (key_lo <= key_hi)
    return;
  if constexpr (kPairs) {
    value_lo = values[lower.address];
    value_hi = values[upper.address];
  }
  compare_swap<kPairs>(key_lo, key_hi, value_lo, value_hi);
  keys[lower.address] = key_lo;
  keys[upper.address] = key_hi;
  if constexpr (kPairs) {
    values[lower.address] = value_lo;
    values[upper.address] = value_hi;
  }
}
//! [network_step_kernel]

//! [bitonic_two_steps_kernel]
// Two bitonic steps in one launch: strides s and s/2 of the same merge. The four positions
// x, x + s/2 and their partners at stride s form a closed group under both steps, so one thread
// loads four keys, does four compare-and-swaps in registers and stores four: half the launches
// and half the global traffic of two separate steps. (Batcher's odd-even steps form no such
// groups, which is why that rung cannot do this.)
template <bool kPairs>
__global__ void __launch_bounds__(1024)
    bitonic_two_steps_kernel(std::uint32_t* __restrict__ keys, std::uint32_t* __restrict__ values,
                             std::uint32_t batch, std::uint32_t length, int log2_padded,
                             std::uint32_t size, std::uint32_t stride, std::uint32_t groups) {
  const std::uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= groups)
    return;
  const std::uint32_t half = stride / 2;
  const int shift = log2_pow2(half);
  // x: q with two zero bits inserted at the bits of half and stride.
  const std::uint32_t x = ((q >> shift) << (shift + 2)) | (q & (half - 1));
  const bool mirror = stride == size / 2;  // the first step of the merge compares mirrors
  std::uint32_t pos[4] = {x, x + half, 0, 0};
  if (mirror) {
    pos[2] = (x + half) ^ (size - 1);
    pos[3] = x ^ (size - 1);
  } else {
    pos[2] = x + stride;
    pos[3] = x + stride + half;
  }
  std::uint32_t key[4], value[4] = {0, 0, 0, 0};
  Slot s[4];
  for (int i = 0; i < 4; ++i) {
    s[i] = slot(pos[i], log2_padded, batch, length);
    key[i] = s[i].real ? keys[s[i].address] : kPad;
    if constexpr (kPairs)
      value[i] = s[i].real ? values[s[i].address] : 0;
  }
  // pos[0] < pos[1] < pos[2] < pos[3]. Stride s: mirrors (0, 3), (1, 2), or (0, 2), (1, 3).
  if (mirror) {
    compare_swap<kPairs>(key[0], key[3], value[0], value[3]);
    compare_swap<kPairs>(key[1], key[2], value[1], value[2]);
  } else {
    compare_swap<kPairs>(key[0], key[2], value[0], value[2]);
    compare_swap<kPairs>(key[1], key[3], value[1], value[3]);
  }
  // Stride s/2: (0, 1) and (2, 3).
  compare_swap<kPairs>(key[0], key[1], value[0], value[1]);
  compare_swap<kPairs>(key[2], key[3], value[2], value[3]);
  for (int i = 0; i < 4; ++i)
    if (s[i].real) {
      keys[s[i].address] = key[i];
      if constexpr (kPairs)
        values[s[i].address] = value[i];
    }
}
//! [bitonic_two_steps_kernel]

unsigned blocks_for(std::uint32_t work, int threads) {
  return static_cast<unsigned>((std::size_t{work} + threads - 1) / threads);
}

template <Net kNet, bool kPairs>
void sort_network(const Problem& p, cudaStream_t stream) {
  const std::uint32_t padded = next_pow2(p.length);
  if (padded < 2)
    return;  // arrays of one key are sorted
  const int log2_padded = log2_pow2(padded);
  const std::uint32_t tile = static_cast<std::uint32_t>(p.threads) * kKeysPerThread;
  const std::uint32_t virtual_count = p.batch * padded;  // < 2 kMaxKeys = 2^25
  const unsigned tiles = blocks_for(virtual_count, static_cast<int>(tile));
  const std::size_t shared = std::size_t{tile} * sizeof(std::uint32_t) * (kPairs ? 2 : 1);
  auto tile_pass = [&](std::uint32_t size_lo, std::uint32_t size_hi) {
    network_tile_kernel<kNet, kPairs><<<tiles, p.threads, shared, stream>>>(
        p.keys, p.values, p.batch, p.length, log2_padded, size_lo, size_hi);
    CUDA_CHECK_LAST();
  };
  auto step = [&](std::uint32_t size, std::uint32_t stride) {
    const std::uint32_t comparators = virtual_count / 2;
    network_step_kernel<kNet, kPairs><<<blocks_for(comparators, p.threads), p.threads, 0, stream>>>(
        p.keys, p.values, p.batch, p.length, log2_padded, size, stride, comparators);
    CUDA_CHECK_LAST();
  };

  // Every merge that fits a tile, in one launch.
  tile_pass(2, padded < tile ? padded : tile);
  for (std::uint32_t size = 2 * tile; size <= padded; size <<= 1) {
    if constexpr (kNet == Net::Bitonic) {
      // Strides >= tile in global memory, two per launch where two remain; then the strides
      // below the tile stay inside one tile: finish the merge in shared memory.
      std::uint32_t stride = size / 2;
      while (stride >= tile) {
        if (stride / 2 >= tile) {
          const std::uint32_t groups = virtual_count / 4;
          bitonic_two_steps_kernel<kPairs><<<blocks_for(groups, p.threads), p.threads, 0, stream>>>(
              p.keys, p.values, p.batch, p.length, log2_padded, size, stride, groups);
          CUDA_CHECK_LAST();
          stride /= 4;
        } else {
          step(size, stride);
          stride /= 2;
        }
      }
      tile_pass(size, size);
    } else {
      // Odd-even steps at small strides still join neighbouring tiles (the pair (pos - stride,
      // pos) straddles a tile border whenever pos starts a tile), so every step of a merge
      // larger than a tile runs in global memory.
      for (std::uint32_t stride = size / 2; stride > 0; stride >>= 1)
        step(size, stride);
    }
  }
}

template <Net kNet>
void launch_network(const Problem& p, cudaStream_t stream) {
  if (p.values != nullptr)
    sort_network<kNet, true>(p, stream);
  else
    sort_network<kNet, false>(p, stream);
}

}  // namespace

void launch_bitonic(const Problem& problem, Workspace& /*workspace*/, cudaStream_t stream) {
  launch_network<Net::Bitonic>(problem, stream);
}

void launch_odd_even_merge(const Problem& problem, Workspace& /*workspace*/, cudaStream_t stream) {
  launch_network<Net::OddEven>(problem, stream);
}

}  // namespace course::lesson11
