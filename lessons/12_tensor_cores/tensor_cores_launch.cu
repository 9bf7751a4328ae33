// Lesson 12: checks the arguments once, decides whether the GPU and the build can run the rung,
// pads the operands for the tensor-core rungs where the shape or the pointers need it, then hands
// the call to the rung's launcher.
#include <algorithm>
#include <cstdint>
#include <string>

#include "course/capability.hpp"
#include "course/error.hpp"
#include "course/indexing.hpp"
#include "course/product_check.hpp"
#include "course/tensor_map.hpp"
#include "tensor_cores.cuh"
#include "tensor_cores_ptx.cuh"
#include "tensor_cores_rungs.cuh"

namespace course::lesson12 {

namespace {

#ifdef COURSE_HAVE_SM90A_RUNG
constexpr bool kWgmmaCompiled = true;  // wgmma.cu, compiled for sm_90a (cmake/CourseLesson.cmake)
#else
constexpr bool kWgmmaCompiled = false;
#endif

// Row r of `in` (rows x cols) becomes row r of `out` (rows x padded_cols), zeros after col cols.
__global__ void pad_rows_kernel(const bf16* in, bf16* out, int rows, int cols, int padded_cols) {
  const std::size_t total = static_cast<std::size_t>(rows) * padded_cols;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < total;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const int row = static_cast<int>(i / padded_cols);
    const int col = static_cast<int>(i % padded_cols);
    out[i] = col < cols ? in[at(row, col, cols)] : __float2bfloat16(0.0f);
  }
}

void pad_rows(const bf16* in, bf16* out, int rows, int cols, int padded_cols, cudaStream_t stream) {
  pad_rows_kernel<<<1024, 256, 0, stream>>>(in, out, rows, cols, padded_cols);
  CUDA_CHECK(cudaGetLastError());
}

void run(Variant variant, const Problem& p, cudaStream_t stream) {
  switch (variant) {
    case Variant::SimtBf16:
      return launch_simt_bf16(p, stream);
    case Variant::Wmma:
      return launch_wmma(p, stream);
    case Variant::MmaSync:
      return launch_mma_sync(p, stream);
    case Variant::Wgmma:
#ifdef COURSE_HAVE_SM90A_RUNG
      return launch_wgmma(p, stream);
#else
      break;  // unsupported() said so before
#endif
  }
  throw std::invalid_argument("multiply: unknown variant");
}

}  // namespace

// A row-major matrix is, to the TMA, a 2D tensor of extents {cols, rows}: innermost first.
CUtensorMap ptx::tensor_map_2d(const bf16* base, std::uint64_t rows, std::uint64_t cols,
                               std::uint32_t box_rows, std::uint32_t box_cols,
                               CUtensorMapSwizzle swizzle) {
  return encode_tensor_map(base, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, {cols, rows},
                           {box_cols, box_rows}, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

CUtensorMap ptx::tensor_map_2d(float* base, std::uint64_t rows, std::uint64_t cols,
                               std::uint32_t box_rows, std::uint32_t box_cols,
                               CUtensorMapSwizzle swizzle) {
  // Stores only: the L2 promotion is a hint for the loads through a map.
  return encode_tensor_map(base, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, {cols, rows},
                           {box_cols, box_rows}, swizzle, CU_TENSOR_MAP_L2_PROMOTION_NONE);
}

std::optional<std::string> unsupported(Variant variant) {
  if (variant == Variant::SimtBf16)
    return std::nullopt;
  if (variant == Variant::Wgmma)
    if (auto why = needs_sm90a("wgmma", "wgmma.cu", kWgmmaCompiled, COURSE_CUDA_ARCHITECTURES))
      return why;
  return needs_capability(80,
                          "the BF16 tensor-core instructions (wmma on BF16 fragments, mma.sync, "
                          "ldmatrix with cp.async)",
                          "BF16 tensor-core instructions");
}

void multiply(Variant variant, const bf16* d_a, const bf16* d_b, float* d_c, int m, int n, int k,
              cudaStream_t stream) {
  const std::string name = "multiply";
  if (!product::check_call(name, d_a, d_b, d_c, m, n, k, kMaxExtent, kMaxElements))
    return;
  const long long mk = 1LL * m * k, kn = 1LL * k * n, mn = 1LL * m * n;
  require(k == 0 || (!overlap(d_c, mn, d_a, mk) && !overlap(d_c, mn, d_b, kn)),
          name + ": d_c overlaps d_a or d_b; the product is written out of place");
  if (const auto why = unsupported(variant))
    throw Unsupported(std::string(name_of(variant)), *why);
  if (k == 0) {  // the empty sum: C = 0
    CUDA_CHECK(cudaMemsetAsync(d_c, 0, static_cast<std::size_t>(mn) * sizeof(float), stream));
    return;
  }
  Problem p{d_a, d_b, d_c, m, n, k};
  const bool ready = k % 8 == 0 && aligned16(d_a) && aligned16(d_b);
  if (variant == Variant::SimtBf16 || ready)
    return run(variant, p, stream);
  // The tensor-core rungs move A and B in 16-byte chunks (8 BF16 values) along k. Where k or a
  // pointer does not allow it, A and B are copied into buffers whose rows are padded with zeros
  // to a multiple of 8: zeros add nothing to the product. The copies live on the stream, freed
  // in stream order after the rung's kernels.
  const int padded_k = (k + 7) / 8 * 8;
  bf16* scratch = nullptr;
  const std::size_t a_count = static_cast<std::size_t>(m) * padded_k;
  const std::size_t b_count = static_cast<std::size_t>(n) * padded_k;
  CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&scratch),
                             (a_count + b_count) * sizeof(bf16) + 16, stream));
  bf16* a_padded = scratch;
  bf16* b_padded = scratch + (a_count + 7) / 8 * 8;  // starts on a 16-byte boundary too
  pad_rows(d_a, a_padded, m, k, padded_k, stream);
  pad_rows(d_b, b_padded, n, k, padded_k, stream);
  try {
    run(variant, Problem{a_padded, b_padded, d_c, m, n, padded_k}, stream);
  } catch (...) {
    (void)cudaFreeAsync(scratch, stream);
    throw;
  }
  CUDA_CHECK(cudaFreeAsync(scratch, stream));
}

}  // namespace course::lesson12
