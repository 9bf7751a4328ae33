/// @file
/// @brief Lesson 08, 3D seven-point stencil and thread coarsening: the interface shared by
/// skeleton, solution, tests and demo.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "course/variants.hpp"

namespace course::lesson08 {

/// The kernel rungs of the ladder, in teaching order. The Jacobi driver (jacobi()) is the
/// ladder's last rung; it runs one of these kernels many times.
enum class Variant {
  Basic,          ///< given: one thread per point, seven loads from global memory
  SharedTiled,    ///< exercise: an 8 x 8 x 8 input tile in shared memory, 6 x 6 x 6 outputs
  CoarsenedZ,     ///< exercise: a 32 x 32 block marches along z, three planes in shared memory
  RegisterTiled,  ///< exercise: the same march, previous and next plane in registers
  Tuned,          ///< stretch: aligned 32 x 32 output tiles, four rows per thread, loads early
};

/// A rung's name and kind, for tables, tests and docs.
using VariantInfo = RungInfo<Variant>;

/// All kernel rungs, in teaching order.
inline constexpr std::array<VariantInfo, 5> kVariants{{
    {Variant::Basic, "basic", "given"},
    {Variant::SharedTiled, "shared_tiled", "exercise"},
    {Variant::CoarsenedZ, "coarsened_z", "exercise"},
    {Variant::RegisterTiled, "register_tiled", "exercise"},
    {Variant::Tuned, "tuned", "stretch"},
}};

/// The name of the Jacobi driver's rung, as the demo's --variant takes it (a stretch).
inline constexpr std::string_view kJacobiName = "jacobi";

/// The name of @p variant.
[[nodiscard]] constexpr std::string_view name_of(Variant variant) {
  return name_in(kVariants, variant);
}

/// The largest extent a launch accepts in each dimension (2^17: every rung's grid of blocks
/// then fits CUDA's limits).
inline constexpr int kMaxExtent = 1 << 17;
/// The most points (nx * ny * nz) a launch accepts: 2^30, 4 GiB a buffer. Every point's index,
/// and its neighbours' (at most one plane further), then fit in a 32-bit int, so a kernel that
/// indexes with int is right at every size a launch accepts.
inline constexpr std::size_t kMaxPoints = std::size_t{1} << 30;

/// The shape of a grid of points: nx * ny * nz floats, x fastest, then y, then z. Point
/// (x, y, z) is element (z * ny + y) * nx + x.
struct Grid {
  int nx = 0;  ///< points along x (contiguous in memory)
  int ny = 0;  ///< points along y
  int nz = 0;  ///< points along z (planes)
  /// Points in the grid (0 when any extent is 0 or negative).
  [[nodiscard]] constexpr std::size_t count() const noexcept {
    return nx > 0 && ny > 0 && nz > 0
               ? static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny) *
                     static_cast<std::size_t>(nz)
               : 0;
  }
};

/// The seven weights of the stencil (the names of the PMPP notes, after PMPP):
/// out = c0 * centre + c1 * (x - 1) + c2 * (x + 1) + c3 * (y - 1) + c4 * (y + 1)
///     + c5 * (z - 1) + c6 * (z + 1).
struct Coefficients {
  float c0 = 0.0f;  ///< the centre point
  float c1 = 0.0f;  ///< the neighbour at x - 1
  float c2 = 0.0f;  ///< the neighbour at x + 1
  float c3 = 0.0f;  ///< the neighbour at y - 1
  float c4 = 0.0f;  ///< the neighbour at y + 1
  float c5 = 0.0f;  ///< the neighbour at z - 1
  float c6 = 0.0f;  ///< the neighbour at z + 1
};

/// One sweep of the seven-point stencil: every interior point (1 <= x <= nx - 2, likewise y and
/// z) gets the weighted sum of itself and its six neighbours; every boundary point (x, y or z
/// on the first or last plane of its dimension) is copied unchanged. A grid with an extent
/// below 3 has no interior: the call copies it.
///
/// @param[in]  variant the rung to run
/// @param[in]  d_in    device memory, grid.count() floats
/// @param[out] d_out   device memory, grid.count() floats, not overlapping d_in
/// @param[in]  grid    the extents, each 0 <= n <= kMaxExtent, and grid.count() <= kMaxPoints
/// @param[in]  c       the weights, finite
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @pre An empty grid (an extent of 0) is a no-op that never touches the GPU (null pointers are
///      then allowed).
/// @throws std::invalid_argument for a negative or too large extent, more than kMaxPoints
///         points, a null pointer, overlapping buffers or a coefficient that is not finite;
///         course::NotImplemented for a rung the skeleton has not written yet;
///         course::CudaError if the launch fails.
void stencil(Variant variant, const float* d_in, float* d_out, Grid grid, const Coefficients& c,
             cudaStream_t stream = {});

/// The Jacobi driver: @p sweeps sweeps of the stencil, each reading the field the sweep before
/// wrote, ping-ponging between two device buffers (no copies, no allocation).
///
/// @param[in,out] d_a     device memory, grid.count() floats: the initial field; after an even
///                        number of sweeps, the result
/// @param[in,out] d_b     device memory, grid.count() floats, not overlapping d_a: scratch;
///                        after an odd number of sweeps, the result
/// @param[in]     grid    the extents, each 0 <= n <= kMaxExtent, and grid.count() <= kMaxPoints
/// @param[in]     c       the weights, finite
/// @param[in]     sweeps  how many sweeps, >= 0 (0 leaves d_a as it is)
/// @param[in]     kernel  the rung each sweep runs
/// @param[in]     stream  the stream to launch on (asynchronous)
/// @returns the buffer that holds the field after the last sweep: d_a or d_b (d_a for an empty
///          grid or no sweep).
/// @throws std::invalid_argument as stencil() does, and for sweeps < 0;
///         course::NotImplemented while the skeleton's driver (or @p kernel) is not written.
float* jacobi(float* d_a, float* d_b, Grid grid, const Coefficients& c, int sweeps,
              Variant kernel = Variant::Tuned, cudaStream_t stream = {});

/// The explicit heat-equation step u += alpha * (sum of the six neighbours - 6 u): c0 = 1 - 6
/// alpha, c1 ... c6 = alpha. Stable (no value leaves the range of the initial field) for
/// 0 < alpha <= 1/6.
/// @param[in] alpha the diffusion number, 0 < alpha <= 1/6
/// @throws std::invalid_argument for alpha outside (0, 1/6].
[[nodiscard]] Coefficients heat_coefficients(float alpha);

/// A field for the heat demo: 1 on the plane x = 0 (a hot wall, held by the boundary rule) and
/// in a ball of radius min(nx, ny, nz) / 6 around the centre; 0 elsewhere.
/// @param[in] grid the extents, each >= 1
/// @returns grid.count() floats, host memory
[[nodiscard]] std::vector<float> heat_initial_field(Grid grid);

/// Writes plane @p z of the host field @p field as a colour PNG (nx pixels wide, ny high),
/// mapping [@p low, @p high] onto blue-white-red.
/// @param[in] path  the file to write
/// @param[in] field host memory, grid.count() floats
/// @param[in] grid  the field's extents
/// @param[in] z     the plane, 0 <= z < nz
/// @param[in] low   the value drawn blue
/// @param[in] high  the value drawn red, > low
/// @throws std::invalid_argument for a field of the wrong size or a plane outside the grid;
///         std::runtime_error if the file cannot be written.
void save_slice_png(const std::string& path, std::span<const float> field, Grid grid, int z,
                    float low, float high);

}  // namespace course::lesson08
