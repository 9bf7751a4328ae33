// Lesson 06: the entry points check their arguments, then hand the call to the rung.
#include <cstdint>
#include <string>

#include "box_blur.cuh"
#include "box_blur_rungs.cuh"
#include "course/error.hpp"
#include "course/indexing.hpp"

namespace course::lesson06 {

namespace {

void check_radius_and_block(const char* who, int radius, int block) {
  require(radius >= 1 && radius <= kMaxRadius,
          std::string(who) + ": radius must be in [1, " + std::to_string(kMaxRadius) + "]");
  require(block >= 64 && block <= 1024 && block % 32 == 0,
          std::string(who) + ": block must be a multiple of 32 in [64, 1024]");
}

void check_size(const char* who, std::size_t n) {
  require(n <= kMaxElements, std::string(who) + ": n must be at most kMaxElements = 2^26 = " +
                                 std::to_string(kMaxElements));
}

}  // namespace

void blur(Kernel kernel, const float* d_in, float* d_out, std::size_t n, int radius,
          cudaStream_t stream, int block) {
  check_radius_and_block("blur", radius, block);
  check_size("blur", n);
  if (n == 0)
    return;
  require(d_in != nullptr && d_out != nullptr, "blur: d_in and d_out must not be null");
  require(!overlap(d_in, d_out, n), "blur: d_in and d_out overlap");
  launch_blur(kernel, d_in, d_out, n, radius, Range{0, n}, block, stream);
}

void trip(Memory memory, const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
          const PipelineOptions& options, cudaStream_t stream) {
  check_radius_and_block("trip", options.radius, options.block);
  require(options.chunks >= 1 && options.chunks <= kMaxChunks,
          "trip: chunks must be in [1, " + std::to_string(kMaxChunks) + "]");
  check_size("trip", n);
  if (n == 0)
    return;
  require(h_in != nullptr && h_out != nullptr, "trip: h_in and h_out must not be null");
  require(!overlap(h_in, h_out, n), "trip: h_in and h_out overlap");
  if (memory != Memory::Mapped) {
    require(device.d_in != nullptr && device.d_out != nullptr,
            "trip: the device buffers must not be null");
    require(!overlap(device.d_in, device.d_out, n), "trip: the device buffers overlap");
    for (const float* d :
         {static_cast<const float*>(device.d_in), static_cast<const float*>(device.d_out)})
      require(!overlap(d, h_in, n) && !overlap(d, h_out, n),
              "trip: a device buffer overlaps a host vector");
  }
  switch (memory) {
    case Memory::Pageable:
      return trip_pageable(h_in, h_out, n, device, options, stream);
    case Memory::Pinned:
      return trip_pinned(h_in, h_out, n, device, options, stream);
    case Memory::WriteCombined:
      return trip_write_combined(h_in, h_out, n, device, options, stream);
    case Memory::Mapped:
      return trip_mapped(h_in, h_out, n, device, options, stream);
    case Memory::Streams:
      return trip_streams(h_in, h_out, n, device, options, stream);
  }
  throw std::invalid_argument("trip: unknown memory rung");
}

}  // namespace course::lesson06
