/// @file
/// @brief Lesson 09's timed work, in one place for the tests and the demo: the text of every
/// launch made afresh on the GPU, the expected counts from CUB, and the course::Trial of a rung.
///
/// course::measure() (course/bench.hpp) times a Trial: before every launch it calls the Trial's
/// load (new text from a new seed) and reference (CUB's counts of that text), and after it
/// compares the rung's counts with CUB's, bit for bit.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "course/ceilings.hpp"
#include "histogram.cuh"
#include "histogram_cpu.hpp"

namespace course::lesson09 {

/// Writes the @p n bytes of make_text(@p input, @p n, @p seed) to @p d_text (device memory),
/// made on the GPU: the same bytes as the CPU's, from a hash of (seed, index).
void fill_text(Input input, unsigned char* d_text, std::size_t n, std::uint64_t seed,
               cudaStream_t stream);

/// CUB's DeviceHistogram::HistogramEven over the @p n bytes at @p d_text, as the share of a rung
/// with @p bins counts is taken of: 7 bins of 4 letters from 'a', or all 256 byte values. Measured
/// on the caller's bytes, so the caller loads the input the rung was timed on first.
[[nodiscard]] ceilings::Ceiling histogram_ceiling(const unsigned char* d_text, std::size_t n,
                                                  int bins);

/// The device buffers of timed runs at one size, and the Trial of each rung on them.
class HistogramBench {
 public:
  /// Buffers for inputs of @p n bytes, 1 <= n <= kMaxCount.
  explicit HistogramBench(std::size_t n);

  /// The Trial of @p variant (with @p block threads per block for the exercise rungs) on fresh
  /// text of kind @p input for every launch; its expected counts come from CUB's 256-bin
  /// histogram of the same bytes (letters folded into their 7 bins), compared bit for bit, and
  /// the text (const in the interface) must be left as loaded. The Trial refers to this object,
  /// which must outlive it.
  [[nodiscard]] Trial trial(Variant variant, Input input, int block = kDefaultBlock);

  /// Writes text of kind @p input made from @p seed into the buffer every Trial reads, as a
  /// Trial's load does before each launch (e.g. to measure the ceiling on such text).
  void load(Input input, std::uint64_t seed, cudaStream_t stream);

  /// The text of the last load (device memory, size() bytes).
  [[nodiscard]] const unsigned char* text() const { return text_.data(); }
  /// Bytes of text per launch.
  [[nodiscard]] std::size_t size() const { return n_; }

 private:
  // The expected counts of @p variant for the text just loaded, by CUB, into expected_.
  void reference(Variant variant, cudaStream_t stream);

  std::size_t n_;
  DeviceBuffer<unsigned char> text_;  // the input of every launch
  DeviceBuffer<std::uint32_t> bins_;  // what the rung writes (kByteBins, the most a rung has)
  DeviceBuffer<std::uint32_t> byte_counts_;  // CUB's 256 counts
  DeviceBuffer<std::uint32_t> expected_;     // what bins_ must hold
  DeviceBuffer<unsigned char> scratch_;      // CUB's temporary storage
};

}  // namespace course::lesson09
