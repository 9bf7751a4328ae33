#include "course/data.hpp"

#include <array>
#include <cstdlib>
#include <random>

#include "course/parallel.hpp"

namespace course {

std::uint64_t derive_seed(std::uint64_t base, std::uint64_t stream) noexcept {
  return hash64(base, 0x5EED0000ULL + stream);
}

std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    if (const char* text = std::getenv("COURSE_SEED"); text != nullptr && *text != '\0')
      return std::strtoull(text, nullptr, 0);
    std::random_device device;
    return (std::uint64_t{device()} << 32 | device()) % 1000000007ULL;  // short enough to retype
  }();
  return seed;
}

namespace {
// The top 24 bits of a hash as a float in [0, 1): every value exactly representable.
float unit_float(std::uint64_t seed, std::uint64_t index) noexcept {
  return static_cast<float>(hash64(seed, index) >> 40) * 0x1.0p-24f;
}
}  // namespace

std::vector<float> uniform_floats(std::size_t count, std::uint64_t seed, float low, float high) {
  std::vector<float> values(count);
  parallel_for(count, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      values[i] = low + (high - low) * unit_float(seed, i);
  });
  return values;
}

std::vector<std::int32_t> uniform_ints(std::size_t count, std::uint64_t seed, std::int32_t low,
                                       std::int32_t high) {
  std::vector<std::int32_t> values(count);
  const std::uint64_t span = static_cast<std::uint64_t>(std::int64_t{high} - low) + 1;
  parallel_for(count, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      values[i] =
          static_cast<std::int32_t>(low + static_cast<std::int64_t>(hash64(seed, i) % span));
  });
  return values;
}

std::vector<std::uint32_t> uniform_keys(std::size_t count, std::uint64_t seed) {
  std::vector<std::uint32_t> values(count);
  parallel_for(count, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      values[i] = static_cast<std::uint32_t>(hash64(seed, i));
  });
  return values;
}

std::string_view to_string(Pattern pattern) noexcept {
  switch (pattern) {
    case Pattern::Uniform: return "uniform";
    case Pattern::AllEqual: return "all-equal";
    case Pattern::Ascending: return "ascending";
    case Pattern::Descending: return "descending";
    case Pattern::FewDistinct: return "few-distinct";
    case Pattern::LargeMagnitude: return "large-magnitude";
    case Pattern::Index: return "index";
  }
  return "unknown";
}

std::vector<float> pattern_floats(Pattern pattern, std::size_t count, std::uint64_t seed) {
  std::vector<float> values(count);
  const float step = count > 1 ? 2.0f / static_cast<float>(count) : 1.0f;
  parallel_for(count, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const float u = unit_float(seed, i);
      const float t = static_cast<float>(i);
      switch (pattern) {
        case Pattern::Uniform: values[i] = 2.0f * u - 1.0f; break;
        case Pattern::AllEqual: values[i] = 0.75f; break;
        case Pattern::Ascending: values[i] = -1.0f + step * t; break;
        case Pattern::Descending: values[i] = 1.0f - step * t; break;
        case Pattern::FewDistinct: values[i] = 0.5f * static_cast<float>(hash64(seed, i) % 4) - 0.75f; break;
        case Pattern::LargeMagnitude: values[i] = 2.0e6f * u - 1.0e6f; break;
        case Pattern::Index: values[i] = t; break;
      }
    }
  });
  return values;
}

std::string english_text(std::size_t count, std::uint64_t seed) {
  // Letter frequencies of English text, per 10000 letters, a..z.
  static constexpr std::array<int, 26> kFrequency = {
      817, 149, 278, 425, 1270, 223, 202, 609, 697, 15, 77, 403, 241,
      675, 751, 193, 10,  599, 633, 906, 276, 98,  236, 15, 197, 7};
  static const std::array<int, 27> kCumulative = [] {
    std::array<int, 27> sums{};
    for (std::size_t i = 0; i < 26; ++i) sums[i + 1] = sums[i] + kFrequency[i];
    return sums;
  }();
  std::string text(count, ' ');
  parallel_for(count, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t h = hash64(seed, i);
      if (h % 100 < 18) {
        text[i] = (h >> 8) % 10 == 0 ? static_cast<char>(".,;!?\n-'0"[(h >> 16) % 9]) : ' ';
        continue;
      }
      const int target =
          static_cast<int>((h >> 20) % static_cast<std::uint64_t>(kCumulative[26]));
      std::size_t letter = 0;
      while (kCumulative[letter + 1] <= target) ++letter;
      text[i] = static_cast<char>('a' + letter);
    }
  });
  return text;
}

std::string text_with_runs(std::size_t count, std::uint64_t seed, std::size_t mean_run) {
  std::string text(count, 'a');
  std::size_t i = 0;
  for (std::uint64_t run = 0; i < count; ++run) {
    const std::uint64_t h = hash64(seed, run);
    const std::size_t length = 1 + h % (2 * mean_run);
    const char letter = static_cast<char>('a' + (h >> 32) % 26);
    for (std::size_t end = std::min(count, i + length); i < end; ++i) text[i] = letter;
  }
  return text;
}

namespace {

// A rows x cols row-major matrix with element (i, j) = f(i, j), i and j as doubles.
template <class F>
std::vector<float> matrix_of(std::size_t rows, std::size_t cols, F f) {
  std::vector<float> m(rows * cols);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j)
      m[i * cols + j] = static_cast<float>(f(static_cast<double>(i), static_cast<double>(j)));
  return m;
}

}  // namespace

std::vector<float> lab_report_matrix_a(std::size_t rows, std::size_t cols) {
  return matrix_of(rows, cols, [](double x, double y) { return (x - 0.1 * y + 1.0) / (x + y + 1.0); });
}

std::vector<float> lab_report_matrix_b(std::size_t rows, std::size_t cols) {
  return matrix_of(rows, cols, [](double x, double y) {
    return (y - 0.2 * x + 1.0) * (x + y + 1.0) / (x * x + y * y + 1.0);
  });
}

}  // namespace course
