// The demos' options, read and checked: what --size and --block take, and the counts and shapes
// they parse (course/demo.hpp). The tables and run_demo() are in demo.cpp.
#include <algorithm>
#include <array>
#include <bit>
#include <string>

#include "course/data.hpp"
#include "course/demo.hpp"

namespace course {

bool DemoOptions::wants(std::string_view variant) const {
  return variants.empty() || std::find(variants.begin(), variants.end(), variant) != variants.end();
}

MeasureOptions DemoOptions::measuring(std::optional<std::uint64_t> stream) const {
  MeasureOptions measuring;
  measuring.repeats = repeat;
  measuring.seed = stream ? derive_seed(base_seed(), *stream) : base_seed();
  return measuring;
}

std::string DemoOptions::size_or(std::string_view fallback) const {
  return size.empty() ? std::string(fallback) : size;
}

int DemoOptions::block_or(int fallback) const noexcept {
  return block != 0 ? block : fallback;
}

std::string BlockRule::text() const {
  return std::string(power_of_two ? "a power of two" : "a multiple of 32") + " in [" +
         std::to_string(min) + ", " + std::to_string(max) + "]";
}

std::string BlockRule::help(int fallback) const {
  return text() + ", default " + std::to_string(fallback);
}

std::optional<std::string> BlockRule::problem(int block) const {
  const bool shaped =
      power_of_two ? std::has_single_bit(static_cast<unsigned>(block)) : block % 32 == 0;
  if (block == 0 || (block >= min && block <= max && shaped))
    return std::nullopt;
  return "--block must be " + text();
}

std::optional<std::uint64_t> parse_count(const std::string& text) {
  if (text.empty())
    return std::nullopt;
  try {
    std::size_t used = 0;
    if (const auto caret = text.find('^'); caret != std::string::npos) {
      if (text.substr(0, caret) != "2")
        return std::nullopt;
      const int power = std::stoi(text.substr(caret + 1), &used);
      if (used != text.size() - caret - 1 || power < 0 || power > 40)
        return std::nullopt;
      return std::uint64_t{1} << power;
    }
    if (text.front() == '-' || text.front() == '+')
      return std::nullopt;
    const unsigned long long value = std::stoull(text, &used);
    const std::string suffix = text.substr(used);
    if (suffix.empty())
      return value;
    if (suffix == "k" || suffix == "K")
      return value << 10;
    if (suffix == "M")
      return value << 20;
    if (suffix == "G")
      return value << 30;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::optional<std::string> count_problem(std::string_view option, const std::string& text,
                                         std::uint64_t max, std::string_view examples) {
  if (const auto n = parse_count(text); n && *n >= 1 && *n <= max)
    return std::nullopt;
  std::string problem = std::string(option) + " takes a count in [1, 2^" +
                        std::to_string(std::bit_width(max) - 1) + "]";
  if (!examples.empty())
    problem += ", e.g. " + std::string(examples);
  return problem;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_shape(const std::string& text) {
  const auto x = text.find('x');
  if (x == std::string::npos) {
    auto n = parse_count(text);
    if (!n)
      return std::nullopt;
    return std::pair{*n, *n};
  }
  auto rows = parse_count(text.substr(0, x));
  auto cols = parse_count(text.substr(x + 1));
  if (!rows || !cols)
    return std::nullopt;
  return std::pair{*rows, *cols};
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_shape(const std::string& text,
                                                                   std::uint64_t max_extent,
                                                                   std::uint64_t max_elements) {
  const auto shape = parse_shape(text);
  if (!shape || shape->first < 1 || shape->second < 1 || shape->first > max_extent ||
      shape->second > max_extent || shape->first > max_elements / shape->second)
    return std::nullopt;
  return shape;
}

std::optional<std::array<std::uint64_t, 3>> parse_shape3(const std::string& text) {
  if (text.empty() || text.back() == 'x')
    return std::nullopt;
  std::vector<std::uint64_t> parts;
  std::size_t begin = 0;
  while (true) {
    const auto end = text.find('x', begin);
    const auto value = parse_count(text.substr(begin, end - begin));
    if (!value)
      return std::nullopt;
    parts.push_back(*value);
    if (end == std::string::npos)
      break;
    begin = end + 1;
  }
  if (parts.size() == 1)
    return std::array{parts[0], parts[0], parts[0]};
  if (parts.size() != 3)
    return std::nullopt;
  return std::array{parts[0], parts[1], parts[2]};
}

std::optional<std::array<std::uint64_t, 3>> parse_shape3(const std::string& text,
                                                         std::uint64_t max_extent,
                                                         std::uint64_t max_elements) {
  const auto parts = parse_shape3(text);
  if (!parts)
    return std::nullopt;
  for (const auto part : *parts)
    if (part < 1 || part > max_extent)
      return std::nullopt;
  const auto [a, b, c] = *parts;
  if (a > max_elements / b || a * b > max_elements / c)  // a b c > max_elements, without overflow
    return std::nullopt;
  return parts;
}

std::optional<GemmDims> parse_gemm_dims(const std::string& text, int max_extent,
                                        std::uint64_t max_elements) {
  const auto parts = parse_shape3(text, static_cast<std::uint64_t>(max_extent));
  if (!parts)
    return std::nullopt;
  const auto [m, n, k] = *parts;
  if (m * k > max_elements || k * n > max_elements || m * n > max_elements)
    return std::nullopt;
  return GemmDims{static_cast<int>(m), static_cast<int>(n), static_cast<int>(k)};
}

std::optional<std::string> gemm_dims_problem(const std::string& text, int max_extent,
                                             std::uint64_t max_elements) {
  if (parse_gemm_dims(text, max_extent, max_elements))
    return std::nullopt;
  const int power = std::bit_width(max_elements) - 1;
  const std::string side = std::to_string(std::uint64_t{1} << (power / 2));
  return "--size takes MxNxK or N, with 1 <= M, N, K <= " + std::to_string(max_extent) +
         " and at most 2^" + std::to_string(power) + " (" + side + " x " + side +
         ") elements in each of A, B and C, e.g. 4096 or 1000x1000x1000";
}

std::string shape_text(GemmDims dims) {
  return std::to_string(dims.m) + " x " + std::to_string(dims.n) + " x " + std::to_string(dims.k);
}

}  // namespace course
