// Lesson 08's timed work (stencil_bench.hpp): fresh fields, the given basic rung as the
// reference, every timed output compared on the GPU.
#include "stencil_bench.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "course/error.hpp"

namespace course::lesson08 {

namespace {

void check_grid(const char* who, Grid grid) {
  const bool extents = grid.nx >= 1 && grid.ny >= 1 && grid.nz >= 1 && grid.nx <= kMaxExtent &&
                       grid.ny <= kMaxExtent && grid.nz <= kMaxExtent;
  require(extents && grid.count() <= kMaxPoints,
          std::string(who) + ": the grid needs 1 <= nx, ny, nz <= " + std::to_string(kMaxExtent) +
              " and at most 2^30 points");
}

void check_non_negative(const char* who, const Coefficients& c) {
  for (const float w : {c.c0, c.c1, c.c2, c.c3, c.c4, c.c5, c.c6})
    require(w >= 0.0f,
            std::string(who) +
                ": timed coefficients must be non-negative (the tolerance relies on it)");
}

}  // namespace

Tolerance jacobi_tolerance(int sweeps) {
  const double bound = 2.0 * 8.0 * std::ldexp(1.0, -24) * (sweeps < 1 ? 1 : sweeps);
  return Tolerance{bound, bound};
}

StencilBench::StencilBench(Grid grid, const Coefficients& c) : grid_(grid), c_(c) {
  check_grid("StencilBench", grid);
  check_non_negative("StencilBench", c);
  in_ = DeviceBuffer<float>(grid.count());
  out_ = DeviceBuffer<float>(grid.count());
  expected_ = DeviceBuffer<float>(grid.count());
}

Trial StencilBench::trial(Variant variant) {
  Trial trial;
  trial.rung = std::string(name_of(variant));
  trial.load = [this](std::uint64_t seed, cudaStream_t stream) {
    fill_uniform_floats(in_.data(), grid_.count(), seed, 0.0f, 1.0f, stream);
  };
  // The given rung: never the code under test.
  trial.reference = [this](cudaStream_t stream) {
    stencil(Variant::Basic, in_.data(), expected_.data(), grid_, c_, stream);
  };
  trial.launch = [this, variant](cudaStream_t stream) {
    stencil(variant, in_.data(), out_.data(), grid_, c_, stream);
  };
  trial.outputs = {{"the output grid",
                    out_.data(),
                    grid_.count() * sizeof(float),
                    expected_.data(),
                    {OutputCheck::Kind::Float32, kTimedTolerance}}};
  // What the interface declares const: the input grid (device memory) and the coefficients
  // (host memory). After every launch each must still hold what it held before it.
  trial.inputs = {{"the input grid", in_.data(), grid_.count() * sizeof(float)},
                  {"the coefficients", &c_, sizeof(c_)}};
  return trial;
}

JacobiBench::JacobiBench(Grid grid, const Coefficients& c, int sweeps)
    : grid_(grid), c_(c), sweeps_(sweeps) {
  check_grid("JacobiBench", grid);
  check_non_negative("JacobiBench", c);
  const double sum = double{c.c0} + c.c1 + c.c2 + c.c3 + c.c4 + c.c5 + c.c6;
  require(sum <= 1.0 + 1e-6, "JacobiBench: the coefficients must sum to at most 1");
  require(sweeps >= 0, "JacobiBench: sweeps must be >= 0");
  const std::size_t count = grid.count();
  initial_ = DeviceBuffer<float>(count);
  a_ = DeviceBuffer<float>(count);
  b_ = DeviceBuffer<float>(count);
  reference_a_ = DeviceBuffer<float>(count);
  reference_b_ = DeviceBuffer<float>(count);
}

Trial JacobiBench::trial(Variant kernel) {
  const std::size_t bytes = grid_.count() * sizeof(float);
  const bool odd = sweeps_ % 2 == 1;
  Trial trial;
  trial.rung = std::string(kJacobiName) + " (kernel " + std::string(name_of(kernel)) + ")";
  trial.load = [this](std::uint64_t seed, cudaStream_t stream) {
    fill_uniform_floats(initial_.data(), grid_.count(), seed, 0.0f, 1.0f, stream);
  };
  // The given rung, ping-ponged by this given code: never the driver under test.
  trial.reference = [this, bytes](cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(reference_a_.data(), initial_.data(), bytes,
                               cudaMemcpyDeviceToDevice, stream));
    float* src = reference_a_.data();
    float* dst = reference_b_.data();
    for (int k = 0; k < sweeps_; ++k) {
      stencil(Variant::Basic, src, dst, grid_, c_, stream);
      std::swap(src, dst);
    }
  };
  float* const result = odd ? b_.data() : a_.data();
  trial.launch = [this, bytes, kernel, result](cudaStream_t stream) {
    CUDA_CHECK(
        cudaMemcpyAsync(a_.data(), initial_.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    if (jacobi(a_.data(), b_.data(), grid_, c_, sweeps_, kernel, stream) != result)
      throw std::runtime_error(
          "jacobi returned the wrong buffer: the field is in d_a after an even number of sweeps, "
          "in d_b after an odd one");
  };
  trial.outputs = {{"the field after the last sweep",
                    result,
                    bytes,
                    odd ? reference_b_.data() : reference_a_.data(),
                    {OutputCheck::Kind::Float32, jacobi_tolerance(sweeps_)}}};
  // The driver's buffers are its to write; what it may only read is the coefficients.
  trial.inputs = {{"the coefficients", &c_, sizeof(c_)}};
  return trial;
}

std::vector<float> JacobiBench::run(std::span<const float> initial, Variant kernel) {
  require(initial.size() == grid_.count(), "JacobiBench::run: the field needs nx * ny * nz floats");
  a_.upload(initial);
  const float* result = jacobi(a_.data(), b_.data(), grid_, c_, sweeps_, kernel);
  std::vector<float> field(grid_.count());
  CUDA_CHECK(
      cudaMemcpy(field.data(), result, field.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return field;
}

}  // namespace course::lesson08
