/// @file
/// @brief Lesson 03, matrix multiplication: the interface shared by skeleton, solution, tests and
/// demo.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <string_view>

#include "course/variants.hpp"

namespace course::lesson03 {

/// The rungs of the ladder, in teaching order.
enum class Variant {
  NaiveUncoalesced,  ///< given: one thread per output, a warp's threads walk down a column of C
  Naive,             ///< given: one thread per output, a warp's threads walk along a row of C
  Tiled,             ///< exercise: TILE x TILE tiles of A and B in shared memory (TILE = 32)
  Register1d,        ///< exercise: each thread accumulates a column of 8 outputs in registers
  Register2d,        ///< stretch: 8 x 8 outputs per thread, float4 reads of the shared tiles
  Warptiled,         ///< stretch: warp tiles fed by a cp.async pipeline: the road to cuBLAS
};

/// A rung's name, kind and launch shape, for tables, tests and docs.
struct VariantInfo {
  Variant variant;        ///< the rung
  std::string_view name;  ///< as the demo's --variant takes it
  std::string_view kind;  ///< given, exercise or stretch
  int threads;            ///< threads per block of the rung's launch
  int outputs;            ///< elements of C each thread computes
};

/// All rungs, in teaching order.
inline constexpr std::array<VariantInfo, 6> kVariants{{
    {Variant::NaiveUncoalesced, "naive_uncoalesced", "given", 256, 1},
    {Variant::Naive, "naive", "given", 256, 1},
    {Variant::Tiled, "tiled", "exercise", 1024, 1},
    {Variant::Register1d, "register_1d", "exercise", 512, 8},
    {Variant::Register2d, "register_2d", "stretch", 256, 64},
    {Variant::Warptiled, "warptiled", "stretch", 256, 128},
}};

/// The name of @p variant.
[[nodiscard]] constexpr std::string_view name_of(Variant variant) {
  return name_in(kVariants, variant);
}

/// The tile edge of the Tiled rung (the matmul lab report found 32 the fastest of 4, 8, 16, 32).
inline constexpr int kTiledTile = 32;

/// The tile edges multiply_tiled() accepts: the matmul lab report's sweep.
inline constexpr std::array<int, 4> kTileSweep{4, 8, 16, 32};

/// The largest M or N a launch accepts: 65535 blocks of 4 rows (tiled<4>) along the grid's y
/// dimension.
inline constexpr int kMaxExtent = 65535 * 4;

/// The largest number of elements of A, B or C: 2^26, an 8192 x 8192 matrix (256 MiB). The tests
/// run every rung with A, B and C each at this size, so no index arithmetic of a shape the
/// launcher accepts is left unchecked; every row-major index, even counted in bytes, fits in an
/// int with room to spare.
inline constexpr long long kMaxElements = 1LL << 26;

/// Multiplies row-major matrices: C = A · B, where A is m × k, B is k × n and C is m × n.
///
/// @param[in]  variant the rung to run
/// @param[in]  d_a     device memory, m * k floats
/// @param[in]  d_b     device memory, k * n floats
/// @param[out] d_c     device memory, m * n floats, overlapping neither A nor B
/// @param[in]  m       rows of A and C, 0 <= m <= kMaxExtent
/// @param[in]  n       columns of B and C, 0 <= n <= kMaxExtent
/// @param[in]  k       columns of A and rows of B, k >= 0
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @pre m * k, k * n and m * n are at most kMaxElements. Any shape within these limits works:
///      no dimension needs to be a multiple of a tile, and no pointer needs more than float
///      alignment.
/// @pre When m or n is 0, C is empty: the call is a no-op that never touches the GPU (the
///      pointers may then be null). When k is 0 (and m, n > 0), C is the zero matrix: every
///      rung fills it with zeros, the value of an empty sum.
/// @throws std::invalid_argument for a negative or too large dimension, a null pointer, or C
///         overlapping A or B; course::NotImplemented for a rung the skeleton has not written
///         yet; course::CudaError if the launch fails.
void multiply(Variant variant, const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
              cudaStream_t stream = {});

/// The Tiled rung at another tile edge, for the demo's `--sweep tile`: the same kernel template
/// instantiated at TILE = @p tile, launched in blocks of TILE x TILE threads. Arguments, limits
/// and errors as multiply().
///
/// @param[in]  tile    the tile edge: 4, 8, 16 or 32 (kTileSweep)
/// @param[in]  d_a     device memory, m * k floats
/// @param[in]  d_b     device memory, k * n floats
/// @param[out] d_c     device memory, m * n floats, overlapping neither A nor B
/// @param[in]  m       rows of A and C, 0 <= m <= kMaxExtent
/// @param[in]  n       columns of B and C, 0 <= n <= kMaxExtent
/// @param[in]  k       columns of A and rows of B, k >= 0
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @throws std::invalid_argument for a tile edge other than 4, 8, 16 or 32, and as multiply().
void multiply_tiled(int tile, const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                    cudaStream_t stream = {});

}  // namespace course::lesson03
