/// @file
/// @brief Lesson 11's CPU reference: the specification, in a few obvious lines.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
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

/// Each key's sort key and its input position in one number: ordering those orders by key, and
/// equal keys by position, which is what a stable sort does (and faster than std::stable_sort
/// of positions, at the 2^24 keys the tests sort). Positions fit in 32 bits: n <= kMaxKeys.
template <class Key, class SortKey>
SortedPairs sort_by_packing(std::span<const Key> keys, SortKey sort_key) {
  std::vector<std::uint64_t> packed(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    packed[i] = (std::uint64_t{sort_key(keys[i])} << 32) | i;
  std::sort(packed.begin(), packed.end());
  SortedPairs sorted{std::vector<std::uint32_t>(keys.size()),
                     std::vector<std::uint32_t>(keys.size())};
  for (std::size_t i = 0; i < keys.size(); ++i) {
    sorted.order[i] = static_cast<std::uint32_t>(packed[i]);
    sorted.keys[i] = std::bit_cast<std::uint32_t>(keys[sorted.order[i]]);
  }
  return sorted;
}

/// Stable sort of @p keys (uint32, ascending): what every rung must produce, and for the stable
/// rungs the exact order of the values.
inline SortedPairs sort_reference(std::span<const std::uint32_t> keys) {
  return sort_by_packing(keys, [](std::uint32_t key) { return key; });
}

/// Stable sort of float @p keys by IEEE 754 totalOrder; keys are returned as their bit patterns.
inline SortedPairs sort_reference(std::span<const float> keys) {
  return sort_by_packing(keys, ordered_bits);
}

}  // namespace course::lesson11
