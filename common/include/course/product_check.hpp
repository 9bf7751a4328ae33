/// @file
/// @brief Checking a matrix product without an O(n³) loop on the CPU: every element against
/// cuBLAS within a proven error bound, plus sampled elements computed exactly in double.
///
/// A float dot product of length k, summed in any order (sequential, tiled, tree, with or
/// without FMA), differs from the exact result by at most γ_k · Σ|a_i b_i|, where
/// γ_k = k u / (1 − k u) and u = 2⁻²⁴ (Higham, *Accuracy and Stability of Numerical Algorithms*,
/// §3.1). The bound scales with the magnitudes of the terms, not with the result, so it holds
/// where the sum cancels to zero, and it never fails a correct kernel, whatever its order of
/// summation. A wrong element — a term missing at a ragged edge, a tile from the wrong place, a
/// value never written — is off by far more.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "course/compare.hpp"

namespace course::product {

/// How the second factor is stored.
enum class Second {
  B,             ///< B is k × n, row-major: C = A · B
  BColumnMajor,  ///< B is k × n, column-major (stored as n rows of k): C = A · B
  ATransposed    ///< the second factor is Aᵀ, from A itself (n × k): C = A · Aᵀ
};

/// γ_k: the relative error bound of a float dot product of length @p k, as a multiple of
/// Σ|a_i b_i|.
[[nodiscard]] double dot_error_bound(int k);

/// Checks the row-major m × n product @p d_c (device memory).
///
/// Products of at most 2²⁷ multiply-adds are compared element by element with a double
/// reference computed on the host. Larger ones are compared element by element with cuBLAS
/// (FP32 arithmetic, no tensor cores), allowing the error bound of both results; then @p samples
/// elements — the four corners, the last row and column, and random ones from @p seed — are
/// computed exactly in double and compared within the bound, so the verdict does not rest on
/// cuBLAS alone.
///
/// @param[in] d_a       A, m × k row-major (device memory)
/// @param[in] d_b       B, k × n as @p second stores it (device memory); ignored for
///                      Second::ATransposed
/// @param[in] d_c       the product to check, m × n row-major (device memory)
/// @param m,n,k         the shape; for Second::ATransposed, n must equal m
/// @param second        what the second factor is
/// @param seed          picks the sampled elements
/// @param samples       how many elements to compute exactly (large products only)
/// @return the comparison, with the first mismatches by (row, col)
[[nodiscard]] Comparison check(const float* d_a, const float* d_b, const float* d_c, int m, int n,
                               int k, Second second, std::uint64_t seed, int samples = 512);

/// Computes the row-major m × n product C = A · second into @p d_c with cuBLAS (FP32
/// arithmetic, no tensor cores), enqueued on @p stream: the trusted reference of a timed
/// launch (course/bench.hpp). Device memory throughout; one cuBLAS handle per process.
void multiply(const float* d_a, const float* d_b, float* d_c, int m, int n, int k, Second second,
              cudaStream_t stream);

/// Checks the shape and pointers of a call C = A · B (A m × k, B k × n) to the launcher @p who:
/// m, n, k >= 0; m, n <= @p max_extent; m k, k n and m n each at most @p max_elements; A, B and
/// C not null unless C is empty. Throws std::invalid_argument naming the limit that is broken.
/// The overlap of the buffers is the launcher's to check: it knows their element sizes.
/// @return whether C has any element (m, n > 0)
bool check_call(const std::string& who, const void* d_a, const void* d_b, const void* d_c, int m,
                int n, int k, int max_extent, long long max_elements);

}  // namespace course::product
