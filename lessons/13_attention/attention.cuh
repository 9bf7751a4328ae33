/// @file
/// @brief Lesson 13, attention: the interface shared by skeleton, solution, tests and demo.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "course/variants.hpp"

namespace course::lesson13 {

/// The element type of Q, K and V: bfloat16, 8 exponent bits like a float and 8 significant bits.
using bf16 = __nv_bfloat16;

/// The rungs of the ladder, in teaching order.
enum class Variant {
  Unfused,  ///< given: S = scale Q K^T, a row softmax, O = P V: three kernels, S and P in DRAM
  OnlineSoftmax,  ///< exercise: the same three kernels, the softmax in one pass over S
  FlashSimt,      ///< exercise: FlashAttention's fused kernel on the CUDA cores: S never written
  FlashMma,       ///< exercise: the fused kernel on the tensor cores: mma.sync, ldmatrix, cp.async
  FlashWgmma,     ///< stretch: Hopper's TMA and wgmma, producer and consumer warpgroups
};

/// A rung's name, kind, launch shape and the GPUs that can run it, for tables, tests and docs.
struct VariantInfo {
  Variant variant;               ///< the rung
  std::string_view name;         ///< as the demo's --variant takes it
  std::string_view kind;         ///< given, exercise or stretch
  int threads;                   ///< threads per block of the rung's main kernel
  int min_capability;            ///< lowest compute capability, times ten (80: sm_80)
  std::string_view instruction;  ///< what the SASS of its inner loops shows: FFMA, HMMA, HGMMA
};

/// All rungs, in teaching order.
inline constexpr std::array<VariantInfo, 5> kVariants{{
    {Variant::Unfused, "unfused", "given", 256, 75, "FFMA"},
    {Variant::OnlineSoftmax, "online_softmax", "exercise", 256, 75, "FFMA"},
    {Variant::FlashSimt, "flash_simt", "exercise", 256, 75, "FFMA"},
    {Variant::FlashMma, "flash_mma", "exercise", 128, 80, "HMMA"},
    {Variant::FlashWgmma, "flash_wgmma", "stretch", 384, 90, "HGMMA"},
}};

/// The name of @p variant.
[[nodiscard]] constexpr std::string_view name_of(Variant variant) {
  return name_in(kVariants, variant);
}

/// The shape of one call: @p bh independent heads (batch times heads), each of @p n queries
/// attending to @p n keys, with head dimension @p d.
struct Shape {
  int bh = 0;           ///< heads (batch x heads), 0 <= bh <= kMaxBatchHeads
  int n = 0;            ///< sequence length: queries and keys per head, 0 <= n <= kMaxN
  int d = 0;            ///< head dimension, 64 or 128
  bool causal = false;  ///< query i sees keys j <= i only
};

/// The longest sequence a call accepts.
inline constexpr int kMaxN = 32768;

/// The most heads a call accepts: a grid's y and z extents stop at 65535, so that a kernel may
/// put the head in either.
inline constexpr int kMaxBatchHeads = 65535;

/// The most elements bh * n * d of Q, K, V and O: 2^27 (O then takes 512 MiB). Every element
/// index of an accepted shape, even counted in bytes of O, fits in an int.
inline constexpr long long kMaxElements = 1LL << 27;

/// The floating-point operations of one call, as FlashAttention counts them: two products of
/// 2 n^2 d each per head, 4 bh n^2 d, half of it when causal (the masked half is never computed).
[[nodiscard]] constexpr double attention_flops(Shape shape) {
  const double full = 4.0 * shape.bh * static_cast<double>(shape.n) * shape.n * shape.d;
  return shape.causal ? full / 2.0 : full;
}

/// Why @p variant cannot run on this GPU with this build, or nothing when it can. flash_mma's
/// BF16 mma.sync, ldmatrix and cp.async need compute capability 8.0; flash_wgmma's TMA and wgmma
/// exist on 9.0 alone, and only in code compiled for sm_90a; a build whose code is older than the
/// instructions (PTX for 7.5 run on an H100) cannot use them either. Needs a GPU
/// (course::gpu_info()).
[[nodiscard]] std::optional<std::string> unsupported(Variant variant);

/// Attention, head by head: O = softmax(scale Q K^T) V with scale = 1 / sqrt(d), the softmax
/// taken along each row (over the keys), the keys j > i left out of row i when @p shape is
/// causal. Q, K and V are BF16, [bh][n][d] row-major (element (h, i, c) at (h * n + i) * d + c);
/// O is FP32 in the same layout.
///
/// @param[in]  variant the rung to run
/// @param[in]  d_q     device memory, bh * n * d BF16 queries
/// @param[in]  d_k     device memory, bh * n * d BF16 keys (may be d_q: self-attention)
/// @param[in]  d_v     device memory, bh * n * d BF16 values (may be d_q or d_k)
/// @param[out] d_o     device memory, bh * n * d floats, overlapping none of the inputs
/// @param[in]  shape   bh, n, d and the causal flag, within the limits above
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @pre No pointer needs more than its element's alignment: where one is not on a 16-byte
///      boundary, the call copies the inputs into aligned buffers first, and O back from one
///      after (on @p stream, part of the call). Every rung sees 16-byte-aligned pointers.
/// @pre When bh or n is 0, the call is a no-op that never touches the GPU (the pointers may then
///      be null): every other argument is still checked.
/// @throws std::invalid_argument for d not 64 or 128, n or bh out of range, bh * n * d above
///         kMaxElements, a null pointer or O overlapping an input; course::Unsupported when
///         unsupported(variant) says why; course::NotImplemented for a rung the skeleton has not
///         written yet; course::CudaError if a launch fails.
void attention(Variant variant, const bf16* d_q, const bf16* d_k, const bf16* d_v, float* d_o,
               Shape shape, cudaStream_t stream = {});

}  // namespace course::lesson13
