// Lesson 02's timed work (transpose_bench.hpp): one Trial per rung, shared by tests and demo.
#include <string>

#include "course/error.hpp"
#include "transpose_bench.hpp"

namespace course::lesson02 {

namespace {

// The trusted reference: output element i (row i / rows, column i % rows of the cols x rows
// result) is input element (i % rows, i / rows). Obviously right, 64-bit indices, and no code
// a student writes.
__global__ void reference_transpose_kernel(const float* __restrict__ in, float* __restrict__ out,
                                           std::size_t rows, std::size_t cols) {
  const std::size_t count = rows * cols;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = in[(i % rows) * cols + i / rows];
}

std::size_t checked_count(int rows, int cols) {
  require(rows > 0 && cols > 0 && rows <= kMaxExtent && cols <= kMaxExtent &&
              static_cast<std::size_t>(rows) * cols <= kMaxElements,
          "lesson02::Bench: the shape must be one that transpose() accepts, and not empty");
  return static_cast<std::size_t>(rows) * cols;
}

}  // namespace

Bench::Bench(int rows, int cols)
    : rows_(rows), cols_(cols), in_(checked_count(rows, cols)), out_(count()), expected_(count()) {}

Trial Bench::trial(Variant variant) {
  Trial trial;
  trial.rung = std::string(name_of(variant));
  trial.load = [this](std::uint64_t seed, cudaStream_t stream) {
    fill_uniform_floats(in_.data(), count(), seed, -1.0f, 1.0f, stream);
  };
  if (variant == Variant::Copy) {
    trial.reference = [this](cudaStream_t stream) {
      CUDA_CHECK(cudaMemcpyAsync(expected_.data(), in_.data(), in_.bytes(),
                                 cudaMemcpyDeviceToDevice, stream));
    };
  } else {
    trial.reference = [this](cudaStream_t stream) {
      reference_transpose_kernel<<<1024, 256, 0, stream>>>(in_.data(), expected_.data(),
                                                           static_cast<std::size_t>(rows_),
                                                           static_cast<std::size_t>(cols_));
      CUDA_CHECK_LAST();
    };
  }
  trial.launch = [this, variant](cudaStream_t stream) {
    transpose(variant, in_.data(), out_.data(), rows_, cols_, stream);
  };
  // The input is const: after each launch it must hold what load() wrote.
  trial.inputs = {{"in", in_.data(), in_.bytes()}};
  // A transpose moves values and never computes them: every byte must be the reference's.
  trial.outputs = {
      {"out", out_.data(), out_.bytes(), expected_.data(), {OutputCheck::Kind::Bytes, {}}}};
  return trial;
}

}  // namespace course::lesson02
