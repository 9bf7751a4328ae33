// Lesson 00's timed work (debugging_bench.hpp): one Trial per rung, for the demo.
#include <string>

#include "course/error.hpp"
#include "debugging_bench.hpp"

namespace course::lesson00 {

namespace {

// The trusted references: grid-stride loops, one element (or output) at a time, no shared
// memory and no code a student writes. Each computes what debugging_cpu.hpp computes, with the
// same float operations in the same order, so that the rungs' outputs compare bit for bit.
__global__ void reference_count_kernel(const float* __restrict__ in, std::int32_t* count,
                                       std::size_t n) {
  std::int32_t mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    mine += in[i] > 0.0f ? 1 : 0;
  atomicAdd(count, mine);
}

__global__ void reference_downsample_kernel(const float* __restrict__ in, float* __restrict__ out,
                                            std::size_t n) {
  const std::size_t outputs = (n + 1) / 2;
  for (std::size_t j = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; j < outputs;
       j += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t first = 2 * j;
    out[j] = first + 1 < n ? 0.5f * (in[first] + in[first + 1]) : in[first];
  }
}

__global__ void reference_reverse_kernel(const float* __restrict__ in, float* __restrict__ out,
                                         std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = in[n - 1 - i];
}

__global__ void reference_smooth_kernel(const float* __restrict__ in, float* __restrict__ out,
                                        std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float left = i > 0 ? in[i - 1] : 0.0f;
    const float right = i + 1 < n ? in[i + 1] : 0.0f;
    out[i] = (left + in[i] + right) * kThird;
  }
}

constexpr unsigned kReferenceBlocks = 1024;
constexpr unsigned kReferenceThreads = 256;

std::size_t checked_length(std::size_t n) {
  require(n > 0 && n <= kMaxLength, "lesson00::Bench: the length must be 1 to 2^28");
  return n;
}

}  // namespace

Bench::Bench(std::size_t n)
    : n_(checked_length(n)),
      in_(n + kBenchGuard),
      out_(n),
      expected_(n),
      count_(1),
      expected_count_(1) {
  in_.fill_bytes(0xFF);  // the guard after the input: NaN, so that a read past the end shows
  CUDA_CHECK(cudaDeviceSynchronize());
}

double Bench::bytes(Variant variant) const {
  const double n = static_cast<double>(n_);
  switch (variant) {
    case Variant::Count:
      return 4.0 * n + 4.0;
    case Variant::Downsample:
      return 4.0 * n + 4.0 * static_cast<double>(downsampled_length(n_));
    case Variant::Reverse:
    case Variant::Smooth:
      return 8.0 * n;
  }
  return 8.0 * n;
}

void Bench::array_rung(Trial& trial, void (*reference)(const float*, float*, std::size_t),
                       void (*launch)(const float*, float*, std::size_t, cudaStream_t)) {
  const float* in = in_.data();
  const std::size_t n = n_;
  trial.reference = [this, in, n, reference](cudaStream_t stream) {
    reference<<<kReferenceBlocks, kReferenceThreads, 0, stream>>>(in, expected_.data(), n);
    CUDA_CHECK_LAST();
  };
  trial.launch = [this, in, n, launch](cudaStream_t stream) { launch(in, out_.data(), n, stream); };
}

Trial Bench::trial(Variant variant) {
  Trial trial;
  trial.rung = std::string(name_of(variant));
  trial.load = [this](std::uint64_t seed, cudaStream_t stream) {
    fill_uniform_floats(in_.data(), n_, seed, -1.0f, 1.0f, stream);
    poison_shared_memory(stream);  // as the tests do: a shared slot nothing wrote holds NaN
  };
  const float* in = in_.data();
  const std::size_t n = n_;
  // Every rung reads its input through a const pointer: after each launch it must hold what
  // load() wrote (the n elements, not the poisoned guard after them).
  trial.inputs = {{"in", in, n * sizeof(float)}};
  switch (variant) {
    case Variant::Count:
      trial.reference = [this, in, n](cudaStream_t stream) {
        CUDA_CHECK(cudaMemsetAsync(expected_count_.data(), 0, sizeof(std::int32_t), stream));
        reference_count_kernel<<<kReferenceBlocks, kReferenceThreads, 0, stream>>>(
            in, expected_count_.data(), n);
        CUDA_CHECK_LAST();
      };
      trial.launch = [this, in, n](cudaStream_t stream) {
        count_positive(in, count_.data(), n, stream);
      };
      trial.outputs = {{"count",
                        count_.data(),
                        count_.bytes(),
                        expected_count_.data(),
                        {OutputCheck::Kind::Bytes, {}}}};
      return trial;
    case Variant::Downsample:
      array_rung(trial, reference_downsample_kernel, downsample);
      break;
    case Variant::Reverse:
      array_rung(trial, reference_reverse_kernel, reverse);
      break;
    case Variant::Smooth:
      array_rung(trial, reference_smooth_kernel, smooth);
      break;
  }
  // Every rung but count writes floats that it moves or computes exactly as the reference does:
  // every byte must be the reference's.
  const std::size_t outputs = variant == Variant::Downsample ? downsampled_length(n) : n;
  trial.outputs = {{"out",
                    out_.data(),
                    outputs * sizeof(float),
                    expected_.data(),
                    {OutputCheck::Kind::Bytes, {}}}};
  return trial;
}

}  // namespace course::lesson00
