/// @file
/// @brief Lesson 00's CPU reference: the specification of the four tasks, in a few obvious lines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "debugging.cuh"

namespace course::lesson00 {

/// How many elements of @p in are greater than zero.
inline std::int32_t count_positive_reference(std::span<const float> in) {
  std::int32_t count = 0;
  for (const float x : in)
    if (x > 0.0f)
      ++count;
  return count;
}

/// The mean of each pair of @p in; an odd last element is its own mean.
inline std::vector<float> downsample_reference(std::span<const float> in) {
  std::vector<float> out(downsampled_length(in.size()));
  for (std::size_t j = 0; j < out.size(); ++j) {
    const std::size_t first = 2 * j;
    out[j] = first + 1 < in.size() ? 0.5f * (in[first] + in[first + 1]) : in[first];
  }
  return out;
}

/// @p in, last element first.
inline std::vector<float> reverse_reference(std::span<const float> in) {
  return std::vector<float>(in.rbegin(), in.rend());
}

/// The 3-point moving average of @p in, with zeros past both ends.
inline std::vector<float> smooth_reference(std::span<const float> in) {
  const std::size_t n = in.size();
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float left = i > 0 ? in[i - 1] : 0.0f;
    const float right = i + 1 < n ? in[i + 1] : 0.0f;
    out[i] = (left + in[i] + right) * kThird;
  }
  return out;
}

}  // namespace course::lesson00
