/// @file
/// @brief Lesson 02's CPU reference: the specification, in a few obvious lines.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace course::lesson02 {

/// The transpose of the rows x cols row-major matrix @p in: a cols x rows row-major matrix.
inline std::vector<float> transpose_reference(std::span<const float> in, int rows, int cols) {
  std::vector<float> out(in.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      out[static_cast<std::size_t>(c) * rows + r] = in[static_cast<std::size_t>(r) * cols + c];
  return out;
}

}  // namespace course::lesson02
