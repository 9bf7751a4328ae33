// Lesson 13: checks the arguments once, decides whether the GPU and the build can run the rung,
// copies the operands into 16-byte-aligned buffers where a pointer is not, then hands the call to
// the rung's launcher.
#include <cstdint>
#include <string>

#include "attention.cuh"
#include "attention_ptx.cuh"
#include "attention_rungs.cuh"
#include "course/capability.hpp"
#include "course/error.hpp"
#include "course/indexing.hpp"
#include "course/tensor_map.hpp"

namespace course::lesson13 {

namespace {

#ifdef COURSE_HAVE_SM90A_RUNG
constexpr bool kFlashWgmmaCompiled = true;  // flash_wgmma.cu, for sm_90a (cmake/CourseLesson.cmake)
#else
constexpr bool kFlashWgmmaCompiled = false;
#endif

void run(Variant variant, const bf16* q, const bf16* k, const bf16* v, float* o, Shape s,
         cudaStream_t stream) {
  switch (variant) {
    case Variant::Unfused:
      return run_unfused(q, k, v, o, s.bh, s.n, s.d, s.causal, stream);
    case Variant::OnlineSoftmax:
      return run_online_softmax(q, k, v, o, s.bh, s.n, s.d, s.causal, stream);
    case Variant::FlashSimt:
      return run_flash_simt(q, k, v, o, s.bh, s.n, s.d, s.causal, stream);
    case Variant::FlashMma:
      return run_flash_mma(q, k, v, o, s.bh, s.n, s.d, s.causal, stream);
    case Variant::FlashWgmma:
#ifdef COURSE_HAVE_SM90A_RUNG
      return run_flash_wgmma(q, k, v, o, s.bh, s.n, s.d, s.causal, stream);
#else
      break;  // unsupported() said so before
#endif
  }
  throw std::invalid_argument("attention: unknown variant");
}

// Checks the call's arguments, throwing std::invalid_argument for the first that is out of range;
// returns whether there is anything to compute (bh and n both above 0).
bool check_arguments(Variant variant, const bf16* q, const bf16* k, const bf16* v, const float* o,
                     Shape s) {
  const std::string name = "attention";
  require(variant_named(kVariants, name_of(variant)).has_value(), name + ": unknown variant");
  require(s.d == 64 || s.d == 128,
          name + ": the head dimension d must be 64 or 128 (it is " + std::to_string(s.d) + ")");
  require(s.n >= 0 && s.n <= kMaxN, name + ": the sequence length n must be in [0, " +
                                        std::to_string(kMaxN) + "] (it is " + std::to_string(s.n) +
                                        ")");
  require(s.bh >= 0 && s.bh <= kMaxBatchHeads, name + ": the number of heads bh must be in [0, " +
                                                   std::to_string(kMaxBatchHeads) + "] (it is " +
                                                   std::to_string(s.bh) + ")");
  const long long elements = static_cast<long long>(s.bh) * s.n * s.d;
  require(elements <= kMaxElements,
          name + ": bh * n * d must be at most 2^27 (it is " + std::to_string(elements) + ")");
  if (elements == 0)
    return false;  // no head, or no query: nothing to do, and no pointer is read
  require(q != nullptr && k != nullptr && v != nullptr && o != nullptr,
          name + ": q, k, v and o must be device pointers (null only when bh or n is 0)");
  const auto count = static_cast<std::size_t>(elements);
  require(
      !overlap(o, count, q, count) && !overlap(o, count, k, count) && !overlap(o, count, v, count),
      name + ": o overlaps q, k or v; the output is written out of place");
  return true;
}

}  // namespace

// Q, K and V are, to the TMA, 3D tensors of extents {cols, rows, heads}: innermost first.
CUtensorMap ptx::tensor_map_3d(const bf16* base, std::uint64_t heads, std::uint64_t rows,
                               std::uint64_t cols, std::uint32_t box_rows, std::uint32_t box_cols,
                               CUtensorMapSwizzle swizzle) {
  return encode_tensor_map(base, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, {cols, rows, heads},
                           {box_cols, box_rows, 1}, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

std::optional<std::string> unsupported(Variant variant) {
  if (variant != Variant::FlashMma && variant != Variant::FlashWgmma)
    return std::nullopt;  // the CUDA-core rungs run on every GPU the course supports
  if (variant == Variant::FlashWgmma)
    if (auto why = needs_sm90a("flash_wgmma", "flash_wgmma.cu", kFlashWgmmaCompiled,
                               COURSE_CUDA_ARCHITECTURES))
      return why;
  return needs_capability(80,
                          "the BF16 tensor-core instructions (mma.sync on BF16 fragments, "
                          "ldmatrix with cp.async)",
                          "BF16 tensor-core instructions");
}

void attention(Variant variant, const bf16* d_q, const bf16* d_k, const bf16* d_v, float* d_o,
               Shape shape, cudaStream_t stream) {
  if (!check_arguments(variant, d_q, d_k, d_v, d_o, shape))
    return;  // an empty call never touches the GPU
  if (const auto why = unsupported(variant))
    throw Unsupported(std::string(name_of(variant)), *why);
  if (aligned16(d_q) && aligned16(d_k) && aligned16(d_v) && aligned16(d_o))
    return run(variant, d_q, d_k, d_v, d_o, shape, stream);
  // A caller owes each pointer only its element's alignment; every rung moves rows in 16-byte
  // chunks. So the inputs that are off a 16-byte boundary are copied into aligned scratch on the
  // stream, and O, if it is, is computed there and copied out after: stream-ordered memory,
  // freed in stream order after the rung's kernels.
  const std::size_t count = static_cast<std::size_t>(shape.bh) * shape.n * shape.d;
  const std::size_t input_bytes = (count * sizeof(bf16) + 15) / 16 * 16;
  unsigned char* scratch = nullptr;
  CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&scratch),
                             3 * input_bytes + count * sizeof(float), stream));
  auto aligned_input = [&](const bf16* input, int slot) {
    if (aligned16(input))
      return input;
    auto* copy = reinterpret_cast<bf16*>(scratch + slot * input_bytes);
    CUDA_CHECK(
        cudaMemcpyAsync(copy, input, count * sizeof(bf16), cudaMemcpyDeviceToDevice, stream));
    return static_cast<const bf16*>(copy);
  };
  const bf16* q = aligned_input(d_q, 0);
  const bf16* k = aligned_input(d_k, 1);
  const bf16* v = aligned_input(d_v, 2);
  float* o = aligned16(d_o) ? d_o : reinterpret_cast<float*>(scratch + 3 * input_bytes);
  try {
    run(variant, q, k, v, o, shape, stream);
    if (o != d_o)
      CUDA_CHECK(cudaMemcpyAsync(d_o, o, count * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  } catch (...) {
    (void)cudaFreeAsync(scratch, stream);
    throw;
  }
  CUDA_CHECK(cudaFreeAsync(scratch, stream));
}

}  // namespace course::lesson13
