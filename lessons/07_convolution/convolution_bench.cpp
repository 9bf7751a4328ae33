// Lesson 07's timed work (convolution_bench.hpp): fresh images, the given basic rung as the
// reference, every timed output compared on the GPU.
#include "convolution_bench.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "course/error.hpp"

namespace course::lesson07 {

Tolerance timed_tolerance(int radius) {
  const double side = 2.0 * radius + 1.0;
  const double k = side * side + 2.0;
  const double ku = k * std::ldexp(1.0, -24);
  const double gamma = ku / (1.0 - ku);
  return Tolerance{0.0, 2.0 * gamma / (1.0 - gamma)};
}

ConvolutionBench::ConvolutionBench(int width, int height, Filter filter)
    : width_(width), height_(height), filter_(std::move(filter)) {
  require(width >= 1 && height >= 1 && width <= kMaxExtent && height <= kMaxExtent &&
              count() <= kMaxPixels,
          "ConvolutionBench: the image needs 1 <= width, height <= " + std::to_string(kMaxExtent) +
              " and at most 2^30 pixels");
  require(std::all_of(filter_.weights.begin(), filter_.weights.end(),
                      [](float w) { return w >= 0.0f; }),
          "ConvolutionBench: timed filters need non-negative weights (the tolerance relies on it)");
  in_ = DeviceBuffer<float>(count());
  out_ = DeviceBuffer<float>(count());
  expected_ = DeviceBuffer<float>(count());
}

Trial ConvolutionBench::trial(Variant variant) {
  Trial trial;
  trial.rung = std::string(name_of(variant));
  trial.load = [this](std::uint64_t seed, cudaStream_t stream) {
    fill_uniform_floats(in_.data(), count(), seed, 0.0f, 1.0f, stream);
  };
  // The given rung: never the code under test.
  trial.reference = [this](cudaStream_t stream) {
    convolve(Variant::Basic, in_.data(), expected_.data(), width_, height_, filter_, stream);
  };
  trial.launch = [this, variant](cudaStream_t stream) {
    convolve(variant, in_.data(), out_.data(), width_, height_, filter_, stream);
  };
  trial.outputs = {{"the output image",
                    out_.data(),
                    count() * sizeof(float),
                    expected_.data(),
                    {OutputCheck::Kind::Float32, timed_tolerance(filter_.radius)}}};
  // What the interface declares const: the image (device memory), and the filter's weights (host
  // memory; the row and column vectors too, for a separable filter). After every launch each
  // must still hold what it held before it.
  trial.inputs = {
      {"the input image", in_.data(), count() * sizeof(float)},
      {"the filter's weights", filter_.weights.data(), filter_.weights.size() * sizeof(float)}};
  if (filter_.separable()) {
    trial.inputs.push_back(
        {"the filter's column", filter_.column.data(), filter_.column.size() * sizeof(float)});
    trial.inputs.push_back(
        {"the filter's row", filter_.row.data(), filter_.row.size() * sizeof(float)});
  }
  return trial;
}

}  // namespace course::lesson07
