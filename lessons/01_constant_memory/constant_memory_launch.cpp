// Lesson 01: every entry point checks its arguments, then hands the call to the rung.
#include <cmath>
#include <string>

#include "constant_memory.cuh"
#include "constant_memory_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson01 {

namespace {

void check_common(const char* who, std::size_t n, int block) {
  require(n <= kMaxElements,
          std::string(who) + ": n must be at most 2^28 (" + std::to_string(kMaxElements) + ")");
  require(block >= 32 && block <= 1024 && block % 32 == 0,
          std::string(who) + ": block must be a multiple of 32 in [32, 1024]");
}

void check_degree(const char* who, int degree) {
  require(degree >= 0 && degree <= kMaxDegree,
          std::string(who) + ": degree must be in [0, " + std::to_string(kMaxDegree) + "]");
}

void check_sets(const char* who, int degree, int sets) {
  require(sets >= 1, std::string(who) + ": sets must be at least 1");
  require(static_cast<long>(sets) * (degree + 1) <= kMaxCoefficients,
          std::string(who) + ": sets * (degree + 1) must be at most " +
              std::to_string(kMaxCoefficients) + ", the constant buffer's size");
}

void check_vectors(const char* who, const float* d_x, const float* d_y) {
  require(d_x != nullptr && d_y != nullptr,
          std::string(who) + ": d_x and d_y must be device pointers");
}

}  // namespace

void sin_sqrt_table(float* d_y, std::size_t n, float step, cudaStream_t stream, int block) {
  check_common("sin_sqrt_table", n, block);
  require(std::isfinite(step) && step >= 0.0f,
          "sin_sqrt_table: step must be finite and non-negative");
  require(n == 0 || static_cast<double>(n - 1) * step < kMaxTableArgument,
          "sin_sqrt_table: (n - 1) * step must stay below 1024");
  if (n == 0)
    return;
  require(d_y != nullptr, "sin_sqrt_table: d_y must be a device pointer");
  launch_table(d_y, static_cast<unsigned>(n), step, block, stream);
}

void poly_global(const float* d_coefficients, int degree, const float* d_x, float* d_y,
                 std::size_t n, cudaStream_t stream, int block) {
  check_common("poly_global", n, block);
  check_degree("poly_global", degree);
  if (n == 0)
    return;
  check_vectors("poly_global", d_x, d_y);
  require(d_coefficients != nullptr, "poly_global: d_coefficients must be a device pointer");
  launch_poly_global(d_coefficients, degree, d_x, d_y, static_cast<unsigned>(n), block, stream);
}

void upload_coefficients(const float* h_coefficients, int degree, int sets) {
  check_degree("upload_coefficients", degree);
  check_sets("upload_coefficients", degree, sets);
  require(h_coefficients != nullptr, "upload_coefficients: h_coefficients must be a host pointer");
  copy_to_constant(h_coefficients, sets * (degree + 1));
}

void poly_constant(int degree, const float* d_x, float* d_y, std::size_t n, cudaStream_t stream,
                   int block) {
  check_common("poly_constant", n, block);
  check_degree("poly_constant", degree);
  if (n == 0)
    return;
  check_vectors("poly_constant", d_x, d_y);
  launch_poly_constant(degree, d_x, d_y, static_cast<unsigned>(n), block, stream);
}

void poly_constant_divergent(int degree, int sets, const float* d_x, float* d_y, std::size_t n,
                             cudaStream_t stream, int block) {
  check_common("poly_constant_divergent", n, block);
  check_degree("poly_constant_divergent", degree);
  check_sets("poly_constant_divergent", degree, sets);
  if (n == 0)
    return;
  check_vectors("poly_constant_divergent", d_x, d_y);
  launch_poly_constant_divergent(degree, sets, d_x, d_y, static_cast<unsigned>(n), block, stream);
}

void download_coefficients(float* h_coefficients, int count) {
  require(count >= 0 && count <= kMaxCoefficients,
          "download_coefficients: count must be in [0, " + std::to_string(kMaxCoefficients) + "]");
  if (count == 0)
    return;
  require(h_coefficients != nullptr,
          "download_coefficients: h_coefficients must be a host pointer");
  copy_from_constant(h_coefficients, count);
}

}  // namespace course::lesson01
