/// @file
/// @brief Lesson 04, C = A·Aᵀ: the interface shared by skeleton, solution, tests and demo.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <string_view>

#include "course/variants.hpp"

namespace course::lesson04 {

/// The rungs of the ladder, in teaching order.
enum class Variant {
  TiledUnpadded,    ///< given: 32 x 32 tiles of A and of A-as-Aᵀ; the second is read by column
  TiledPadded,      ///< exercise: the second tile padded to [32][33], no bank conflicts
  TransposedStore,  ///< exercise: the second tile stored transposed while loading, no padding
  Symmetric,        ///< exercise: only the tiles on and above the diagonal, mirrored: half the work
  RegisterTiled,    ///< stretch: 128 x 128 tiles, 8 x 8 outputs per thread, on top of symmetry
};

/// A rung's name, kind and launch shape, for tables, tests and docs.
struct VariantInfo {
  Variant variant;        ///< the rung
  std::string_view name;  ///< as the demo's --variant takes it
  std::string_view kind;  ///< given, exercise or stretch
  int threads;            ///< threads per block
};

/// All rungs, in teaching order.
inline constexpr std::array<VariantInfo, 5> kVariants{{
    {Variant::TiledUnpadded, "tiled_unpadded", "given", 1024},
    {Variant::TiledPadded, "tiled_padded", "exercise", 1024},
    {Variant::TransposedStore, "transposed_store", "exercise", 1024},
    {Variant::Symmetric, "symmetric", "exercise", 1024},
    {Variant::RegisterTiled, "register_tiled", "stretch", 256},
}};

/// The name of @p variant.
[[nodiscard]] constexpr std::string_view name_of(Variant variant) {
  return name_in(kVariants, variant);
}

/// The largest n a launch accepts: C has at most 8192 * 8192 = 2^26 elements (256 MiB).
inline constexpr int kMaxN = 8192;

/// The largest number of elements of A, n * k: 2^26 (256 MiB). The tests run every rung with C
/// of kMaxN * kMaxN elements and with A of kMaxElements, so no index arithmetic of a shape the
/// launcher accepts is left unchecked; every row-major index, even counted in bytes, fits in an
/// int with room to spare.
inline constexpr long long kMaxElements = 1LL << 26;

/// Computes C = A·Aᵀ for a row-major n x k matrix A: C is n x n, row-major, and
/// C[i][j] = sum over p of A[i][p] * A[j][p] (the dot product of rows i and j of A). C is
/// symmetric; every rung writes all n * n elements.
///
/// @param[in]  variant the rung to run
/// @param[in]  d_a     device memory, n * k floats (may be null when n * k = 0)
/// @param[out] d_c     device memory, n * n floats, not overlapping d_a
/// @param[in]  n       rows of A, and rows and columns of C: 0 <= n <= kMaxN
/// @param[in]  k       columns of A: k >= 0 and n * k <= kMaxElements
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @pre n = 0 is a no-op that never touches the GPU. k = 0 is allowed: every element of C is
///      then an empty sum, and the rung writes the n x n zero matrix (A is never read).
/// @throws std::invalid_argument for a negative or too large n or k, a null pointer where the
///         shape is not empty, or overlapping buffers (A·Aᵀ cannot be computed in place);
///         course::NotImplemented for a rung the skeleton has not written yet;
///         course::CudaError if the launch fails.
void aat(Variant variant, const float* d_a, float* d_c, int n, int k, cudaStream_t stream = {});

}  // namespace course::lesson04
