// Lesson 01's timed work (constant_memory_bench.hpp): one Trial per timed rung, shared by the
// tests and the demo.
#include <string>

#include "constant_memory_bench.hpp"
#include "course/data.hpp"
#include "course/error.hpp"

namespace course::lesson01 {

namespace {

// The trusted references: one element per thread in a grid-stride loop, 64-bit indices, and
// nothing a student writes. The table uses the accurate sinf (the rung's __sinf is within 4e-6
// of it, inside the lesson's tolerance).
__global__ void reference_table_kernel(float* __restrict__ y, std::size_t n, float step) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    y[i] = sinf(sqrtf(static_cast<float>(static_cast<unsigned>(i)) * step));
}

// Horner's rule for point i with coefficient set i mod sets, read from global memory.
__global__ void reference_poly_kernel(const float* __restrict__ coefficients, int degree, int sets,
                                      const float* __restrict__ x, float* __restrict__ y,
                                      std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float* c = coefficients + (i % static_cast<std::size_t>(sets)) * (degree + 1);
    float value = c[degree];
    for (int k = degree - 1; k >= 0; --k)
      value = fmaf(value, x[i], c[k]);
    y[i] = value;
  }
}

constexpr unsigned kReferenceBlocks = 1024;
constexpr unsigned kReferenceThreads = 256;

std::size_t checked_elements(const BenchConfig& config) {
  require(config.n >= 1 && config.n <= kMaxElements,
          "lesson01::Bench: n must be in [1, " + std::to_string(kMaxElements) + "]");
  require(config.degree >= 0 && config.degree <= kMaxDegree,
          "lesson01::Bench: degree must be in [0, " + std::to_string(kMaxDegree) + "]");
  require(config.sets >= 1 && config.sets * (config.degree + 1) <= kMaxCoefficients,
          "lesson01::Bench: sets * (degree + 1) must be in [1, " +
              std::to_string(kMaxCoefficients) + "]");
  require(config.block >= 32 && config.block <= 1024 && config.block % 32 == 0,
          "lesson01::Bench: block must be a multiple of 32 in [32, 1024]");
  return config.n;
}

}  // namespace

Bench::Bench(BenchConfig config)
    : config_(config),
      x_(checked_elements(config)),
      y_(config.n),
      expected_(config.n),
      coefficients_(kMaxCoefficients) {}

void Bench::load_points(std::uint64_t seed, int sets, bool to_constant, cudaStream_t stream) {
  fill_uniform_floats(x_.data(), config_.n, seed, -1.0f, 1.0f, stream);
  host_coefficients_ = uniform_floats(static_cast<std::size_t>(sets) * (config_.degree + 1),
                                      derive_seed(seed, 1), -1.0f, 1.0f);
  // For the reference (and poly_global): global memory. A pageable source is staged before the
  // call returns, so the vector may change afterwards.
  CUDA_CHECK(cudaMemcpyAsync(coefficients_.data(), host_coefficients_.data(),
                             host_coefficients_.size() * sizeof(float), cudaMemcpyHostToDevice,
                             stream));
  if (to_constant) {
    upload_coefficients(host_coefficients_.data(), config_.degree, sets);
    // The upload runs on the legacy default stream, which does not order the harness's
    // non-blocking stream: wait until the constant buffer holds the new coefficients.
    CUDA_CHECK(cudaDeviceSynchronize());
  }
}

Trial Bench::trial(Variant variant) {
  const std::size_t n = config_.n;
  const int degree = config_.degree, block = config_.block;
  Trial trial;
  trial.rung = std::string(name_of(variant));
  switch (variant) {
    case Variant::Table:
      trial.load = [this](std::uint64_t seed, cudaStream_t) {
        // A new step for every launch, (n - 1) * step below 1000: a new table each time.
        step_ = static_cast<float>(500 + seed % 500) / static_cast<float>(config_.n);
      };
      trial.reference = [this](cudaStream_t stream) {
        reference_table_kernel<<<kReferenceBlocks, kReferenceThreads, 0, stream>>>(
            expected_.data(), config_.n, step_);
        CUDA_CHECK_LAST();
      };
      trial.launch = [this, n, block](cudaStream_t stream) {
        sin_sqrt_table(y_.data(), n, step_, stream, block);
      };
      // sqrtf is correctly rounded and __sinf within 4e-6 of sin for arguments below 32.
      trial.outputs = {{"y",
                        y_.data(),
                        y_.bytes(),
                        expected_.data(),
                        {OutputCheck::Kind::Float32, {1e-5, 1e-5}}}};
      return trial;
    case Variant::PolyGlobal:
    case Variant::PolyConstant:
    case Variant::PolyConstantDivergent: {
      const int sets = variant == Variant::PolyConstantDivergent ? config_.sets : 1;
      const bool to_constant = variant != Variant::PolyGlobal;
      trial.load = [this, sets, to_constant](std::uint64_t seed, cudaStream_t stream) {
        load_points(seed, sets, to_constant, stream);
      };
      trial.reference = [this, sets](cudaStream_t stream) {
        reference_poly_kernel<<<kReferenceBlocks, kReferenceThreads, 0, stream>>>(
            coefficients_.data(), config_.degree, sets, x_.data(), expected_.data(), config_.n);
        CUDA_CHECK_LAST();
      };
      // The points are a const input of every polynomial rung, and so are poly_global's
      // coefficients in global memory: after each launch they must hold what load() wrote.
      trial.inputs = {{"x", x_.data(), x_.bytes()}};
      if (variant == Variant::PolyGlobal) {
        trial.inputs.push_back({"coefficients", coefficients_.data(),
                                static_cast<std::size_t>(sets) * (degree + 1) * sizeof(float)});
        trial.launch = [this, n, degree, block](cudaStream_t stream) {
          poly_global(coefficients_.data(), degree, x_.data(), y_.data(), n, stream, block);
        };
      } else if (variant == Variant::PolyConstant) {
        trial.launch = [this, n, degree, block](cudaStream_t stream) {
          poly_constant(degree, x_.data(), y_.data(), n, stream, block);
        };
      } else {
        trial.launch = [this, n, degree, sets, block](cudaStream_t stream) {
          poly_constant_divergent(degree, sets, x_.data(), y_.data(), n, stream, block);
        };
      }
      // The lesson's tolerance, 1e-5 * sum |c_k| + 1e-5 |ref|, with sum |c_k| at its largest
      // (degree + 1: every coefficient is in [-1, 1)).
      trial.outputs = {{"y",
                        y_.data(),
                        y_.bytes(),
                        expected_.data(),
                        {OutputCheck::Kind::Float32, {1e-5 * (degree + 1), 1e-5}}}};
      return trial;
    }
    case Variant::Readback:
      break;
  }
  throw std::invalid_argument("lesson01::Bench: " + trial.rung +
                              " is not timed (it copies the constant buffer back to the host)");
}

}  // namespace course::lesson01
