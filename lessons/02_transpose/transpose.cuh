/// @file
/// @brief Lesson 02, matrix transpose: the interface shared by skeleton, solution, tests and demo.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <string_view>

#include "course/variants.hpp"

namespace course::lesson02 {

/// The rungs of the ladder, in teaching order.
enum class Variant {
  Copy,        ///< given: a plain copy in the same launch shape, the lesson's speed of light
  Naive,       ///< given: one thread per element, coalesced reads, strided writes
  Tiled,       ///< exercise: a 32 x 32 tile through shared memory, conflicts on the column read
  Padded,      ///< exercise: the same tile padded to [32][33], no bank conflicts
  Coarsened,   ///< exercise: 32 x 8 threads per tile, four elements each
  Vectorized,  ///< stretch: 16-byte loads and stores, larger tiles: reaching for the ceiling
};

/// A rung's name and kind, for tables, tests and docs.
using VariantInfo = RungInfo<Variant>;

/// All rungs, in teaching order.
inline constexpr std::array<VariantInfo, 6> kVariants{{
    {Variant::Copy, "copy", "given"},
    {Variant::Naive, "naive", "given"},
    {Variant::Tiled, "tiled", "exercise"},
    {Variant::Padded, "padded", "exercise"},
    {Variant::Coarsened, "coarsened", "exercise"},
    {Variant::Vectorized, "vectorized", "stretch"},
}};

/// The name of @p variant.
[[nodiscard]] constexpr std::string_view name_of(Variant variant) {
  return name_in(kVariants, variant);
}

/// The largest number of rows or columns a launch accepts: 65535 tiles of 32 along the grid's
/// y dimension.
inline constexpr int kMaxExtent = 65535 * 32;
/// The most elements (rows * cols) a launch accepts: 2^28 floats, 1 GiB. Below it every element
/// index, even one a tile past the edge, fits in a 32-bit int, so a kernel's index arithmetic
/// cannot overflow at any shape the launcher accepts; the tests reach 2^26 (8192 x 8192).
inline constexpr std::size_t kMaxElements = std::size_t{1} << 28;

/// Transposes a rows x cols matrix: d_out[c][r] = d_in[r][c], both row-major; d_out is
/// cols x rows. The Copy rung instead copies d_in to d_out unchanged (rows x cols).
///
/// @param[in]  variant the rung to run
/// @param[in]  d_in    device memory, rows * cols floats
/// @param[out] d_out   device memory, rows * cols floats, not overlapping d_in
/// @param[in]  rows    rows of d_in, 0 <= rows <= kMaxExtent
/// @param[in]  cols    columns of d_in, 0 <= cols <= kMaxExtent
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @pre rows * cols <= kMaxElements. An empty matrix (rows or cols 0) is a no-op that never
///      touches the GPU.
/// @throws std::invalid_argument for a negative or too large extent, more than kMaxElements
///         elements, a null pointer, or overlapping buffers (in-place transpose is not
///         supported); course::NotImplemented for a rung the skeleton has not written yet;
///         course::CudaError if the launch fails.
void transpose(Variant variant, const float* d_in, float* d_out, int rows, int cols,
               cudaStream_t stream = {});

}  // namespace course::lesson02
