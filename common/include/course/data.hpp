/// @file
/// @brief Seeded input generators. No rand(), no time seeds: every input can be made again.
///
/// Values come from a counter-based hash (splitmix64) of (seed, index), so they are the same on
/// every compiler and platform, and generating element i does not depend on elements before it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "course/hash.hpp"  // hash64

namespace course {

/// The base seed of this process: $COURSE_SEED when set (to replay a failure), else a fresh
/// random one. Tests print it, and every input of a test derives from it.
[[nodiscard]] std::uint64_t base_seed();

/// A seed for the @p stream-th input of a test, derived from @p base.
[[nodiscard]] std::uint64_t derive_seed(std::uint64_t base, std::uint64_t stream) noexcept;

/// @p count floats uniform in [@p low, @p high).
[[nodiscard]] std::vector<float> uniform_floats(std::size_t count, std::uint64_t seed,
                                                float low = -1.0f, float high = 1.0f);
/// @p count integers uniform in [@p low, @p high] (both included).
[[nodiscard]] std::vector<std::int32_t> uniform_ints(std::size_t count, std::uint64_t seed,
                                                     std::int32_t low, std::int32_t high);
/// @p count 32-bit keys uniform over all 2^32 values.
[[nodiscard]] std::vector<std::uint32_t> uniform_keys(std::size_t count, std::uint64_t seed);

/// Special inputs that random data rarely produces.
enum class Pattern {
  Uniform,         ///< uniform in [-1, 1)
  AllEqual,        ///< every element the same non-zero value
  Ascending,       ///< sorted, strictly increasing
  Descending,      ///< sorted, decreasing
  FewDistinct,     ///< only four distinct values
  LargeMagnitude,  ///< uniform in [-1e6, 1e6): cancellation and rounding show
  Index,           ///< element i holds i (exact in float up to 2^24): errors name their source
};
/// All patterns, for loops in tests.
inline constexpr Pattern kPatterns[] = {Pattern::Uniform,   Pattern::AllEqual,
                                        Pattern::Ascending, Pattern::Descending,
                                        Pattern::FewDistinct, Pattern::LargeMagnitude,
                                        Pattern::Index};
/// The pattern's name, for messages.
[[nodiscard]] std::string_view to_string(Pattern pattern) noexcept;
/// @p count floats following @p pattern.
[[nodiscard]] std::vector<float> pattern_floats(Pattern pattern, std::size_t count,
                                                std::uint64_t seed);

/// @p count bytes of lower-case text with English letter frequencies, spaces and punctuation.
[[nodiscard]] std::string english_text(std::size_t count, std::uint64_t seed);
/// @p count bytes made of long runs of one letter (mean run length @p mean_run): contention.
[[nodiscard]] std::string text_with_runs(std::size_t count, std::uint64_t seed,
                                         std::size_t mean_run = 4096);

/// The matmul lab report's A, row-major: a_ij = (i - 0.1 j + 1) / (i + j + 1).
[[nodiscard]] std::vector<float> lab_report_matrix_a(std::size_t rows, std::size_t cols);
/// The matmul lab report's B, row-major: b_ij = (j - 0.2 i + 1)(i + j + 1) / (i^2 + j^2 + 1).
[[nodiscard]] std::vector<float> lab_report_matrix_b(std::size_t rows, std::size_t cols);

}  // namespace course
