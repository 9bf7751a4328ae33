// Lesson 10's timed work (scan_bench.hpp): inputs made on the GPU, CUB's scan as the reference,
// and the Trial that course::measure() times.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <cub/cub.cuh>
#include <cuda/std/functional>

#include <string>
#include <type_traits>

#include "course/error.hpp"
#include "scan_bench.hpp"
#include "scan_cpu.hpp"

namespace course::lesson10 {

namespace {

// Floats are summed in double, then rounded once to float: a reference far closer to the exact
// sums than any float scan.
struct ToDouble {
  __host__ __device__ double operator()(float x) const { return x; }
};
struct ToFloat {
  __host__ __device__ float operator()(double x) const { return static_cast<float>(x); }
};
// The key of element i in a segmented scan: its section.
struct SectionOf {
  std::uint32_t length;
  __host__ __device__ std::uint32_t operator()(std::uint32_t i) const { return i / length; }
};

// The values CUB reads and where it writes them: floats through double, ints as they are.
template <class T>
auto values_of(const T* in) {
  if constexpr (std::is_same_v<T, float>)
    return thrust::make_transform_iterator(in, ToDouble{});
  else
    return in;
}
template <class T>
auto results_to(T* out) {
  if constexpr (std::is_same_v<T, float>)
    return thrust::make_transform_output_iterator(out, ToFloat{});
  else
    return out;
}

}  // namespace

template <class T>
OutputCheck timed_check(Variant variant, std::size_t n, int block) {
  if constexpr (std::is_same_v<T, float>)
    return {OutputCheck::Kind::Float32,
            {0.0, 2.0 * (rounding_depth(variant, n, block) + 1.0) * 0x1p-24}};
  else
    return {OutputCheck::Kind::Bytes, {}};
}

template <class T>
ScanBench<T>::ScanBench(std::size_t n) : n_(n), in_(n), out_(n), expected_(n) {
  require(n >= 1 && n <= kMaxCount, "ScanBench: n must be in [1, kMaxCount]");
}

template <class T>
void ScanBench<T>::load(std::uint64_t seed, cudaStream_t stream) {
  if constexpr (std::is_same_v<T, float>)
    fill_uniform_floats(in_.data(), n_, seed, 0.0f, 1.0f, stream);
  else
    fill_uniform_ints(in_.data(), n_, seed, -31, 31, stream);
}

template <class T>
void ScanBench<T>::reference(Variant variant, ScanKind kind, int block, cudaStream_t stream) {
  const bool inclusive = kind == ScanKind::Inclusive;
  const std::size_t section = section_length(variant, block);
  const auto values = values_of(in_.data());
  const auto results = results_to(expected_.data());
  const auto n = static_cast<std::uint32_t>(n_);  // n <= kMaxCount = 2^30
  // Each CUB call twice: first for the size of its scratch, then to scan.
  auto scan_with = [&](auto&& cub_scan) {
    std::size_t bytes = 0;
    CUDA_CHECK(cub_scan(nullptr, bytes));
    if (scratch_.size() < bytes)
      scratch_ = DeviceBuffer<unsigned char>(bytes);
    CUDA_CHECK(cub_scan(scratch_.data(), bytes));
  };
  if (section == kWholeInput) {
    scan_with([&](void* scratch, std::size_t& bytes) {
      return inclusive ? cub::DeviceScan::InclusiveSum(scratch, bytes, values, results, n, stream)
                       : cub::DeviceScan::ExclusiveSum(scratch, bytes, values, results, n, stream);
    });
    return;
  }
  const auto keys = thrust::make_transform_iterator(thrust::counting_iterator<std::uint32_t>(0),
                                                    SectionOf{static_cast<std::uint32_t>(section)});
  const ::cuda::std::equal_to<> same;
  scan_with([&](void* scratch, std::size_t& bytes) {
    return inclusive ? cub::DeviceScan::InclusiveSumByKey(scratch, bytes, keys, values, results, n,
                                                          same, stream)
                     : cub::DeviceScan::ExclusiveSumByKey(scratch, bytes, keys, values, results, n,
                                                          same, stream);
  });
}

template <class T>
Trial ScanBench<T>::trial(Variant variant, ScanKind kind, int block) {
  Trial trial;
  trial.rung = std::string(name_of(variant)) + " " + std::string(name_of(kind)) +
               (std::is_same_v<T, float> ? "<float>" : "<int>");
  trial.load = [this](std::uint64_t seed, cudaStream_t stream) { load(seed, stream); };
  trial.reference = [this, variant, kind, block](cudaStream_t stream) {
    reference(variant, kind, block, stream);
  };
  trial.launch = [this, variant, kind, block](cudaStream_t stream) {
    scan(variant, kind, in_.data(), out_.data(), n_, stream, block);
  };
  trial.outputs = {
      {"scan", out_.data(), n_ * sizeof(T), expected_.data(), timed_check<T>(variant, n_, block)}};
  // Out of place, the input is const: it must still hold what load() wrote after every launch.
  trial.inputs = {{"in", in_.data(), n_ * sizeof(T)}};
  return trial;
}

template OutputCheck timed_check<int>(Variant, std::size_t, int);
template OutputCheck timed_check<float>(Variant, std::size_t, int);
template class ScanBench<int>;
template class ScanBench<float>;

}  // namespace course::lesson10
