// The cuBLAS ceilings, measured in this process: SGEMM and SSYRK on the CUDA cores, BF16 and TF32
// on the tensor cores. All of cuBLAS's compile time is spent here, once, rather than in every
// lesson.
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <string>

#include "ceilings_cache.hpp"
#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "course/ceilings.hpp"
#include "course/error.hpp"
#include "course/timer.hpp"

namespace course::ceilings {

namespace {

using detail::cached;
using detail::random_floats;

class Cublas {
 public:
  Cublas() {
    if (cublasCreate(&handle_) != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error("cublasCreate failed");
    // FP32 arithmetic on the CUDA cores: no TF32 tensor-core shortcut, so the comparison with the
    // lessons' FP32 kernels is fair.
    cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH);
  }
  ~Cublas() { cublasDestroy(handle_); }
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_{};
};

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS call failed: ") + what + " (status " +
                             std::to_string(static_cast<int>(status)) + ")");
}

cublasHandle_t cublas() {
  static Cublas handle;
  return handle.get();
}

Ceiling gemm_ceiling(std::string name, int m, int n, int k, bool aat, bool syrk) {
  // Row-major A (m x k) is column-major A^T; the products below are written for cuBLAS's
  // column-major view and move the same bytes and FLOPs.
  auto a = random_floats(static_cast<std::size_t>(m) * k);
  auto b = random_floats(aat ? 1 : static_cast<std::size_t>(k) * n);
  DeviceBuffer<float> c(static_cast<std::size_t>(m) * n);
  const float alpha = 1.0f, beta = 0.0f;
  auto work = [&](cudaStream_t stream) {
    check(cublasSetStream(cublas(), stream), "cublasSetStream");
    if (syrk) {
      check(cublasSsyrk(cublas(), CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, n, k, &alpha, a.data(), k,
                        &beta, c.data(), n),
            "cublasSsyrk");
    } else if (aat) {
      check(cublasSgemm(cublas(), CUBLAS_OP_T, CUBLAS_OP_N, m, m, k, &alpha, a.data(), k, a.data(),
                        k, &beta, c.data(), m),
            "cublasSgemm (A A^T)");
    } else {
      check(cublasSgemm(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b.data(), n, a.data(),
                        k, &beta, c.data(), n),
            "cublasSgemm");
    }
  };
  const Timing t = time_on_gpu(work, {.warmup = 2, .repeats = 10, .flush_l2 = true});
  const double flops = 2.0 * m * static_cast<double>(n) * k;
  return {std::move(name), gflop_per_s(flops, t.median_ms), "GFLOP/s",
          std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
              ", FP32 without tensor cores, counted as 2mnk",
          t};
}

// n random values, rounded to BF16.
DeviceBuffer<__nv_bfloat16> random_bf16(std::size_t n) {
  auto floats = random_floats(n);
  DeviceBuffer<__nv_bfloat16> out(n);
  round_to_bf16(floats.data(), out.data(), n, cudaStream_t{});
  CUDA_CHECK(cudaDeviceSynchronize());
  return out;
}

// The tensor-core products, in lesson 12's layout: A row-major m x k, B column-major k x n (both
// read along k, cuBLAS's "TN" case), C row-major m x n in FP32. In cuBLAS's column-major view
// C^T = B^T A^T: B, stored n rows of k, is the first factor transposed, A the second as it is.
Ceiling tensor_gemm_ceiling(std::string name, int m, int n, int k, bool bf16) {
  DeviceBuffer<__nv_bfloat16> a16, b16;
  DeviceBuffer<float> a32, b32;
  if (bf16) {
    a16 = random_bf16(static_cast<std::size_t>(m) * k);
    b16 = random_bf16(static_cast<std::size_t>(k) * n);
  } else {
    a32 = random_floats(static_cast<std::size_t>(m) * k);
    b32 = random_floats(static_cast<std::size_t>(k) * n);
  }
  DeviceBuffer<float> c(static_cast<std::size_t>(m) * n);
  const float alpha = 1.0f, beta = 0.0f;
  const cudaDataType_t in_type = bf16 ? CUDA_R_16BF : CUDA_R_32F;
  const void* a = bf16 ? static_cast<const void*>(a16.data()) : a32.data();
  const void* b = bf16 ? static_cast<const void*>(b16.data()) : b32.data();
  // FP32 accumulation either way; TF32 rounds FP32 inputs to 10 significant bits first.
  const cublasComputeType_t compute = bf16 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_FAST_TF32;
  auto work = [&](cudaStream_t stream) {
    check(cublasSetStream(cublas(), stream), "cublasSetStream");
    check(cublasGemmEx(cublas(), CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, b, in_type, k, a,
                       in_type, k, &beta, c.data(), CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  };
  const Timing t = time_on_gpu(work, {.warmup = 3, .repeats = 15, .flush_l2 = true});
  const double flops = 2.0 * m * static_cast<double>(n) * k;
  return {std::move(name), gflop_per_s(flops, t.median_ms), "GFLOP/s",
          std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + ", " +
              (bf16 ? "BF16" : "FP32 rounded to TF32") +
              " inputs, FP32 accumulate, tensor cores, counted as 2mnk",
          t};
}

}  // namespace

const Ceiling& cublas_sgemm(int m, int n, int k) {
  return cached("sgemm " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
                [=] { return gemm_ceiling("cuBLAS SGEMM", m, n, k, false, false); });
}

const Ceiling& cublas_sgemm_aat(int n, int k) {
  return cached("sgemm aat " + std::to_string(n) + "x" + std::to_string(k),
                [=] { return gemm_ceiling("cuBLAS SGEMM A*A^T", n, n, k, true, false); });
}

const Ceiling& cublas_ssyrk(int n, int k) {
  return cached("ssyrk " + std::to_string(n) + "x" + std::to_string(k),
                [=] { return gemm_ceiling("cuBLAS SSYRK", n, n, k, true, true); });
}

const Ceiling& cublas_gemm_bf16(int m, int n, int k) {
  return cached(
      "gemm bf16 " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
      [=] { return tensor_gemm_ceiling("cuBLAS BF16", m, n, k, true); });
}

const Ceiling& cublas_gemm_tf32(int m, int n, int k) {
  return cached(
      "gemm tf32 " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
      [=] { return tensor_gemm_ceiling("cuBLAS TF32", m, n, k, false); });
}

const Ceiling& bf16_tensor_peak() {
  return cached("bf16 tensor peak", [] {
    Ceiling roof = tensor_gemm_ceiling("BF16 tensor-core roof", 8192, 8192, 8192, true);
    roof.what =
        "cuBLAS BF16 at 8192x8192x8192, the fastest product measured on the tensor "
        "cores; " +
        roof.what;
    return roof;
  });
}

}  // namespace course::ceilings
