/// @file
/// @brief Lesson 11's CPU reference: the specification, in a few obvious lines.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

namespace course::lesson11 {

/// The key that orders floats by IEEE 754 totalOrder when compared as unsigned integers:
/// negative floats have all bits inverted, positive ones get the sign bit set.
inline std::uint32_t ordered_bits(float key) {
  const auto bits = std::bit_cast<std::uint32_t>(key);
  return (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
}

/// Sorted keys and the input positions they came from.
struct SortedPairs {
  std::vector<std::uint32_t> keys;   ///< the sorted key bits (floats as their bit patterns)
  std::vector<std::uint32_t> order;  ///< order[i] = where keys[i] was in the input (stable)
};

/// Stable sort of @p keys (uint32, ascending): what every rung must produce, and for the stable
/// rungs the exact order of the values.
inline SortedPairs sort_reference(std::span<const std::uint32_t> keys) {
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  SortedPairs sorted{std::vector<std::uint32_t>(keys.size()), order};
  for (std::size_t i = 0; i < keys.size(); ++i)
    sorted.keys[i] = keys[order[i]];
  return sorted;
}

/// Stable sort of float @p keys by IEEE 754 totalOrder; keys are returned as their bit patterns.
inline SortedPairs sort_reference(std::span<const float> keys) {
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return ordered_bits(keys[a]) < ordered_bits(keys[b]);
  });
  SortedPairs sorted{std::vector<std::uint32_t>(keys.size()), order};
  for (std::size_t i = 0; i < keys.size(); ++i)
    sorted.keys[i] = std::bit_cast<std::uint32_t>(keys[order[i]]);
  return sorted;
}

}  // namespace course::lesson11
