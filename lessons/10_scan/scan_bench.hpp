/// @file
/// @brief Lesson 10's timed work, in one place for the tests and the demo: fresh inputs made on
/// the GPU for every launch, the expected scan from CUB, and the course::Trial of a rung.
///
/// course::measure() (course/bench.hpp) times a Trial: before every launch it calls the Trial's
/// load (new inputs from a new seed) and reference (CUB's scan of them), and after it compares the
/// rung's output with CUB's: ints bit for bit, floats within the README's bound (timed_check()).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "scan.cuh"

namespace course::lesson10 {

/// How a timed output of @p variant (n elements, @p block threads) of element type @p T is
/// compared with CUB's. int: bit for bit. float: the timed inputs are uniform in [0, 1), so the
/// sum of |x_j| over the terms of an output is the output itself, and the README's bound
/// 2 d u sum |x_j| (d = rounding_depth(), u = 2^-24) is a relative tolerance, with one more u for
/// the rounding of CUB's sum (accumulated in double) to float.
template <class T>
[[nodiscard]] OutputCheck timed_check(Variant variant, std::size_t n, int block);

/// The device buffers of timed scans of n elements of T (int or float), and the Trial of each
/// rung on them.
template <class T>
class ScanBench {
 public:
  /// Buffers for scans of @p n elements, 1 <= n <= kMaxCount.
  explicit ScanBench(std::size_t n);

  /// The Trial of @p variant, @p kind, with @p block threads per block, on fresh inputs for
  /// every launch: floats uniform in [0, 1), ints uniform in [-31, 31] (made on the GPU as
  /// course::uniform_floats() and course::uniform_ints() make them). The expected output is
  /// CUB's DeviceScan of the same inputs, segmented by section_length() for the section rungs
  /// (ScanByKey), floats accumulated in double; the input (const, out of place) must be left as
  /// loaded. The Trial refers to this object, which must outlive it.
  [[nodiscard]] Trial trial(Variant variant, ScanKind kind, int block = kDefaultBlock);

  /// Writes the inputs made from @p seed into the buffer every Trial reads, as a Trial's load
  /// does before each launch.
  void load(std::uint64_t seed, cudaStream_t stream);

  /// Elements per scan.
  [[nodiscard]] std::size_t size() const { return n_; }

 private:
  // CUB's scan of the inputs just loaded, as @p variant must compute it, into expected_.
  void reference(Variant variant, ScanKind kind, int block, cudaStream_t stream);

  std::size_t n_;
  DeviceBuffer<T> in_;                   // the input of every launch
  DeviceBuffer<T> out_;                  // what the rung writes
  DeviceBuffer<T> expected_;             // what out_ must hold
  DeviceBuffer<unsigned char> scratch_;  // CUB's temporary storage, grown when a scan needs more
};

extern template class ScanBench<int>;
extern template class ScanBench<float>;

}  // namespace course::lesson10
