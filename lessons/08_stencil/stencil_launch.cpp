// Lesson 08: checks the arguments once, then hands the call to the rung's launcher; the heat
// demo's set-up and its picture.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "course/error.hpp"
#include "course/image.hpp"
#include "course/indexing.hpp"
#include "stencil.cuh"
#include "stencil_rungs.cuh"

namespace course::lesson08 {

namespace {

// Throws for a bad call; returns true when there is work (a non-empty grid).
bool prepare(const std::string& who, const float* d_in, const float* d_out, Grid grid,
             const Coefficients& c) {
  const std::string range = "0 <= nx, ny, nz <= " + std::to_string(kMaxExtent);
  require(grid.nx >= 0 && grid.ny >= 0 && grid.nz >= 0,
          who + ": extents must be non-negative (" + range + ")");
  require(grid.nx <= kMaxExtent && grid.ny <= kMaxExtent && grid.nz <= kMaxExtent,
          who + ": grid too large (" + range + ")");
  require(grid.count() <= kMaxPoints,
          who + ": grid too large (nx * ny * nz <= 2^30: every index must fit in 32 bits)");
  for (const float w : {c.c0, c.c1, c.c2, c.c3, c.c4, c.c5, c.c6})
    require(std::isfinite(w), who + ": coefficients c0 ... c6 must be finite numbers");
  if (grid.count() == 0)
    return false;
  require(d_in != nullptr && d_out != nullptr,
          who + ": both buffers must be device pointers (null only for an empty grid)");
  require(!overlap(d_in, d_out, grid.count()),
          who + ": the two buffers overlap; a sweep reads every point after others are written");
  return true;
}

}  // namespace

void stencil(Variant variant, const float* d_in, float* d_out, Grid grid, const Coefficients& c,
             cudaStream_t stream) {
  if (!prepare("stencil", d_in, d_out, grid, c))
    return;
  switch (variant) {
    case Variant::Basic:
      return launch_basic(d_in, d_out, grid, c, stream);
    case Variant::SharedTiled:
      return launch_shared_tiled(d_in, d_out, grid, c, stream);
    case Variant::CoarsenedZ:
      return launch_coarsened_z(d_in, d_out, grid, c, stream);
    case Variant::RegisterTiled:
      return launch_register_tiled(d_in, d_out, grid, c, stream);
    case Variant::Tuned:
      return launch_tuned(d_in, d_out, grid, c, stream);
  }
  throw std::invalid_argument("stencil: unknown variant");
}

float* jacobi(float* d_a, float* d_b, Grid grid, const Coefficients& c, int sweeps, Variant kernel,
              cudaStream_t stream) {
  require(sweeps >= 0, "jacobi: sweeps must be >= 0");
  if (!prepare("jacobi", d_a, d_b, grid, c))
    return d_a;
  return run_jacobi(d_a, d_b, grid, c, sweeps, kernel, stream);
}

Coefficients heat_coefficients(float alpha) {
  require(alpha > 0.0f && alpha <= 1.0f / 6.0f,
          "heat_coefficients: alpha must be in (0, 1/6] for a stable step");
  return {1.0f - 6.0f * alpha, alpha, alpha, alpha, alpha, alpha, alpha};
}

std::vector<float> heat_initial_field(Grid grid) {
  require(grid.nx >= 1 && grid.ny >= 1 && grid.nz >= 1, "heat_initial_field: extents must be >= 1");
  std::vector<float> field(grid.count(), 0.0f);
  const double cx = 0.5 * (grid.nx - 1), cy = 0.5 * (grid.ny - 1), cz = 0.5 * (grid.nz - 1);
  const double radius = std::min({grid.nx, grid.ny, grid.nz}) / 6.0;
  for (int z = 0; z < grid.nz; ++z)
    for (int y = 0; y < grid.ny; ++y)
      for (int x = 0; x < grid.nx; ++x) {
        const double dx = x - cx, dy = y - cy, dz = z - cz;
        if (x == 0 || dx * dx + dy * dy + dz * dz <= radius * radius)
          field[at(x, y, z, grid)] = 1.0f;
      }
  return field;
}

void save_slice_png(const std::string& path, std::span<const float> field, Grid grid, int z,
                    float low, float high) {
  require(grid.nx >= 1 && grid.ny >= 1 && grid.nz >= 1 && field.size() == grid.count(),
          "save_slice_png: the field must hold nx * ny * nz floats");
  require(z >= 0 && z < grid.nz, "save_slice_png: the plane must satisfy 0 <= z < nz");
  // x is fastest and y next, so plane z is one contiguous nx * ny block, row y = image row y.
  const std::size_t plane = static_cast<std::size_t>(grid.nx) * grid.ny;
  write_png(path, field.subspan(static_cast<std::size_t>(z) * plane, plane), grid.nx, grid.ny, low,
            high);
}

}  // namespace course::lesson08
