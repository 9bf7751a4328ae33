// Lesson 11: checks the arguments once, flips float keys, then hands the call to the rung's
// launcher.
#include <algorithm>
#include <optional>
#include <string>

#include "course/error.hpp"
#include "course/indexing.hpp"
#include "sorting.cuh"
#include "sorting_rungs.cuh"

namespace course::lesson11 {

namespace {

void dispatch(Variant variant, const Problem& problem, Workspace& workspace, cudaStream_t stream) {
  switch (variant) {
    case Variant::Thrust:
      return launch_thrust(problem, workspace, stream);
    case Variant::Bitonic:
      return launch_bitonic(problem, workspace, stream);
    case Variant::OddEvenMerge:
      return launch_odd_even_merge(problem, workspace, stream);
    case Variant::Radix:
      return launch_radix(problem, workspace, stream);
    case Variant::RadixWide:
      return launch_radix_wide(problem, workspace, stream);
  }
  throw std::invalid_argument("sort: unknown variant");
}

// Checks everything and builds the Problem; nothing when there is nothing to sort.
std::optional<Problem> check(Variant variant, std::uint32_t* d_keys, std::uint32_t* d_values,
                             std::size_t batch, std::size_t length, int threads) {
  const auto& info = info_of(variant);
  const std::string limit = "batch * length <= kMaxKeys = 2^24";
  require(length == 0 || batch <= kMaxKeys / length, "sort: too many keys (" + limit + ", got " +
                                                         std::to_string(batch) + " x " +
                                                         std::to_string(length) + ")");
  require(info.network || batch <= 1,
          "sort: only the networks (bitonic, odd_even_merge) sort batches; " +
              std::string(info.name) + " takes batch = 1");
  require(threads == 0 || (info.network && std::find(kNetworkThreads.begin(), kNetworkThreads.end(),
                                                     threads) != kNetworkThreads.end()),
          "sort: threads must be 0, or for the networks one of 64, 128, 256, 512, 1024");
  const std::size_t count = batch * length;
  if (count == 0)
    return std::nullopt;
  require(d_keys != nullptr, "sort: d_keys must be a device pointer");
  require(d_values == nullptr || !overlap(d_keys, d_values, count),
          "sort: d_keys and d_values overlap");
  return Problem{d_keys, d_values, static_cast<std::uint32_t>(batch),
                 static_cast<std::uint32_t>(length),
                 threads == 0 ? kDefaultNetworkThreads : threads};
}

void sort_floats(Variant variant, float* d_keys, std::uint32_t* d_values, std::size_t n,
                 Workspace& workspace, cudaStream_t stream) {
  auto* keys = reinterpret_cast<std::uint32_t*>(d_keys);
  const auto problem = check(variant, keys, d_values, 1, n, 0);
  if (!problem)
    return;
  flip_float_keys(keys, n, stream);
  dispatch(variant, *problem, workspace, stream);
  unflip_float_keys(keys, n, stream);
}

}  // namespace

void sort_batches(Variant variant, std::uint32_t* d_keys, std::uint32_t* d_values,
                  std::size_t batch, std::size_t length, int threads, Workspace& workspace,
                  cudaStream_t stream) {
  if (const auto problem = check(variant, d_keys, d_values, batch, length, threads))
    dispatch(variant, *problem, workspace, stream);
}

void sort_keys(Variant variant, std::uint32_t* d_keys, std::size_t n, Workspace& workspace,
               cudaStream_t stream) {
  sort_batches(variant, d_keys, nullptr, 1, n, 0, workspace, stream);
}

void sort_keys(Variant variant, float* d_keys, std::size_t n, Workspace& workspace,
               cudaStream_t stream) {
  sort_floats(variant, d_keys, nullptr, n, workspace, stream);
}

void sort_pairs(Variant variant, std::uint32_t* d_keys, std::uint32_t* d_values, std::size_t n,
                Workspace& workspace, cudaStream_t stream) {
  require(n == 0 || d_values != nullptr, "sort_pairs: d_values must be a device pointer");
  sort_batches(variant, d_keys, d_values, 1, n, 0, workspace, stream);
}

void sort_pairs(Variant variant, float* d_keys, std::uint32_t* d_values, std::size_t n,
                Workspace& workspace, cudaStream_t stream) {
  require(n == 0 || d_values != nullptr, "sort_pairs: d_values must be a device pointer");
  sort_floats(variant, d_keys, d_values, n, workspace, stream);
}

}  // namespace course::lesson11
