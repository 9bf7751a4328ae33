// Checking matrix products: a double reference for small ones; cuBLAS plus exact samples for
// large ones. Every element is allowed the proven error bound of a float dot product.
#include "course/product_check.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/buffer.hpp"
#include "course/data.hpp"
#include "course/error.hpp"

namespace course::product {

namespace {

constexpr double kUnitRoundoff = 0x1p-24;
// Up to this many multiply-adds, the whole product is computed in double on the host.
constexpr double kHostReferenceLimit = 0x1p27;

std::vector<float> copy_to_host(const float* d_data, std::size_t count) {
  std::vector<float> host(count);
  if (count)
    CUDA_CHECK(cudaMemcpy(host.data(), d_data, count * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

__global__ void absolute_kernel(const float* in, float* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = fabsf(in[i]);
}

DeviceBuffer<float> absolute(const float* d_in, std::size_t n) {
  DeviceBuffer<float> out(n);
  absolute_kernel<<<1024, 256>>>(d_in, out.data(), n);
  CUDA_CHECK_LAST();
  return out;
}

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS call failed in the product check: ") + what);
}

// Row-major C (m x n) = A (m x k) * second, in FP32 without tensor cores. Row-major matrices are
// column-major transposes, so cuBLAS computes C^T = second^T A^T.
void gemm(cublasHandle_t handle, const float* d_a, const float* d_b, float* d_c, int m, int n,
          int k, Second second) {
  const float alpha = 1.0f, beta = 0.0f;
  if (second == Second::B)
    check_cublas(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, d_b, n, d_a, k,
                             &beta, d_c, n),
                 "cublasSgemm");
  else if (second == Second::BColumnMajor)
    check_cublas(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, d_b, k, d_a, k,
                             &beta, d_c, n),
                 "cublasSgemm (B column-major)");
  else
    check_cublas(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, d_a, k, d_a, k,
                             &beta, d_c, n),
                 "cublasSgemm (A A^T)");
}

// Element (i, j) of the second factor, from its host copy.
float second_at(const std::vector<float>& b, const std::vector<float>& a, int n, int k,
                Second second, int row, int col) {
  switch (second) {
    case Second::B:
      return b[static_cast<std::size_t>(row) * n + col];
    case Second::BColumnMajor:
      return b[static_cast<std::size_t>(col) * k + row];
    case Second::ATransposed:
      break;
  }
  return a[static_cast<std::size_t>(col) * k + row];
}

// The exact element (i, j) and the sum of its terms' magnitudes.
std::pair<double, double> exact_element(const std::vector<float>& a, const std::vector<float>& b,
                                        int n, int k, Second second, int i, int j) {
  double sum = 0.0, magnitude = 0.0;
  for (int p = 0; p < k; ++p) {
    const double term =
        double(a[static_cast<std::size_t>(i) * k + p]) * second_at(b, a, n, k, second, p, j);
    sum += term;
    magnitude += std::fabs(term);
  }
  return {sum, magnitude};
}

// Elements smaller than this are zero for the purpose of the bound (denormals flushed or not).
constexpr double kTiny = 1e-30;

}  // namespace

void multiply(const float* d_a, const float* d_b, float* d_c, int m, int n, int k, Second second,
              cudaStream_t stream) {
  if (m == 0 || n == 0)
    return;
  static const cublasHandle_t handle = [] {
    cublasHandle_t created{};
    check_cublas(cublasCreate(&created), "cublasCreate");
    check_cublas(cublasSetMathMode(created, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    return created;  // kept for the life of the process
  }();
  check_cublas(cublasSetStream(handle, stream), "cublasSetStream");
  if (k == 0) {
    CUDA_CHECK(cudaMemsetAsync(d_c, 0, static_cast<std::size_t>(m) * n * sizeof(float), stream));
    return;
  }
  gemm(handle, d_a, d_b, d_c, m, n, k, second);
}

double dot_error_bound(int k) {
  const double ku = k * kUnitRoundoff;
  return ku / (1.0 - ku);
}

Comparison check(const float* d_a, const float* d_b, const float* d_c, int m, int n, int k,
                 Second second, std::uint64_t seed, int samples) {
  if (m < 0 || n < 0 || k < 0 || (second == Second::ATransposed && m != n))
    throw std::invalid_argument("product::check: bad shape");
  const std::size_t count = static_cast<std::size_t>(m) * n;
  const Extent extent{static_cast<std::size_t>(n), static_cast<std::size_t>(m)};
  const double gamma = dot_error_bound(k);
  const auto a = copy_to_host(d_a, static_cast<std::size_t>(m) * k);
  const auto b = second != Second::ATransposed ? copy_to_host(d_b, static_cast<std::size_t>(k) * n)
                                               : std::vector<float>{};
  const auto got = copy_to_host(d_c, count);

  if (double(m) * n * k <= kHostReferenceLimit) {
    std::vector<double> expected(count), bound(count);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        const auto [value, magnitude] = exact_element(a, b, n, k, second, i, j);
        expected[static_cast<std::size_t>(i) * n + j] = value;
        bound[static_cast<std::size_t>(i) * n + j] = gamma * magnitude + kTiny;
      }
    return compare_bounded(got, expected, bound, extent);
  }

  // Large: cuBLAS computes the product and the magnitudes |A| |second|; both results may be off
  // by the bound, so their difference may be off by twice it (and the magnitudes, computed in
  // float too, by a factor 1 + gamma).
  cublasHandle_t handle{};
  check_cublas(cublasCreate(&handle), "cublasCreate");
  std::vector<float> reference, magnitudes;
  try {
    cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH);
    DeviceBuffer<float> d_reference(count), d_magnitudes(count);
    gemm(handle, d_a, d_b, d_reference.data(), m, n, k, second);
    const auto abs_a = absolute(d_a, static_cast<std::size_t>(m) * k);
    DeviceBuffer<float> abs_b;
    if (second != Second::ATransposed)
      abs_b = absolute(d_b, static_cast<std::size_t>(k) * n);
    gemm(handle, abs_a.data(), abs_b.data(), d_magnitudes.data(), m, n, k, second);
    reference = d_reference.to_host();
    magnitudes = d_magnitudes.to_host();
  } catch (...) {
    cublasDestroy(handle);
    throw;
  }
  cublasDestroy(handle);
  std::vector<double> expected(reference.begin(), reference.end()), bound(count);
  for (std::size_t i = 0; i < count; ++i)
    bound[i] = 2.0 * gamma * (1.0 + gamma) * magnitudes[i] + kTiny;
  auto whole = compare_bounded(got, expected, bound, extent);
  if (!whole)
    return whole;

  // Exact samples: corners, the last row and column, and random elements.
  std::vector<std::pair<int, int>> at = {{0, 0}, {0, n - 1}, {m - 1, 0}, {m - 1, n - 1}};
  for (int s = 0; s < samples; ++s) {
    const auto r = hash64(seed, static_cast<std::uint64_t>(s));
    const int i = s % 4 == 1 ? m - 1 : static_cast<int>(r % static_cast<std::uint64_t>(m));
    const int j = s % 4 == 2 ? n - 1 : static_cast<int>((r >> 32) % static_cast<std::uint64_t>(n));
    at.emplace_back(i, j);
  }
  std::vector<float> sampled_got;
  std::vector<double> sampled_expected, sampled_bound;
  for (auto [i, j] : at) {
    const auto [value, magnitude] = exact_element(a, b, n, k, second, i, j);
    sampled_got.push_back(got[static_cast<std::size_t>(i) * n + j]);
    sampled_expected.push_back(value);
    sampled_bound.push_back(gamma * magnitude + kTiny);
  }
  auto sampled =
      compare_bounded(sampled_got, sampled_expected, sampled_bound, Extent{sampled_got.size()});
  if (!sampled) {
    // Name the elements by (row, col), not by their place in the sample.
    sampled.details = "  exact samples disagree (cuBLAS agreed within its bound)\n";
    for (std::size_t s = 0; s < at.size(); ++s) {
      const double error = std::fabs(double(sampled_got[s]) - sampled_expected[s]);
      if (!(error <= sampled_bound[s]) && sampled.details.size() < 600)
        sampled.details +=
            "  at " +
            describe_index(static_cast<std::size_t>(at[s].first) * n + at[s].second, extent) +
            ": expected " + std::to_string(sampled_expected[s]) + ", got " +
            std::to_string(sampled_got[s]) + "\n";
    }
    return sampled;
  }
  whole.checked = count;
  return whole;
}

bool check_call(const std::string& who, const void* d_a, const void* d_b, const void* d_c, int m,
                int n, int k, int max_extent, long long max_elements) {
  require(m >= 0 && n >= 0 && k >= 0, who + ": m, n and k must be non-negative (0 <= m, n <= " +
                                          std::to_string(max_extent) + ", 0 <= k)");
  require(m <= max_extent && n <= max_extent,
          who + ": m and n must be at most " + std::to_string(max_extent));
  // "2^26 elements (8192 x 8192)" for a limit that is an even power of two, else the number.
  const auto limit = static_cast<unsigned long long>(max_elements);
  const int log2 = std::bit_width(limit) - 1;
  const std::string most = std::has_single_bit(limit) && log2 % 2 == 0
                               ? "2^" + std::to_string(log2) + " elements (" +
                                     std::to_string(1LL << (log2 / 2)) + " x " +
                                     std::to_string(1LL << (log2 / 2)) + ")"
                               : std::to_string(max_elements) + " elements";
  require(std::max({1LL * m * k, 1LL * k * n, 1LL * m * n}) <= max_elements,
          who + ": m * k, k * n and m * n must each be at most " + most);
  if (m == 0 || n == 0)
    return false;
  require(d_a != nullptr && d_b != nullptr && d_c != nullptr,
          who + ": d_a, d_b and d_c must be device pointers (null only when m or n is 0)");
  return true;
}

}  // namespace course::product
