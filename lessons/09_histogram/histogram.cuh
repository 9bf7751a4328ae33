/// @file
/// @brief Lesson 09, histogram: the interface shared by skeleton, solution, tests and demo.
///
/// The letters 'a'...'z' of a byte string are counted into 7 bins of 4 letters each: bin
/// (c - 'a') / 4, so 'a'-'d' go to bin 0, ..., 'u'-'x' to bin 5, and 'y', 'z' to bin 6. Every
/// other byte (upper-case letters, digits, spaces, punctuation, bytes >= 128) is ignored. The
/// ladder climbs from one global atomic per byte (PMPP ch. 9's first kernel) through
/// privatization, coarsening and aggregation to a kernel that counts in registers and beats CUB.
/// A stretch rung counts all 256 byte values instead (Variant::Bytes256).
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "course/variants.hpp"

namespace course::lesson09 {

/// Bins of the letter histogram: 'a'-'d', 'e'-'h', ..., 'u'-'x', 'y'-'z'.
inline constexpr int kLetterBins = 7;
/// Bins of the byte histogram (Variant::Bytes256): one per byte value.
inline constexpr int kByteBins = 256;

/// The rungs of the ladder, in teaching order.
enum class Variant {
  AtomicGlobal,          ///< given: one thread per byte, `atomicAdd` on the 7 global bins
  PrivatizedGlobal,      ///< exercise: each block counts into its own copy of the bins in global
                         ///< memory, then adds the copy to the result
  PrivatizedShared,      ///< exercise: the block's copy in shared memory
  CoarsenedContiguous,   ///< exercise: fewer threads, each counting one contiguous chunk (the
                         ///< partitioning a CPU would use; the demo shows why not here)
  CoarsenedInterleaved,  ///< exercise: fewer threads, each striding over the input by the
                         ///< whole grid (interleaved partitioning: coalesced loads)
  Aggregated,  ///< exercise: a thread keeps a run of equal bins in a register and adds it with
               ///< one atomic when the bin changes
  RegisterPrivatized,  ///< stretch: 7 counters per thread in registers, 16-byte loads, one
                       ///< block-wide sum and 7 atomics per block: no atomic per byte at all
  Bytes256,            ///< stretch: the general 256-bin byte histogram (256 counts)
};

/// A rung's name, kind and number of bins, for tables, tests and docs.
struct VariantInfo {
  Variant variant;        ///< the rung
  std::string_view name;  ///< as the demo's --variant takes it
  std::string_view kind;  ///< given, exercise or stretch
  int bins;               ///< counts the rung writes: kLetterBins or kByteBins
};

/// All rungs, in teaching order.
inline constexpr std::array<VariantInfo, 8> kVariants{{
    {Variant::AtomicGlobal, "atomic_global", "given", kLetterBins},
    {Variant::PrivatizedGlobal, "privatized_global", "exercise", kLetterBins},
    {Variant::PrivatizedShared, "privatized_shared", "exercise", kLetterBins},
    {Variant::CoarsenedContiguous, "coarsened_contiguous", "exercise", kLetterBins},
    {Variant::CoarsenedInterleaved, "coarsened_interleaved", "exercise", kLetterBins},
    {Variant::Aggregated, "aggregated", "exercise", kLetterBins},
    {Variant::RegisterPrivatized, "register_privatized", "stretch", kLetterBins},
    {Variant::Bytes256, "bytes256", "stretch", kByteBins},
}};

/// The name of @p variant.
[[nodiscard]] constexpr std::string_view name_of(Variant variant) {
  return name_in(kVariants, variant);
}

/// The number of counts @p variant writes: kLetterBins, or kByteBins for Bytes256.
[[nodiscard]] constexpr int bins_of(Variant variant) {
  for (const auto& info : kVariants)
    if (info.variant == variant)
      return info.bins;
  return 0;
}

/// Threads per block of the exercise rungs when the caller does not choose.
inline constexpr int kDefaultBlock = 256;
/// The most bytes one call counts: 2^30. Every count fits in a uint32, and every byte index (a
/// grid's stride added to it included) in a 32-bit signed int, so index arithmetic in int is safe.
inline constexpr std::size_t kMaxCount = std::size_t{1} << 30;

/// Counts the n bytes at d_text into bins_of(variant) counts at d_bins: for the letter rungs,
/// d_bins[b] = number of bytes c in 'a'...'z' with (c - 'a') / 4 == b; for Bytes256,
/// d_bins[v] = number of bytes equal to v. The launcher first sets the counts to zero (every
/// rung adds into them), so d_bins need not be initialised; for n = 0 the result is all zeros.
///
/// @param[in]  variant the rung
/// @param[in]  d_text  device memory, n bytes, any alignment; may be null when n = 0
/// @param[in]  n       bytes, 0 <= n <= kMaxCount
/// @param[out] d_bins  device memory, bins_of(variant) uint32 counts, 4-byte aligned, not
///                     overlapping d_text
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @param[in]  block   threads per block of the exercise rungs, a multiple of 32 in [32, 1024];
///                     the stretch rungs choose their own shape
/// @pre Calls on several streams at once must not use PrivatizedGlobal (it keeps one scratch
///      buffer for the lesson).
/// @throws std::invalid_argument for n > kMaxCount, a bad block, an unknown variant, a null,
///         misaligned or overlapping pointer (before any GPU work); course::NotImplemented for
///         a rung the skeleton has not written yet; course::CudaError if a launch fails.
void histogram(Variant variant, const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
               cudaStream_t stream = {}, int block = kDefaultBlock);

}  // namespace course::lesson09
