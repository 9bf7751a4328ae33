/// @file
/// @brief Lesson 09's CPU reference (the specification, in a few obvious lines) and the inputs
/// the tests and the demo count.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "course/data.hpp"
#include "course/parallel.hpp"
#include "histogram.cuh"

namespace course::lesson09 {

/// Counts each byte c of @p text in bin @p bin_of(c) of @p bins bins (none when it is -1). The
/// texts reach 2^28 bytes, so threads count chunks of the text on their own and add them up.
template <class BinOf>
std::vector<std::uint32_t> counted(std::span<const unsigned char> text, int bins, BinOf bin_of) {
  std::vector<std::uint32_t> total(bins, 0);
  std::mutex adding;
  parallel_for(text.size(), [&](std::size_t begin, std::size_t end) {
    std::vector<std::uint32_t> mine(bins, 0);
    for (std::size_t i = begin; i < end; ++i)
      if (const int bin = bin_of(text[i]); bin >= 0)
        ++mine[bin];
    const std::lock_guard<std::mutex> lock(adding);
    for (int b = 0; b < bins; ++b)
      total[b] += mine[b];
  });
  return total;
}

/// The letter histogram of @p text: bin (c - 'a') / 4 for every c in 'a'...'z'.
inline std::vector<std::uint32_t> letter_histogram_reference(std::span<const unsigned char> text) {
  return counted(text, kLetterBins, [](unsigned char c) {
    return c >= 'a' && c <= 'z' ? (c - 'a') / 4 : -1;  // -1: not counted
  });
}

/// The byte histogram of @p text: one count per byte value.
inline std::vector<std::uint32_t> byte_histogram_reference(std::span<const unsigned char> text) {
  return counted(text, kByteBins, [](unsigned char c) { return int{c}; });
}

/// What @p variant must compute on @p text.
inline std::vector<std::uint32_t> histogram_reference(Variant variant,
                                                      std::span<const unsigned char> text) {
  return bins_of(variant) == kByteBins ? byte_histogram_reference(text)
                                       : letter_histogram_reference(text);
}

/// The lesson's inputs.
enum class Input {
  UniformLetters,  ///< every byte a letter, uniform over 'a'...'z'
  English,         ///< English letter frequencies, with spaces and punctuation
  LongRuns,        ///< runs of one letter, kLongRun bytes long on average (up to 2 kLongRun):
                   ///< longer than a grid's stride
  OneLetter,       ///< one letter only (which one depends on the seed)
  NoLetters,       ///< every byte value except 'a'...'z' (upper case, '{', '|', bytes >= 128...)
  UniformBytes,    ///< uniform over all 256 byte values
};

/// The mean run length of Input::LongRuns: 1 MiB, several times the stride of a grid sized to
/// the GPU (132 SMs x 2048 threads = 270 336 on an H100), so that a thread of the interleaved
/// rungs meets the same letter many times in a row.
inline constexpr std::size_t kLongRun = std::size_t{1} << 20;

/// The runs of Input::LongRuns, made so that any byte can be computed on its own (the GPU makes
/// the same bytes in parallel, histogram_bench.cu): run r ends at r kLongRun + j_r, where j_r is
/// hash64(seed, r) mod kLongRun, and has the letter 'a' + (hash64(seed, r) >> 32) mod 26. Byte i
/// therefore belongs to run i / kLongRun or to the one after it.
inline std::string long_runs_text(std::size_t n, std::uint64_t seed) {
  std::string text(n, 'a');
  std::size_t start = 0;
  for (std::size_t run = 0; start < n; ++run) {
    const std::uint64_t h = hash64(seed, run);
    const std::size_t end = std::min(n, run * kLongRun + static_cast<std::size_t>(h % kLongRun));
    std::fill(text.begin() + static_cast<std::ptrdiff_t>(start),
              text.begin() + static_cast<std::ptrdiff_t>(end),
              static_cast<char>('a' + (h >> 32) % 26));
    start = end;
  }
  return text;
}

/// An input's name (as the demo's --input takes it) and what it is.
struct InputInfo {
  Input input;            ///< the input
  std::string_view name;  ///< e.g. "runs"
  std::string_view what;  ///< in words
};

/// All inputs.
inline constexpr std::array<InputInfo, 6> kInputs{{
    {Input::UniformLetters, "uniform", "uniform random letters"},
    {Input::English, "english", "English-like text"},
    {Input::LongRuns, "runs", "long runs of one letter (mean 1 MiB)"},
    {Input::OneLetter, "one", "one letter only"},
    {Input::NoLetters, "none", "no letters at all"},
    {Input::UniformBytes, "bytes", "uniform random bytes"},
}};

/// The name of @p input.
[[nodiscard]] constexpr std::string_view name_of(Input input) {
  return name_in(kInputs, input, &InputInfo::input);
}

/// @p n bytes of @p input, made from @p seed (the same bytes for the same seed, everywhere).
inline std::string make_text(Input input, std::size_t n, std::uint64_t seed) {
  switch (input) {
    case Input::English:
      return english_text(n, seed);
    case Input::LongRuns:
      return long_runs_text(n, seed);
    case Input::OneLetter:
      return std::string(n, static_cast<char>('a' + seed % 26));
    default:
      break;
  }
  std::string text(n, ' ');
  parallel_for(n, [&](std::size_t begin, std::size_t end) {  // byte i depends on (seed, i) only
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t h = hash64(seed, i);
      if (input == Input::UniformLetters) {
        text[i] = static_cast<char>('a' + h % 26);
      } else if (input == Input::NoLetters) {
        const auto byte = static_cast<unsigned>(h % (256 - 26));  // 0...229, letters skipped
        text[i] = static_cast<char>(byte < 'a' ? byte : byte + 26);
      } else {
        text[i] = static_cast<char>(h & 0xFF);
      }
    }
  });
  return text;
}

/// The bytes of @p text, as the launcher takes them.
inline std::span<const unsigned char> bytes_of(const std::string& text) {
  return {reinterpret_cast<const unsigned char*>(text.data()), text.size()};
}

}  // namespace course::lesson09
