// Lesson 06: the entry points check their arguments, then hand the call to the rung.
#include <string>

#include "box_blur.cuh"
#include "box_blur_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson06 {

namespace {

void check_radius_and_block(const char* who, int radius, int block) {
  require(radius >= 1 && radius <= kMaxRadius,
          std::string(who) + ": radius must be in [1, " + std::to_string(kMaxRadius) + "]");
  require(block >= 64 && block <= 1024 && block % 32 == 0,
          std::string(who) + ": block must be a multiple of 32 in [64, 1024]");
}

}  // namespace

void blur(Kernel kernel, const float* d_in, float* d_out, std::size_t n, int radius,
          cudaStream_t stream, int block) {
  check_radius_and_block("blur", radius, block);
  if (n == 0) return;
  require(d_in != nullptr && d_out != nullptr, "blur: d_in and d_out must not be null");
  require(d_in + n <= d_out || d_out + n <= d_in, "blur: d_in and d_out overlap");
  launch_blur(kernel, d_in, d_out, n, radius, Range{0, n}, block, stream);
}

PipelineTimes run_pipeline(Memory memory, std::span<const float> input, std::span<float> output,
                           const PipelineOptions& options) {
  check_radius_and_block("run_pipeline", options.radius, options.block);
  require(options.chunks >= 1 && options.chunks <= kMaxChunks,
          "run_pipeline: chunks must be in [1, " + std::to_string(kMaxChunks) + "]");
  require(input.size() == output.size(), "run_pipeline: input and output sizes differ");
  if (input.empty()) return {};
  switch (memory) {
    case Memory::Pageable: return pipeline_pageable(input, output, options);
    case Memory::Pinned: return pipeline_pinned(input, output, options);
    case Memory::WriteCombined: return pipeline_write_combined(input, output, options);
    case Memory::Mapped: return pipeline_mapped(input, output, options);
    case Memory::Streams: return pipeline_streams(input, output, options);
  }
  throw std::invalid_argument("run_pipeline: unknown memory rung");
}

}  // namespace course::lesson06
