/// @file
/// @brief Lesson 06's CPU reference: the true average (the box-blur article's forgot to divide).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace course::lesson06 {

/// out[i] = mean(in[i - R .. i + R]) in double for R <= i < n - R; the R elements at each end
/// unchanged. Reads @p in once per neighbour: time it on write-combined memory to see why the
/// CPU should never read that kind.
inline std::vector<double> blur_reference(std::span<const float> in, int radius) {
  const std::size_t n = in.size();
  const std::size_t r = static_cast<std::size_t>(radius);
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i < r || i + r >= n) {
      out[i] = in[i];
      continue;
    }
    double sum = 0.0;
    for (std::size_t j = i - r; j <= i + r; ++j) sum += in[j];
    out[i] = sum / static_cast<double>(2 * r + 1);
  }
  return out;
}

}  // namespace course::lesson06
