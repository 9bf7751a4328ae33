// Lesson 09: the entry point checks its arguments once, zeroes the counts, then hands the call
// to the rung.
#include <cstdint>
#include <string>

#include "course/error.hpp"
#include "histogram.cuh"
#include "histogram_rungs.cuh"

namespace course::lesson09 {

void histogram(Variant variant, const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
               cudaStream_t stream, int block) {
  require(n <= kMaxCount, "histogram: n must be in [0, 2^30]");
  require(block >= 32 && block <= 1024 && block % 32 == 0,
          "histogram: block must be a multiple of 32 in [32, 1024]");
  const int bins = bins_of(variant);
  require(bins != 0, "histogram: unknown variant");
  require(d_bins != nullptr, "histogram: d_bins must be a device pointer");
  require(reinterpret_cast<std::uintptr_t>(d_bins) % alignof(std::uint32_t) == 0,
          "histogram: d_bins must be 4-byte aligned");
  require(n == 0 || d_text != nullptr, "histogram: d_text must be a device pointer when n > 0");
  const auto* bins_begin = reinterpret_cast<const unsigned char*>(d_bins);
  const auto* bins_end = bins_begin + bins * sizeof(std::uint32_t);
  require(n == 0 || bins_end <= d_text || d_text + n <= bins_begin,
          "histogram: d_bins overlaps d_text");
  // Every rung adds its counts into d_bins, so they start at zero; for n = 0 that is the result.
  CUDA_CHECK(cudaMemsetAsync(d_bins, 0, bins * sizeof(std::uint32_t), stream));
  if (n == 0)
    return;
  switch (variant) {
    case Variant::AtomicGlobal:
      return launch_atomic_global(d_text, n, d_bins, block, stream);
    case Variant::PrivatizedGlobal:
      return launch_privatized_global(d_text, n, d_bins, block, stream);
    case Variant::PrivatizedShared:
      return launch_privatized_shared(d_text, n, d_bins, block, stream);
    case Variant::CoarsenedContiguous:
      return launch_coarsened_contiguous(d_text, n, d_bins, block, stream);
    case Variant::CoarsenedInterleaved:
      return launch_coarsened_interleaved(d_text, n, d_bins, block, stream);
    case Variant::Aggregated:
      return launch_aggregated(d_text, n, d_bins, block, stream);
    case Variant::RegisterPrivatized:
      return launch_register_privatized(d_text, n, d_bins, stream);
    case Variant::Bytes256:
      return launch_bytes256(d_text, n, d_bins, stream);
  }
  throw std::invalid_argument("histogram: unknown variant");
}

}  // namespace course::lesson09
