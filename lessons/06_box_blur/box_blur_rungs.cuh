/// @file
/// @brief Lesson 06's rungs, called by blur() and run_pipeline() after they have checked the
/// arguments. Given rungs: box_blur_given.cu; exercises: box_blur.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <span>

#include "box_blur.cuh"
#include "course/buffer.hpp"

namespace course::lesson06 {

/// The outputs a launch computes, [begin, end) of a vector of n elements. It reads inputs only
/// in [begin - R, end + R) clipped to [0, n): a chunk of the Streams rung needs no more than its
/// own elements and a halo of R on each side.
struct Range {
  std::size_t begin;  ///< first output
  std::size_t end;    ///< one past the last output
};

// Kernel launchers: valid arguments, range non-empty (checked by the caller).
void launch_global(const float* d_in, float* d_out, std::size_t n, int radius, Range range,
                   int block, cudaStream_t stream);
void launch_shared_halo(const float* d_in, float* d_out, std::size_t n, int radius, Range range,
                        int block, cudaStream_t stream);
void launch_sliding_window(const float* d_in, float* d_out, std::size_t n, int radius,
                           Range range, int block, cudaStream_t stream);
/// Dispatches to the launcher of @p kernel.
void launch_blur(Kernel kernel, const float* d_in, float* d_out, std::size_t n, int radius,
                 Range range, int block, cudaStream_t stream);

/// The serial trip of the pageable, pinned and write-combined rungs: copy @p h_in to the device,
/// blur, copy back to @p h_out; each phase timed with events.
PipelineTimes serial_trip(const float* h_in, float* h_out, std::size_t n,
                          const PipelineOptions& options);

/// A serial trip through host buffers of the given kinds: stage @p input in @p input_memory
/// (not timed), serial_trip() into a buffer of @p output_memory, copy that to @p output.
PipelineTimes staged_trip(std::span<const float> input, std::span<float> output,
                          const PipelineOptions& options, HostMemory input_memory,
                          HostMemory output_memory);

// Host-memory rungs: input and output of equal, non-zero size; valid options.
PipelineTimes pipeline_pageable(std::span<const float> input, std::span<float> output,
                                const PipelineOptions& options);
PipelineTimes pipeline_pinned(std::span<const float> input, std::span<float> output,
                              const PipelineOptions& options);
PipelineTimes pipeline_write_combined(std::span<const float> input, std::span<float> output,
                                      const PipelineOptions& options);
PipelineTimes pipeline_mapped(std::span<const float> input, std::span<float> output,
                              const PipelineOptions& options);
PipelineTimes pipeline_streams(std::span<const float> input, std::span<float> output,
                               const PipelineOptions& options);

}  // namespace course::lesson06
