/// @file
/// @brief Lesson 11, sorting: the interface shared by skeleton, solution, tests and demo.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "course/buffer.hpp"
#include "course/variants.hpp"

namespace course::lesson11 {

/// The rungs of the ladder, in teaching order.
enum class Variant {
  Thrust,        ///< given: thrust::stable_sort, the library baseline
  Bitonic,       ///< exercise: bitonic sorting network, shared-memory tiles, global merge steps
  OddEvenMerge,  ///< exercise: Batcher's odd-even merge sort, the same structure
  Radix,         ///< exercise: LSD radix sort, 4-bit digits, 8 passes, stable scatter
  RadixWide,     ///< stretch: 8-bit digits, 4 passes, tile-local sort for coalesced writes
};

/// A rung's name, kind and abilities, for tables, tests and docs.
struct VariantInfo {
  Variant variant;        ///< the rung
  std::string_view name;  ///< as the demo's --variant takes it
  std::string_view kind;  ///< given, exercise or stretch
  bool network;           ///< a sorting network: sorts batches of arrays, any threads per block
  bool stable;            ///< equal keys keep their input order (and their values' order)
};

/// All rungs, in teaching order.
inline constexpr std::array<VariantInfo, 5> kVariants{{
    {Variant::Thrust, "thrust", "given", false, true},
    {Variant::Bitonic, "bitonic", "exercise", true, false},
    {Variant::OddEvenMerge, "odd_even_merge", "exercise", true, false},
    {Variant::Radix, "radix", "exercise", false, true},
    {Variant::RadixWide, "radix_wide", "stretch", false, true},
}};

/// The name of @p variant.
[[nodiscard]] constexpr std::string_view name_of(Variant variant) {
  return name_in(kVariants, variant);
}

/// The facts about @p variant.
[[nodiscard]] constexpr const VariantInfo& info_of(Variant variant) {
  for (const auto& info : kVariants)
    if (info.variant == variant)
      return info;
  return kVariants[0];
}

/// The most keys one call sorts (batch x length for batches): 2^24, the most the tests sort
/// (every rung sorts exactly this many, the networks also a ragged batch whose padded index space
/// is near 2^25), so that no size a rung accepts is one whose index arithmetic went untested.
inline constexpr std::size_t kMaxKeys = std::size_t{1} << 24;

/// Threads per block the networks accept (the demo's --sweep block); each block sorts a tile of
/// 4 x threads keys in shared memory.
inline constexpr std::array<int, 5> kNetworkThreads{64, 128, 256, 512, 1024};

/// The networks' threads per block when a call passes 0.
inline constexpr int kDefaultNetworkThreads = 1024;

/// Scratch device memory for the sorts, kept between calls so that a timed sort measures the
/// sort and not cudaMalloc. One workspace serves calls on one stream at a time.
class Workspace {
 public:
  /// Device memory of at least @p bytes (aligned as cudaMalloc aligns), valid until the next
  /// call of reserve(). Grows when needed: growing frees the old memory, which waits for the
  /// device, so reserve before the work you time (the timer's warm-up does).
  void* reserve(std::size_t bytes) {
    if (buffer_.size() < bytes)
      buffer_ = DeviceBuffer<unsigned char>(bytes);
    return buffer_.data();
  }
  /// Bytes held now.
  [[nodiscard]] std::size_t bytes() const noexcept { return buffer_.size(); }

 private:
  DeviceBuffer<unsigned char> buffer_;
};

/// Sorts @p batch arrays of @p length uint32 keys each, stored one after the other, in place and
/// in ascending order; values, when given, travel with their keys.
///
/// @param[in]     variant   the rung to run
/// @param[in,out] d_keys    device memory, batch * length keys
/// @param[in,out] d_values  device memory, batch * length values, or nullptr to sort keys only;
///                          must not overlap d_keys
/// @param[in]     batch     number of arrays; more than 1 only for the
///                          networks (bitonic, odd_even_merge)
/// @param[in]     length    keys per array, any length (the networks treat the missing keys of
///                          the next power of two as larger than every key, and never store them)
/// @param[in]     threads   threads per block of the networks' kernels, one of kNetworkThreads,
///                          or 0 for kDefaultNetworkThreads; must be 0 for the other rungs
/// @param[in,out] workspace scratch memory, grown when the rung needs more
/// @param[in]     stream    the stream to launch on (asynchronous)
/// @pre batch * length <= kMaxKeys. batch * length == 0 is a no-op that never touches the GPU
///      (the pointers may then be null).
/// @throws std::invalid_argument for a null or overlapping pointer, a size beyond kMaxKeys, a
///         batch > 1 or threads != 0 for a rung that is not a network, or threads not in
///         kNetworkThreads; course::NotImplemented for a rung the skeleton has not written yet;
///         course::CudaError if a launch fails.
void sort_batches(Variant variant, std::uint32_t* d_keys, std::uint32_t* d_values,
                  std::size_t batch, std::size_t length, int threads, Workspace& workspace,
                  cudaStream_t stream = {});

/// Sorts @p n uint32 keys in place, ascending.
///
/// @param[in]     variant   the rung to run
/// @param[in,out] d_keys    device memory, n keys
/// @param[in]     n         number of keys, 0 <= n <= kMaxKeys (0: a no-op)
/// @param[in,out] workspace scratch memory, grown when the rung needs more
/// @param[in]     stream    the stream to launch on (asynchronous)
/// @throws as sort_batches().
void sort_keys(Variant variant, std::uint32_t* d_keys, std::size_t n, Workspace& workspace,
               cudaStream_t stream = {});

/// Sorts @p n float keys in place by IEEE 754 totalOrder: -NaN < -inf < ... < -0.0 < +0.0 < ...
/// < +inf < +NaN (NaNs by sign, then payload). Every rung orders floats this way: they flip the
/// bits to uint32 keys that sort in this order as unsigned integers, sort, and flip back.
///
/// @param[in]     variant   the rung to run
/// @param[in,out] d_keys    device memory, n keys
/// @param[in]     n         number of keys, 0 <= n <= kMaxKeys (0: a no-op)
/// @param[in,out] workspace scratch memory, grown when the rung needs more
/// @param[in]     stream    the stream to launch on (asynchronous)
/// @throws as sort_batches().
void sort_keys(Variant variant, float* d_keys, std::size_t n, Workspace& workspace,
               cudaStream_t stream = {});

/// Sorts @p n uint32 keys in place, ascending, moving each value with its key.
///
/// @param[in]     variant   the rung to run
/// @param[in,out] d_keys    device memory, n keys
/// @param[in,out] d_values  device memory, n values, not overlapping d_keys
/// @param[in]     n         number of pairs, 0 <= n <= kMaxKeys (0: a no-op)
/// @param[in,out] workspace scratch memory, grown when the rung needs more
/// @param[in]     stream    the stream to launch on (asynchronous)
/// @throws as sort_batches().
void sort_pairs(Variant variant, std::uint32_t* d_keys, std::uint32_t* d_values, std::size_t n,
                Workspace& workspace, cudaStream_t stream = {});

/// Sorts @p n float keys in place by IEEE 754 totalOrder (see sort_keys()), moving each value
/// with its key.
///
/// @param[in]     variant   the rung to run
/// @param[in,out] d_keys    device memory, n keys
/// @param[in,out] d_values  device memory, n values, not overlapping d_keys
/// @param[in]     n         number of pairs, 0 <= n <= kMaxKeys (0: a no-op)
/// @param[in,out] workspace scratch memory, grown when the rung needs more
/// @param[in]     stream    the stream to launch on (asynchronous)
/// @throws as sort_batches().
void sort_pairs(Variant variant, float* d_keys, std::uint32_t* d_values, std::size_t n,
                Workspace& workspace, cudaStream_t stream = {});

}  // namespace course::lesson11
