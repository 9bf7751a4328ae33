/// @file
/// @brief Lesson 08's rungs, one launcher each, called by stencil() and jacobi() after they have
/// checked the arguments. The given rung lives in stencil_given.cu, the exercises in stencil.cu,
/// the stretch rungs in stencil_stretch.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "stencil.cuh"

namespace course::lesson08 {

/// Element (x, y, z) of @p grid, in 64-bit arithmetic: a 2048^3 grid has more than 2^32 points.
__host__ __device__ inline std::size_t at(int x, int y, int z, Grid grid) {
  return (static_cast<std::size_t>(z) * grid.ny + y) * grid.nx + x;
}

/// True for a point whose six neighbours all lie in @p grid; every other point is a boundary
/// point and is copied unchanged.
__host__ __device__ inline bool is_interior(int x, int y, int z, Grid grid) {
  return x >= 1 && x < grid.nx - 1 && y >= 1 && y < grid.ny - 1 && z >= 1 && z < grid.nz - 1;
}

/// Rung basic: threads per block along x, y and z.
inline constexpr int kBasicX = 32;
inline constexpr int kBasicY = 4;  ///< rung basic: threads per block along y
inline constexpr int kBasicZ = 4;  ///< rung basic: threads per block along z

/// Rung shared_tiled: the input tile's edge (one thread per input point: 512 threads).
inline constexpr int kInTile = 8;
/// Rung shared_tiled: the output tile's edge, the input tile less a halo point on each side.
inline constexpr int kOutTile = kInTile - 2;

/// Rungs coarsened_z and register_tiled: the input tile's edge in x and y (32 x 32 threads).
inline constexpr int kPlaneIn = 32;
/// Rungs coarsened_z and register_tiled: the output tile's edge in x and y.
inline constexpr int kPlaneOut = kPlaneIn - 2;
/// Rungs coarsened_z and register_tiled: the planes one block computes, marching along z.
inline constexpr int kPlanesPerBlock = 32;

// Each launcher: a non-empty grid, valid non-overlapping buffers (checked by the caller).
void launch_basic(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                  cudaStream_t stream);
void launch_shared_tiled(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                         cudaStream_t stream);
void launch_coarsened_z(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                        cudaStream_t stream);
void launch_register_tiled(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                           cudaStream_t stream);
void launch_tuned(const float* d_in, float* d_out, Grid grid, const Coefficients& c,
                  cudaStream_t stream);

// The Jacobi driver's body: a non-empty grid, sweeps >= 0, valid buffers (checked by jacobi()).
float* run_jacobi(float* d_a, float* d_b, Grid grid, const Coefficients& c, int sweeps,
                  Variant kernel, cudaStream_t stream);

}  // namespace course::lesson08
