/// @file
/// @brief Lesson 10, prefix scan: the interface shared by skeleton, solution, tests and demo.
///
/// An inclusive scan of x_0, x_1, ..., x_{n-1} is y_i = x_0 + ... + x_i; an exclusive scan is
/// y_0 = 0 and y_i = x_0 + ... + x_{i-1}. The first four rungs are *section* scans, as in PMPP
/// chapter 11: each thread block scans its own section of the input, independently of the others,
/// so their output is a segmented scan (each section starts again from 0). The last two rungs scan
/// the whole input, whatever its length.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <limits>
#include <string_view>

#include "course/variants.hpp"

namespace course::lesson10 {

/// The rungs of the ladder, in teaching order.
enum class Variant {
  KoggeStone,              ///< given: one block scans its section; a barrier pair and a temporary
  KoggeStoneDoubleBuffer,  ///< exercise: two shared buffers take turns: one barrier per step
  BrentKung,               ///< exercise: work-efficient up-sweep and down-sweep, 2 elements/thread
  ThreePhase,              ///< exercise: coarsened: sequential sub-scans, a scan of their ends,
                           ///< add back
  Hierarchical,            ///< exercise: any n: scan sections, scan their sums, add them back
  SinglePass,              ///< stretch: one pass with decoupled look-back, reaching for CUB
};

/// A rung's name and kind, for tables, tests and docs.
struct VariantInfo {
  Variant variant;        ///< the rung
  std::string_view name;  ///< as the demo's --variant takes it
  std::string_view kind;  ///< given, exercise or stretch
  bool segmented;         ///< true: scans each section on its own (see section_length())
};

/// All rungs, in teaching order.
inline constexpr std::array<VariantInfo, 6> kVariants{{
    {Variant::KoggeStone, "kogge_stone", "given", true},
    {Variant::KoggeStoneDoubleBuffer, "kogge_stone_double_buffer", "exercise", true},
    {Variant::BrentKung, "brent_kung", "exercise", true},
    {Variant::ThreePhase, "three_phase", "exercise", true},
    {Variant::Hierarchical, "hierarchical", "exercise", false},
    {Variant::SinglePass, "single_pass", "stretch", false},
}};

/// The name of @p variant.
[[nodiscard]] constexpr std::string_view name_of(Variant variant) {
  return name_in(kVariants, variant);
}

/// Inclusive or exclusive.
enum class ScanKind {
  Inclusive,  ///< y_i = x_0 + ... + x_i
  Exclusive,  ///< y_0 = 0, y_i = x_0 + ... + x_{i-1}
};

/// The kinds and their names, for loops and the demo.
inline constexpr std::array<std::pair<ScanKind, std::string_view>, 2> kScanKinds{{
    {ScanKind::Inclusive, "inclusive"},
    {ScanKind::Exclusive, "exclusive"},
}};

/// The name of @p kind.
[[nodiscard]] constexpr std::string_view name_of(ScanKind kind) {
  return name_in(kScanKinds, kind);
}

/// Threads per block when the caller does not choose.
inline constexpr int kDefaultBlock = 512;
/// The smallest block a launcher accepts: one warp.
inline constexpr int kMinBlock = 32;
/// The largest block a launcher accepts (the size of the rungs' shared arrays).
inline constexpr int kMaxBlock = 1024;
/// Elements each thread of three_phase scans sequentially (its subsection).
inline constexpr int kThreePhaseCoarsening = 8;
/// The most elements one call scans: 2^30. Every element index, and every byte offset of a
/// 4-byte element, then fits in 32 bits (the index in a signed int), so index arithmetic in 32
/// bits is safe.
inline constexpr std::size_t kMaxCount = std::size_t{1} << 30;
/// section_length() of the rungs that scan the whole input.
inline constexpr std::size_t kWholeInput = std::numeric_limits<std::size_t>::max();

/// Elements in one section of @p variant launched with @p block threads per block: block for the
/// two Kogge-Stone rungs, 2 block for Brent-Kung, kThreePhaseCoarsening block for three_phase,
/// kWholeInput for hierarchical and single_pass. Element i belongs to section i / length.
[[nodiscard]] constexpr std::size_t section_length(Variant variant, int block) {
  const auto threads = static_cast<std::size_t>(block);
  switch (variant) {
    case Variant::KoggeStone:
    case Variant::KoggeStoneDoubleBuffer:
      return threads;
    case Variant::BrentKung:
      return 2 * threads;
    case Variant::ThreePhase:
      return kThreePhaseCoarsening * threads;
    case Variant::Hierarchical:
    case Variant::SinglePass:
      return kWholeInput;
  }
  return kWholeInput;
}

/// Scans d_in[0, n) into d_out[0, n): the whole input for hierarchical and single_pass, each
/// section of section_length(variant, block) elements on its own for the other rungs. Integer
/// sums are bit-exact (two's complement wraparound, the same in any order).
///
/// @param[in]  variant the rung
/// @param[in]  kind    inclusive or exclusive
/// @param[in]  d_in    device memory, n ints; any 4-byte alignment; may be null when n = 0
/// @param[out] d_out   device memory, n ints; either d_in itself (an in-place scan) or not
///                     overlapping d_in at all; may be null when n = 0
/// @param[in]  n       elements, 0 <= n <= kMaxCount; n = 0 is a no-op
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @param[in]  block   threads per block, a power of two in [kMinBlock, kMaxBlock]: sets the
///                     section of rungs 1 to 4 and of hierarchical's section scans; single_pass
///                     chooses its own shape
/// @throws std::invalid_argument for n > kMaxCount, a bad block or kind, a null pointer, or
///         buffers that overlap without being the same; course::NotImplemented for a rung the
///         skeleton has not written yet; course::CudaError if a launch fails.
void scan(Variant variant, ScanKind kind, const int* d_in, int* d_out, std::size_t n,
          cudaStream_t stream = {}, int block = kDefaultBlock);

/// The same for floats. The order of the additions differs from rung to rung (and, for
/// single_pass, from run to run), so the last bits do too; the README derives the bound the
/// tests allow.
/// @param[in]  variant the rung
/// @param[in]  kind    inclusive or exclusive
/// @param[in]  d_in    device memory, n floats; any 4-byte alignment; may be null when n = 0
/// @param[out] d_out   device memory, n floats; d_in itself or not overlapping it
/// @param[in]  n       elements, 0 <= n <= kMaxCount; n = 0 is a no-op
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @param[in]  block   threads per block, a power of two in [kMinBlock, kMaxBlock]
/// @throws the same as the int overload.
void scan(Variant variant, ScanKind kind, const float* d_in, float* d_out, std::size_t n,
          cudaStream_t stream = {}, int block = kDefaultBlock);

}  // namespace course::lesson10
