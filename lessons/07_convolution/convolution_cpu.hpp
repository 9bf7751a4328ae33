/// @file
/// @brief Lesson 07's CPU reference: the specification, in a few obvious lines, with the error
/// bound a float result must meet.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "convolution.cuh"
#include "course/parallel.hpp"

namespace course::lesson07 {

/// The exact convolution (in double) and, per pixel, how far a correct float result may be from
/// it.
struct Reference {
  /// out[y][x] = sum of weights[dy + r][dx + r] * in[y + dy][x + dx] over the pixels inside the
  /// image, accumulated in double: exact to about 1e-16 relative.
  std::vector<double> value;
  /// gamma_k * sum of |weights[dy + r][dx + r] * in[y + dy][x + dx]|, with k = (2r + 1)^2 + 2 and
  /// gamma_k = k u / (1 - k u), u = 2^-24: the most a float sum of those products can be off, in
  /// any order of summation, with or without fused multiply-adds (Higham, section 3.1). The two
  /// extra roundings cover a separable filter applied as two passes of 2r + 1 terms, whose
  /// weights are column[i] * row[j] before rounding to float.
  std::vector<double> bound;
};

/// The reference for rows [@p first_row, @p last_row) of the width x height row-major image
/// @p in (last_row < 0: to the bottom). value and bound hold those rows only.
inline Reference convolve_reference(std::span<const float> in, int width, int height,
                                    const Filter& filter, int first_row = 0, int last_row = -1) {
  if (last_row < 0)
    last_row = height;
  const int r = filter.radius;
  const int side = filter.size();
  const double u = std::ldexp(1.0, -24);
  const double k = static_cast<double>(side) * side + 2;
  const double gamma = k * u / (1 - k * u);
  Reference ref;
  const std::size_t count = static_cast<std::size_t>(last_row - first_row) * width;
  ref.value.assign(count, 0.0);
  ref.bound.assign(count, 0.0);
  // Rows are independent: threads take chunks of them (about 2^16 products a chunk).
  const auto rows = [&](std::size_t begin, std::size_t end) {
    for (int y = first_row + static_cast<int>(begin); y < first_row + static_cast<int>(end); ++y) {
      for (int x = 0; x < width; ++x) {
        double sum = 0.0, magnitude = 0.0;
        // Only the taps that land inside the image: the ghost cells contribute 0.
        for (int dy = std::max(-r, -y); dy <= std::min(r, height - 1 - y); ++dy) {
          for (int dx = std::max(-r, -x); dx <= std::min(r, width - 1 - x); ++dx) {
            const double term = static_cast<double>(filter.weights[(dy + r) * side + (dx + r)]) *
                                in[static_cast<std::size_t>(y + dy) * width + (x + dx)];
            sum += term;
            magnitude += std::abs(term);
          }
        }
        const std::size_t i = static_cast<std::size_t>(y - first_row) * width + x;
        ref.value[i] = sum;
        ref.bound[i] = gamma * magnitude;
      }
    }
  };
  parallel_for(static_cast<std::size_t>(last_row - first_row), rows,
               std::max<std::size_t>(1, (std::size_t{1} << 16) /
                                            (static_cast<std::size_t>(width) * side * side + 1)));
  return ref;
}

}  // namespace course::lesson07
