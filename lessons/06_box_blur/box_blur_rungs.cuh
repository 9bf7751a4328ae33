/// @file
/// @brief Lesson 06's rungs, called by blur() and trip() after they have checked the
/// arguments. Given rungs: box_blur_given.cu; exercises: box_blur.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

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
void launch_sliding_window(const float* d_in, float* d_out, std::size_t n, int radius, Range range,
                           int block, cudaStream_t stream);
/// Dispatches to the launcher of @p kernel.
void launch_blur(Kernel kernel, const float* d_in, float* d_out, std::size_t n, int radius,
                 Range range, int block, cudaStream_t stream);

/// The serial trip of the pageable, pinned and write-combined rungs, all on @p stream: copy
/// @p h_in to device.d_in, blur into device.d_out, copy that to @p h_out.
void serial_trip(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                 const PipelineOptions& options, cudaStream_t stream);

// Host-memory rungs: n in [1, kMaxElements], buffers of the rung's kinds (trip_memory), valid
// options (checked by trip()). Everything they do is ordered on `stream`.
void trip_pageable(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                   const PipelineOptions& options, cudaStream_t stream);
void trip_pinned(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                 const PipelineOptions& options, cudaStream_t stream);
void trip_write_combined(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                         const PipelineOptions& options, cudaStream_t stream);
void trip_mapped(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                 const PipelineOptions& options, cudaStream_t stream);
void trip_streams(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                  const PipelineOptions& options, cudaStream_t stream);

}  // namespace course::lesson06
