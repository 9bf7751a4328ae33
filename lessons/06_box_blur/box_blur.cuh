/// @file
/// @brief Lesson 06, box blur and host memory: the interface shared by skeleton, solution, tests
/// and demo.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

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
  for (const auto& info : rungs)
    if (info.rung == rung) return info.name;
  return "?";
}

/// The largest radius a launch accepts.
inline constexpr int kMaxRadius = 32;
/// Threads per block when the caller does not choose (the seed's final configuration).
inline constexpr int kDefaultBlock = 512;
/// Chunks of the Streams rung when the caller does not choose.
inline constexpr int kDefaultChunks = 16;
/// The most chunks the Streams rung accepts.
inline constexpr int kMaxChunks = 256;

/// Blurs a vector: out[i] = mean(in[i - R .. i + R]) for R <= i < n - R; the first and last R
/// elements (every element when n <= 2R) are copied unchanged.
/// @param[in]  kernel the rung
/// @param[in]  d_in   device memory (or mapped host memory), n floats
/// @param[out] d_out  device memory (or mapped host memory), n floats, not overlapping d_in
/// @param[in]  n      elements; 0 is a no-op
/// @param[in]  radius R, 1 <= R <= kMaxRadius
/// @param[in]  stream the stream to launch on (asynchronous)
/// @param[in]  block  threads per block, a multiple of 32 in [64, 1024]
/// @throws std::invalid_argument for a bad radius or block, null or overlapping buffers.
void blur(Kernel kernel, const float* d_in, float* d_out, std::size_t n, int radius,
          cudaStream_t stream = {}, int block = kDefaultBlock);

/// Where the time of one trip went, in milliseconds (CUDA events). Zero for a phase the rung
/// does not have (a mapped trip has no copies); a streams trip overlaps its phases, so only its
/// total is measured and the phases are zero.
struct PipelineTimes {
  double h2d_ms = 0.0;     ///< host to device copy
  double kernel_ms = 0.0;  ///< the blur
  double d2h_ms = 0.0;     ///< device to host copy
  double total_ms = 0.0;   ///< from the first copy's start to the last one's end
};

/// How a trip is made.
struct PipelineOptions {
  Kernel kernel = Kernel::Global;  ///< the kernel rung that blurs
  int radius = 2;                  ///< R, 1 <= R <= kMaxRadius
  int block = kDefaultBlock;       ///< threads per block
  int chunks = kDefaultChunks;     ///< chunks of the Streams rung, 1 <= chunks <= kMaxChunks
};

/// One whole trip for one kind of host memory: stage @p input in that memory (not timed: that
/// is the application's own data), send it to the GPU (or let the kernel read it in place),
/// blur it, bring the result back, and copy it to @p output (not timed).
/// @param[in]  memory  the host-memory rung
/// @param[in]  input   host memory, n floats
/// @param[out] output  host memory, n floats
/// @param[in]  options the kernel, radius, block and chunks
/// @throws std::invalid_argument for sizes that differ or bad options; course::NotImplemented
///         for a rung the skeleton has not written yet.
PipelineTimes run_pipeline(Memory memory, std::span<const float> input, std::span<float> output,
                           const PipelineOptions& options);

}  // namespace course::lesson06
