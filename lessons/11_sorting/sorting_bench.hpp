/// @file
/// @brief Lesson 11's timed sorts, described once for the tests and the demo: each rung as a
/// course::Trial that course::measure() times (course/bench.hpp). Given code.
///
/// Before every timed sort, fresh keys are made on the GPU from a new seed, and CUB's radix sort
/// of them (trusted code, never the rung under test) gives the expected result. The timed launch
/// copies the keys into place and sorts them there, so the copy is timed as in the CUB ceiling;
/// then every key, and every value of a pair sort, is compared with CUB's on the GPU. So the share
/// of CUB that the demo prints is the share the tests grade, and no rung is timed on a sort it
/// did not do.
#pragma once

#include <cstddef>
#include <cstdint>

#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "sorting.cuh"

namespace course::lesson11 {

/// What one timed sort sorts.
struct SortShape {
  std::size_t batch = 1;   ///< arrays, each sorted on its own (more than 1: the networks only)
  std::size_t length = 1;  ///< keys per array
  /// Float keys uniform in [-1000, 1000) (sorted with sort_keys/sort_pairs for floats, batch 1,
  /// the default threads), else uint32 keys uniform over all 2^32 values.
  bool floats = false;
  bool pairs = false;  ///< key-value pairs (uint32 values), else keys only
  int threads = 0;     ///< the networks' threads per block (0: kDefaultNetworkThreads)
  /// Keys of the whole call.
  [[nodiscard]] std::size_t count() const noexcept { return batch * length; }
};

/// The buffers of the timed sorts of one shape, and each rung's Trial over them. The Trials refer
/// to this object: keep it alive (and in place) while they are measured.
///
/// Values of a pair sort: for a stable rung (thrust, radix, radix_wide) each value is its key's
/// input position and must come out exactly where CUB's stable sort puts it; for a network, which
/// may order equal keys either way, each value is a fixed function of its key, so that every order
/// of equal keys gives the same values while a value that left its key still shows.
class SortBench {
 public:
  /// Allocates the inputs, the arrays sorted in place, the expected results and CUB's scratch
  /// memory. @throws std::invalid_argument for a shape sort_batches() refuses (count() == 0
  /// included), or float keys with batch > 1 or threads != 0.
  explicit SortBench(const SortShape& shape);
  SortBench(const SortBench&) = delete;
  SortBench& operator=(const SortBench&) = delete;

  /// The Trial that times @p variant on this shape.
  [[nodiscard]] Trial trial(Variant variant);

  /// @name The steps of a trial, for a test that checks one untimed sort
  /// @{

  /// Makes fresh inputs from @p seed (values as @p variant's kind needs them).
  void load(Variant variant, std::uint64_t seed, cudaStream_t stream);
  /// Sorts the inputs just loaded with CUB into the expected keys and values.
  void reference(Variant variant, cudaStream_t stream);
  /// Copies the inputs into the arrays the rung sorts, then sorts them with @p variant.
  void launch(Variant variant, cudaStream_t stream);
  /// @}

  /// The keys as the last launch left them (float keys as their bit patterns).
  [[nodiscard]] const DeviceBuffer<std::uint32_t>& keys() const noexcept { return keys_; }
  /// The values as the last launch left them (empty unless pairs).
  [[nodiscard]] const DeviceBuffer<std::uint32_t>& values() const noexcept { return values_; }
  /// The keys CUB's sort of the last inputs gives.
  [[nodiscard]] const DeviceBuffer<std::uint32_t>& expected_keys() const noexcept {
    return expected_keys_;
  }
  /// The values the last inputs' sort must give (empty unless pairs).
  [[nodiscard]] const DeviceBuffer<std::uint32_t>& expected_values() const noexcept {
    return expected_values_;
  }
  /// The shape.
  [[nodiscard]] const SortShape& shape() const noexcept { return shape_; }

 private:
  SortShape shape_;
  DeviceBuffer<std::uint32_t> source_keys_, source_values_;  // fresh inputs, never sorted
  DeviceBuffer<std::uint32_t> keys_, values_;                // what the rung sorts in place
  DeviceBuffer<std::uint32_t> expected_keys_, expected_values_;
  DeviceBuffer<std::uint32_t> flipped_;  // float keys flipped to uint32 order, for CUB
  DeviceBuffer<int> offsets_;            // the arrays' first positions, for CUB's segmented sort
  DeviceBuffer<unsigned char> scratch_;  // CUB's temporary storage
  std::size_t scratch_bytes_ = 0;
  Workspace workspace_;  // the rungs' scratch, kept between launches as a program would
};

}  // namespace course::lesson11
