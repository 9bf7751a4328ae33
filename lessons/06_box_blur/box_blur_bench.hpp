/// @file
/// @brief Lesson 06's timed work, described for course::measure(): the one place the tests and
/// the demo take their timings from, so that the figure the demo prints is the figure the tests
/// grade. Given code: it calls the rungs under test, and computes what they should give with the
/// given global kernel.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "box_blur.cuh"
#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "course/compare.hpp"

namespace course::lesson06 {

/// A rung's output against the double-precision CPU reference (box_blur_cpu.hpp). Inputs are
/// intensities in [0, 1): a float sum of 2R + 1 <= 65 such terms is within 65 * 2^-24 = 3.9e-6
/// of the exact sum, relative; a sliding window adds two roundings per step. The absolute part
/// covers a running sum that falls far below the values it was built from.
inline constexpr Tolerance kTolerance{1e-6, 1e-5};
/// A rung's output against the given global kernel's, both in float: each within kTolerance of
/// the exact mean, so within twice that of each other.
inline constexpr Tolerance kGpuTolerance{2e-6, 2e-5};

/// The bytes a blur of @p n floats moves at least: each element read once and written once.
/// For a trip, the bytes over the bus: n floats each way.
[[nodiscard]] inline double blur_bytes(std::size_t n) {
  return 2.0 * static_cast<double>(n) * sizeof(float);
}

/// Times the kernel rung @p kernel on @p n floats (device memory) with course::measure(): fresh
/// inputs uniform in [0, 1) before every launch, the expected outputs from the given global
/// kernel, every timed output compared within kGpuTolerance.
/// @throws what blur() throws (bad arguments, course::NotImplemented, CUDA errors).
[[nodiscard]] Measurement measure_kernel(Kernel kernel, std::size_t n, int radius, int block,
                                         const MeasureOptions& options);

/// Times one trip of @p memory over @p n floats with course::measure(). The host vectors are
/// course::HostBuffer objects of the rung's kinds (trip_memory()), the device buffers are
/// allocated once; before every trip, fresh inputs uniform in [0, 1) are written into the host
/// input (not timed) and the expected outputs computed on the GPU with the given global kernel.
/// course::measure() times trip() on its own stream and compares every timed output, read where
/// it lies in host memory, within kGpuTolerance.
///
/// Temporary, until course::measure() can compare an output the device cannot address: a
/// pageable output (the pageable rung's, given code) is not compared during the measurement; its
/// last trip's output is compared on the CPU after it, and a mismatch is reported in
/// Measurement::failure.
/// @throws what trip() throws (bad arguments, course::NotImplemented, CUDA errors).
[[nodiscard]] Measurement measure_trip(Memory memory, std::size_t n, const PipelineOptions& trip,
                                       const MeasureOptions& options);

/// Times one copy of @p n floats between host memory of kind @p kind and the device, alone
/// (cudaMemcpyAsync; no student code): the demo's H2D and D2H columns. @p direction is
/// cudaMemcpyHostToDevice or cudaMemcpyDeviceToHost.
[[nodiscard]] Measurement measure_copy(cudaMemcpyKind direction, HostMemory kind, std::size_t n,
                                       const MeasureOptions& options);

}  // namespace course::lesson06
