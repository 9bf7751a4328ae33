/// @file
/// @brief Lesson 08's CPU reference: the specification, in a few obvious lines.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "course/parallel.hpp"
#include "stencil.cuh"

namespace course::lesson08 {

/// One sweep of the seven-point stencil over the host field @p in, in double precision:
/// interior points get c0 * centre + c1 * (x - 1) + c2 * (x + 1) + c3 * (y - 1) + c4 * (y + 1)
/// + c5 * (z - 1) + c6 * (z + 1); boundary points keep their value exactly.
inline std::vector<double> stencil_reference(std::span<const float> in, Grid g,
                                             const Coefficients& c) {
  std::vector<double> out(in.size());
  auto v = [&](int x, int y, int z) {
    return static_cast<double>(in[(static_cast<std::size_t>(z) * g.ny + y) * g.nx + x]);
  };
  // Rows (z, y) are independent: threads take chunks of them (about 2^16 points a chunk).
  const auto rows = [&](std::size_t begin, std::size_t end) {
    for (std::size_t row = begin; row < end; ++row) {
      const int z = static_cast<int>(row / g.ny), y = static_cast<int>(row % g.ny);
      for (int x = 0; x < g.nx; ++x) {
        const bool interior =
            x >= 1 && x < g.nx - 1 && y >= 1 && y < g.ny - 1 && z >= 1 && z < g.nz - 1;
        out[(static_cast<std::size_t>(z) * g.ny + y) * g.nx + x] =
            !interior ? v(x, y, z)
                      : double{c.c0} * v(x, y, z) + double{c.c1} * v(x - 1, y, z) +
                            double{c.c2} * v(x + 1, y, z) + double{c.c3} * v(x, y - 1, z) +
                            double{c.c4} * v(x, y + 1, z) + double{c.c5} * v(x, y, z - 1) +
                            double{c.c6} * v(x, y, z + 1);
      }
    }
  };
  parallel_for(static_cast<std::size_t>(g.nz) * g.ny, rows,
               std::max<std::size_t>(1, (std::size_t{1} << 16) / (g.nx + 1)));
  return out;
}

/// @p sweeps sweeps of stencil_reference(), each rounded to float before the next reads it (as
/// the GPU stores it). The float result after the last sweep.
inline std::vector<float> jacobi_reference(std::span<const float> in, Grid g, const Coefficients& c,
                                           int sweeps) {
  std::vector<float> field(in.begin(), in.end());
  for (int k = 0; k < sweeps; ++k) {
    const std::vector<double> next = stencil_reference(field, g, c);
    for (std::size_t i = 0; i < field.size(); ++i)
      field[i] = static_cast<float>(next[i]);
  }
  return field;
}

}  // namespace course::lesson08
