/// @file
/// @brief Lesson 06, box blur and host memory: the interface shared by skeleton, solution, tests
/// and demo.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <string_view>

#include "course/buffer.hpp"
#include "course/variants.hpp"

namespace course::lesson06 {

/// The kernel rungs, in teaching order.
enum class Kernel {
  Global,         ///< given: each output reads its 2R + 1 neighbours from global memory
  SharedHalo,     ///< exercise: the block's inputs and a halo of R on each side in shared memory
  SlidingWindow,  ///< stretch: several outputs per thread from a running sum, cost independent of R
};

/// The host-memory rungs, in teaching order: where the vector lives on the host, and how it
/// travels.
enum class Memory {
  Pageable,       ///< given: ordinary memory; every copy is staged by the driver
  Pinned,         ///< exercise: page-locked memory, copied by DMA
  WriteCombined,  ///< exercise: the input in write-combined page-locked memory
  Mapped,         ///< exercise: zero-copy; the kernel reads and writes host memory itself
  Streams,        ///< exercise: chunks over several streams, copies and kernels overlapped
};

/// A rung's name and kind, for tables, tests and docs.
template <class Rung>
struct RungInfo {
  Rung rung;              ///< the rung
  std::string_view name;  ///< as the demo's --variant takes it
  std::string_view kind;  ///< given, exercise or stretch
};

/// The kernel rungs.
inline constexpr std::array<RungInfo<Kernel>, 3> kKernels{{
    {Kernel::Global, "global", "given"},
    {Kernel::SharedHalo, "shared_halo", "exercise"},
    {Kernel::SlidingWindow, "sliding_window", "stretch"},
}};

/// The host-memory rungs.
inline constexpr std::array<RungInfo<Memory>, 5> kMemories{{
    {Memory::Pageable, "pageable", "given"},
    {Memory::Pinned, "pinned", "exercise"},
    {Memory::WriteCombined, "write_combined", "exercise"},
    {Memory::Mapped, "mapped", "exercise"},
    {Memory::Streams, "streams", "exercise"},
}};

/// The name of a rung.
template <class Rung, std::size_t N>
[[nodiscard]] constexpr std::string_view name_of(const std::array<RungInfo<Rung>, N>& rungs,
                                                 Rung rung) {
  return course::name_in(rungs, rung, &RungInfo<Rung>::rung);
}

/// The largest radius a launch accepts.
inline constexpr int kMaxRadius = 32;
/// Threads per block when the caller does not choose (the box-blur article's choice).
inline constexpr int kDefaultBlock = 512;
/// Chunks of the Streams rung when the caller does not choose.
inline constexpr int kDefaultChunks = 16;
/// The most chunks the Streams rung accepts.
inline constexpr int kMaxChunks = 256;
/// The longest vector a blur or a trip accepts: 2^26 floats, the size the kernels' speed tests
/// check every output of. Far below 2^31, so no index of a vector (nor index + R) overflows 32
/// bits; chunk bounds such as n k / chunks still need 64 bits (the tests reach n k = 2^34).
inline constexpr std::size_t kMaxElements = std::size_t{1} << 26;

/// Blurs a vector: out[i] = mean(in[i - R .. i + R]) for R <= i < n - R; the first and last R
/// elements (every element when n <= 2R) are copied unchanged.
/// @param[in]  kernel the rung
/// @param[in]  d_in   device memory (or mapped host memory), n floats, any 4-byte alignment
/// @param[out] d_out  device memory (or mapped host memory), n floats, not overlapping d_in
/// @param[in]  n      elements; 0 is a no-op
/// @param[in]  radius R, 1 <= R <= kMaxRadius
/// @param[in]  stream the stream to launch on (asynchronous): all of the work is ordered on it
/// @param[in]  block  threads per block, a multiple of 32 in [64, 1024]
/// @pre n <= kMaxElements
/// @throws std::invalid_argument for a bad radius or block, n > kMaxElements, null or
///         overlapping buffers.
void blur(Kernel kernel, const float* d_in, float* d_out, std::size_t n, int radius,
          cudaStream_t stream = {}, int block = kDefaultBlock);

/// Where a host-memory rung's two vectors live on the host. The caller of trip() allocates them
/// there (course::HostBuffer) and fills the input before the trip: putting the data in host
/// memory is the application's own work, not part of the trip, and not timed.
struct TripMemory {
  HostMemory input;   ///< the kind of memory of the trip's input
  HostMemory output;  ///< the kind of memory of the trip's output
};

//! [trip_memory]
/// The host memory of each host-memory rung: the technique the rung teaches.
/// - pageable: both ordinary (operator new);
/// - pinned: the input from cudaHostAlloc, the output from cudaMallocHost (both page-locked);
/// - write_combined: the input write-combined (the CPU writes it, the GPU reads it), the output
///   ordinary pinned memory, because the CPU reads it back;
/// - mapped: both mapped into the device's address space (zero-copy);
/// - streams: both pinned.
[[nodiscard]] constexpr TripMemory trip_memory(Memory memory) {
  switch (memory) {
    case Memory::Pageable:
      return {HostMemory::Pageable, HostMemory::Pageable};
    case Memory::Pinned:
      return {HostMemory::Pinned, HostMemory::PinnedMallocHost};
    case Memory::WriteCombined:
      return {HostMemory::WriteCombined, HostMemory::Pinned};
    case Memory::Mapped:
      return {HostMemory::Mapped, HostMemory::Mapped};
    case Memory::Streams:
      return {HostMemory::Pinned, HostMemory::Pinned};
  }
  return {HostMemory::Pageable, HostMemory::Pageable};
}
//! [trip_memory]

/// The device memory a trip works in, allocated by the caller once for many trips: a trip
/// allocates nothing, so that what it costs is the copies and the blur.
struct TripBuffers {
  float* d_in = nullptr;   ///< device memory, n floats: the input once it is on the GPU
  float* d_out = nullptr;  ///< device memory, n floats: the blurred vector before it goes back
};

/// How a trip is made.
struct PipelineOptions {
  Kernel kernel = Kernel::Global;  ///< the kernel rung that blurs
  int radius = 2;                  ///< R, 1 <= R <= kMaxRadius
  int block = kDefaultBlock;       ///< threads per block
  int chunks = kDefaultChunks;     ///< chunks of the Streams rung, 1 <= chunks <= kMaxChunks
};

/// One whole trip of a vector for one host-memory rung, enqueued on @p stream: send @p h_in to
/// the GPU (or let the kernel read it where it is), blur it with @p options.kernel, and bring the
/// result back to @p h_out. The trip measures nothing: its caller times it with events on
/// @p stream (course::measure), so every piece of its work must be ordered on that stream. A trip
/// that uses streams of its own forks from @p stream (they wait for an event recorded on it
/// before their first piece of work) and joins back before it returns (@p stream waits for an
/// event recorded after their last), so that an event recorded on @p stream after the call
/// completes only when the whole trip has.
/// @param[in]  memory  the host-memory rung
/// @param[in]  h_in    host memory of kind trip_memory(memory).input, n floats, any 4-byte
///                     alignment, filled by the caller before the work on @p stream reaches the
///                     trip
/// @param[out] h_out   host memory of kind trip_memory(memory).output, n floats, not overlapping
///                     @p h_in; read it after synchronizing @p stream
/// @param[in]  n       elements; 0 is a no-op
/// @param[in]  device  device memory for the trip, two buffers of n floats that overlap neither
///                     each other nor the host vectors (the Mapped rung leaves them untouched;
///                     it may get nulls)
/// @param[in]  options the kernel, radius, block and chunks
/// @param[in]  stream  the stream the trip is ordered on (asynchronous; pageable copies may make
///                     the host wait)
/// @pre n <= kMaxElements
/// @throws std::invalid_argument for bad options, n > kMaxElements, null or overlapping buffers;
///         course::NotImplemented for a rung the skeleton has not written yet.
void trip(Memory memory, const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
          const PipelineOptions& options, cudaStream_t stream = {});

}  // namespace course::lesson06
