/// @file
/// @brief Lesson 01, constant memory: the interface shared by skeleton, solution, tests and demo.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <string_view>

#include "course/variants.hpp"

namespace course::lesson01 {

/// The rungs of the ladder, in teaching order.
enum class Variant {
  Table,                  ///< given: y = sin(sqrt(x)) for x = i * step, a first kernel
  PolyGlobal,             ///< given: a polynomial whose coefficients are read from global memory
  PolyConstant,           ///< exercise: the same with the coefficients in __constant__ memory
  PolyConstantDivergent,  ///< exercise: each element its own coefficient set: serialized reads
  Readback,               ///< exercise: the constant buffer read back with cudaMemcpyFromSymbol
};

/// A rung's name and kind, for tables, tests and docs.
using VariantInfo = RungInfo<Variant>;

/// All rungs, in teaching order.
inline constexpr std::array<VariantInfo, 5> kVariants{{
    {Variant::Table, "table", "given"},
    {Variant::PolyGlobal, "poly_global", "given"},
    {Variant::PolyConstant, "poly_constant", "exercise"},
    {Variant::PolyConstantDivergent, "poly_constant_divergent", "exercise"},
    {Variant::Readback, "readback", "exercise"},
}};

/// The name of @p variant.
[[nodiscard]] constexpr std::string_view name_of(Variant variant) {
  return name_in(kVariants, variant);
}

/// The highest polynomial degree a launch accepts.
inline constexpr int kMaxDegree = 63;
/// Floats in the __constant__ coefficient buffer: 64 sets of 64 coefficients, 16 KB of the
/// 64 KB of constant memory a program may use.
inline constexpr int kMaxCoefficients = 64 * 64;
/// The largest argument of the table: x = i * step must stay below it.
inline constexpr float kMaxTableArgument = 1024.0f;
/// The most elements one launch accepts: 2^28 floats, 1 GiB per vector. Below it an element
/// index, even times a few points per thread, fits in a 32-bit int, so a kernel's index
/// arithmetic cannot overflow at any n the launchers accept; the tests reach 2^26.
inline constexpr std::size_t kMaxElements = std::size_t{1} << 28;
/// Threads per block when the caller does not choose.
inline constexpr int kDefaultBlock = 256;

/// Fills the table y[i] = sin(sqrt(i * step)) for 0 <= i < n.
/// @param[out] d_y    device memory, n floats
/// @param[in]  n      elements, n <= kMaxElements; 0 is a no-op
/// @param[in]  step   spacing of x, finite, >= 0, with (n - 1) * step < kMaxTableArgument
/// @param[in]  stream the stream to launch on (asynchronous)
/// @param[in]  block  threads per block, a multiple of 32 in [32, 1024]
/// @throws std::invalid_argument for a null pointer, a bad step, n or block.
void sin_sqrt_table(float* d_y, std::size_t n, float step, cudaStream_t stream = {},
                    int block = kDefaultBlock);

/// y[i] = p(x[i]) = c[0] + c[1] x + ... + c[degree] x^degree, with c in global memory (Horner).
/// @param[in]  d_coefficients device memory, degree + 1 floats, c[0] first
/// @param[in]  degree  0 <= degree <= kMaxDegree
/// @param[in]  d_x     device memory, n floats
/// @param[out] d_y     device memory, n floats
/// @param[in]  n       elements, n <= kMaxElements; 0 is a no-op
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @param[in]  block   threads per block, a multiple of 32 in [32, 1024]
/// @throws std::invalid_argument for a null pointer, a bad degree, n or block.
void poly_global(const float* d_coefficients, int degree, const float* d_x, float* d_y,
                 std::size_t n, cudaStream_t stream = {}, int block = kDefaultBlock);

/// Copies @p sets coefficient sets of degree + 1 floats each (set s at h_coefficients +
/// s * (degree + 1)) into the __constant__ buffer with cudaMemcpyToSymbol. Synchronous.
/// @param[in] h_coefficients host memory, sets * (degree + 1) floats
/// @param[in] degree 0 <= degree <= kMaxDegree
/// @param[in] sets   coefficient sets, at least 1
/// @throws std::invalid_argument for a null pointer, a bad degree, or sets * (degree + 1) over
///         kMaxCoefficients.
void upload_coefficients(const float* h_coefficients, int degree, int sets = 1);

/// y[i] = p(x[i]) with the coefficients of set 0 in the __constant__ buffer (upload first).
/// Arguments as poly_global, without the coefficient pointer.
void poly_constant(int degree, const float* d_x, float* d_y, std::size_t n,
                   cudaStream_t stream = {}, int block = kDefaultBlock);

/// y[i] = p_s(x[i]) with s = i mod @p sets: neighbouring threads read different constant
/// addresses, which constant memory serves one at a time.
/// @pre upload_coefficients(h, degree, sets') with sets' >= sets.
/// @throws std::invalid_argument for sets < 1 or sets * (degree + 1) over kMaxCoefficients,
///         and as poly_constant.
void poly_constant_divergent(int degree, int sets, const float* d_x, float* d_y, std::size_t n,
                             cudaStream_t stream = {}, int block = kDefaultBlock);

/// Copies the first @p count floats of the __constant__ buffer to @p h_coefficients with
/// cudaMemcpyFromSymbol. Synchronous.
/// @throws std::invalid_argument for a null pointer or count outside [0, kMaxCoefficients].
void download_coefficients(float* h_coefficients, int count);

}  // namespace course::lesson01
