/// @file
/// @brief Lesson 10's rungs, one launcher each, called by scan() after it has checked the
/// arguments, and the given helpers they share. Host declarations only (the .cpp dispatcher
/// includes it too).
///
/// The section rungs (1 to 4) share one signature, SectionLauncher: block b scans its section of
/// the input on its own and, when asked, also writes the section's total to d_section_sums[b].
/// hierarchical builds a scan of the whole input out of a section rung and those totals.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "scan.cuh"

namespace course::lesson10 {

/// A section scan: scans each section of section_length(variant, block) elements of d_in[0, n)
/// into d_out (inclusive or exclusive within the section) and, when @p d_section_sums is not
/// null, writes the total of section b (all of its elements, whatever @p kind) to
/// d_section_sums[b]. n > 0; d_out is d_in or disjoint from it.
template <class T>
using SectionLauncher = void (*)(const T* d_in, T* d_out, T* d_section_sums, std::size_t n,
                                 ScanKind kind, int block, cudaStream_t stream);

/// Blocks needed to give every one of @p n elements one of @p per_block slots.
inline unsigned blocks_for(std::size_t n, std::size_t per_block) {
  return static_cast<unsigned>((n + per_block - 1) / per_block);
}

/// Given: @p bytes of device scratch memory (256-byte aligned), kept by the lesson between calls
/// so that no timed call allocates, and grown when a call needs more. Growing frees the old
/// memory, so ask once per scan() call, for everything that call needs. Calls on different
/// streams at once would share it: the launchers are meant for one stream at a time.
void* workspace_bytes(std::size_t bytes);

/// Given: workspace_bytes() as @p count elements of T.
template <class T>
T* workspace(std::size_t count) {
  return static_cast<T*>(workspace_bytes(count * sizeof(T)));
}

// The section rungs (SectionLauncher). Given: kogge_stone. Exercises: the others.
template <class T>
void launch_kogge_stone(const T* d_in, T* d_out, T* d_section_sums, std::size_t n, ScanKind kind,
                        int block, cudaStream_t stream);
template <class T>
void launch_kogge_stone_double_buffer(const T* d_in, T* d_out, T* d_section_sums, std::size_t n,
                                      ScanKind kind, int block, cudaStream_t stream);
template <class T>
void launch_brent_kung(const T* d_in, T* d_out, T* d_section_sums, std::size_t n, ScanKind kind,
                       int block, cudaStream_t stream);
template <class T>
void launch_three_phase(const T* d_in, T* d_out, T* d_section_sums, std::size_t n, ScanKind kind,
                        int block, cudaStream_t stream);

// The whole-input rungs: the scan of d_in[0, n) into d_out (n > 0).
template <class T>
void run_hierarchical(const T* d_in, T* d_out, std::size_t n, ScanKind kind, int block,
                      cudaStream_t stream);
template <class T>
void run_single_pass(const T* d_in, T* d_out, std::size_t n, ScanKind kind, cudaStream_t stream);

}  // namespace course::lesson10
