/// @file
/// @brief Lesson 12, tensor cores: the interface shared by skeleton, solution, tests and demo.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "course/variants.hpp"

namespace course::lesson12 {

/// The element type of A and B: bfloat16, 8 exponent bits like a float and 8 significant bits.
using bf16 = __nv_bfloat16;

/// The rungs of the ladder, in teaching order.
enum class Variant {
  SimtBf16,  ///< given: lesson 03's register tiles on BF16 inputs, FP32 multiply-adds (CUDA cores)
  Wmma,      ///< exercise: nvcuda::wmma 16 x 16 x 16 fragments, tiles staged in shared memory
  MmaSync,   ///< exercise: mma.sync PTX, ldmatrix, swizzled shared memory, cp.async stages
  Wgmma,     ///< stretch: Hopper's TMA, wgmma by warpgroups, producer and consumer warps
};

/// A rung's name, kind, launch shape and the GPUs that can run it, for tables, tests and docs.
struct VariantInfo {
  Variant variant;               ///< the rung
  std::string_view name;         ///< as the demo's --variant takes it
  std::string_view kind;         ///< given, exercise or stretch
  int threads;                   ///< threads per block of the rung's launch
  int min_capability;            ///< lowest compute capability, times ten (80: sm_80)
  std::string_view instruction;  ///< what the SASS of its inner loop shows: FFMA, HMMA, HGMMA
};

/// All rungs, in teaching order.
inline constexpr std::array<VariantInfo, 4> kVariants{{
    {Variant::SimtBf16, "simt_bf16", "given", 256, 75, "FFMA"},
    {Variant::Wmma, "wmma", "exercise", 256, 80, "HMMA"},
    {Variant::MmaSync, "mma_sync", "exercise", 256, 80, "HMMA"},
    {Variant::Wgmma, "wgmma", "stretch", 384, 90, "HGMMA"},
}};

/// The name of @p variant.
[[nodiscard]] constexpr std::string_view name_of(Variant variant) {
  return name_in(kVariants, variant);
}

/// The largest M or N a launch accepts.
inline constexpr int kMaxExtent = 1 << 20;

/// The largest number of elements of A, B or C: 2^26, an 8192 x 8192 matrix. Every index of an
/// accepted shape, even counted in bytes of C, fits in an int.
inline constexpr long long kMaxElements = 1LL << 26;

/// Why @p variant cannot run on this GPU with this build, or nothing when it can. BF16 tensor-core
/// instructions need compute capability 8.0 (wmma, mma_sync); wgmma exists on 9.0 alone, and only
/// in code compiled for sm_90a; a build whose code for the kernel is older than the GPU's needs
/// (PTX for 7.5 run on an H100) cannot use them either. Needs a GPU (course::gpu_info()).
[[nodiscard]] std::optional<std::string> unsupported(Variant variant);

/// Multiplies C = A · B in FP32 from BF16 inputs: A is m × k, row-major (a[i * k + p]); B is
/// k × n, column-major (b[j * k + p]: each column of B is contiguous, so that A and B are both
/// read along k, as the tensor cores take them); C is m × n, row-major, FP32.
///
/// @param[in]  variant the rung to run
/// @param[in]  d_a     device memory, m * k BF16 values
/// @param[in]  d_b     device memory, k * n BF16 values, column-major
/// @param[out] d_c     device memory, m * n floats, overlapping neither A nor B
/// @param[in]  m       rows of A and C, 0 <= m <= kMaxExtent
/// @param[in]  n       columns of B and C, 0 <= n <= kMaxExtent
/// @param[in]  k       columns of A and rows of B, k >= 0
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @pre m * k, k * n and m * n are at most kMaxElements. Any shape within these limits works,
///      and no pointer needs more than its element's alignment: where k is not a multiple of 8
///      or A or B does not start on a 16-byte boundary, the tensor-core rungs first copy A and B
///      into padded buffers (the copy is part of the call, on @p stream).
/// @pre When m or n is 0, the call is a no-op that never touches the GPU (the pointers may then
///      be null). When k is 0 (and m, n > 0), every rung fills C with zeros.
/// @throws std::invalid_argument for a negative or too large dimension, a null pointer, or C
///         overlapping A or B; course::Unsupported when unsupported(variant) says why;
///         course::NotImplemented for a rung the skeleton has not written yet;
///         course::CudaError if the launch fails.
void multiply(Variant variant, const bf16* d_a, const bf16* d_b, float* d_c, int m, int n, int k,
              cudaStream_t stream = {});

}  // namespace course::lesson12
