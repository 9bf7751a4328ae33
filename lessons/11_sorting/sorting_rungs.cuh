/// @file
/// @brief Lesson 11's rungs, one launcher each, called by sort_batches() after it has checked the
/// arguments. The given rung and the float key flip live in sorting_given.cu, the networks in
/// networks.cu, the radix sorts in radix.cu and radix_wide.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "sorting.cuh"

namespace course::lesson11 {

/// One sort, as the launchers see it: checked, non-empty, float keys already flipped to uint32.
struct Problem {
  std::uint32_t* keys;    ///< device, batch * length keys, sorted in place
  std::uint32_t* values;  ///< device, batch * length values, or nullptr (keys only)
  std::uint32_t batch;    ///< arrays (1 for every rung but the networks)
  std::uint32_t length;   ///< keys per array, >= 1
  int threads;            ///< the networks' threads per block, one of kNetworkThreads
  /// All keys of the call.
  [[nodiscard]] std::uint32_t count() const { return batch * length; }
};

/// The smallest power of two >= @p n (n >= 1, n <= 2^31).
__host__ __device__ constexpr std::uint32_t next_pow2(std::uint32_t n) {
  std::uint32_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

/// log2 of the power of two @p p.
__host__ __device__ constexpr int log2_pow2(std::uint32_t p) {
  int s = 0;
  while ((std::uint32_t{1} << s) < p)
    ++s;
  return s;
}

/// Hands out aligned pieces of one workspace allocation.
class Carver {
 public:
  /// Starts carving @p workspace, which is grown to @p total bytes first.
  Carver(Workspace& workspace, std::size_t total)
      : base_(static_cast<unsigned char*>(workspace.reserve(total))) {}
  /// The next @p count elements of T, 256-byte aligned.
  template <class T>
  T* take(std::size_t count) {
    T* piece = reinterpret_cast<T*>(base_ + used_);
    used_ += round_up(count * sizeof(T));
    return piece;
  }
  /// @p bytes rounded up to the carving alignment, for computing totals.
  static constexpr std::size_t round_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

 private:
  unsigned char* base_;
  std::size_t used_ = 0;
};

// Float keys: the bits of a float, flipped so that unsigned order is IEEE 754 totalOrder
// (given, sorting_given.cu). n >= 1.
void flip_float_keys(std::uint32_t* d_keys, std::size_t n, cudaStream_t stream);
void unflip_float_keys(std::uint32_t* d_keys, std::size_t n, cudaStream_t stream);

// Each launcher: a checked, non-empty Problem.
void launch_thrust(const Problem& problem, Workspace& workspace, cudaStream_t stream);
void launch_bitonic(const Problem& problem, Workspace& workspace, cudaStream_t stream);
void launch_odd_even_merge(const Problem& problem, Workspace& workspace, cudaStream_t stream);
void launch_radix(const Problem& problem, Workspace& workspace, cudaStream_t stream);
void launch_radix_wide(const Problem& problem, Workspace& workspace, cudaStream_t stream);

}  // namespace course::lesson11
