// Lesson 11's trials (sorting_bench.hpp): fresh keys from each launch's seed, the expected result
// from CUB's radix sort (segmented for batches of arrays), and the rung under test on the stream
// the harness hands it, sorting a fresh copy of the keys in place.
#include <algorithm>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "sorting_bench.hpp"
#include "sorting_rungs.cuh"

namespace course::lesson11 {

namespace {

// A network's value for @p key: a bijection, so equal keys carry equal values and a value that
// travelled with the wrong key cannot pass.
__host__ __device__ constexpr std::uint32_t network_value(std::uint32_t key) {
  return key * 0x9E3779B1u + 0x7F4A7C15u;
}

__global__ void positions_kernel(std::uint32_t* values, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    values[i] = static_cast<std::uint32_t>(i);
}

__global__ void network_values_kernel(const std::uint32_t* keys, std::uint32_t* values,
                                      std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    values[i] = network_value(keys[i]);
}

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 65536));
}

// Values as @p variant's kind of sort is checked: input positions for a stable rung, each key's
// network_value() for a network.
void values_for(Variant variant, const std::uint32_t* keys, std::uint32_t* values, std::size_t n,
                cudaStream_t stream) {
  if (info_of(variant).stable)
    positions_kernel<<<blocks_for(n), 256, 0, stream>>>(values, n);
  else
    network_values_kernel<<<blocks_for(n), 256, 0, stream>>>(keys, values, n);
  CUDA_CHECK_LAST();
}

// CUB's radix sort of @p keys_in into @p keys_out (values with them when @p values_in is not
// null): the trusted reference. One array, or @p batch arrays of @p length keys each (segmented).
// With @p scratch null it only asks how much scratch memory it needs.
void cub_sort(void* scratch, std::size_t& scratch_bytes, const std::uint32_t* keys_in,
              std::uint32_t* keys_out, const std::uint32_t* values_in, std::uint32_t* values_out,
              const SortShape& shape, const int* offsets, cudaStream_t stream) {
  const int n = static_cast<int>(shape.count());  // <= kMaxKeys
  if (shape.batch == 1 && values_in == nullptr) {
    CUDA_CHECK(cub::DeviceRadixSort::SortKeys(scratch, scratch_bytes, keys_in, keys_out, n, 0, 32,
                                              stream));
  } else if (shape.batch == 1) {
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch, scratch_bytes, keys_in, keys_out, values_in,
                                               values_out, n, 0, 32, stream));
  } else if (values_in == nullptr) {
    CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortKeys(scratch, scratch_bytes, keys_in, keys_out, n,
                                                       static_cast<int>(shape.batch), offsets,
                                                       offsets + 1, 0, 32, stream));
  } else {
    CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(
        scratch, scratch_bytes, keys_in, keys_out, values_in, values_out, n,
        static_cast<int>(shape.batch), offsets, offsets + 1, 0, 32, stream));
  }
}

}  // namespace

SortBench::SortBench(const SortShape& shape) : shape_(shape) {
  require(shape.batch >= 1 && shape.length >= 1 && shape.batch <= kMaxKeys / shape.length,
          "SortBench: batch and length must be >= 1, batch * length <= kMaxKeys");
  require(!shape.floats || (shape.batch == 1 && shape.threads == 0),
          "SortBench: float keys are sorted as one array, with the default threads per block");
  const std::size_t n = shape.count();
  source_keys_ = DeviceBuffer<std::uint32_t>(n);
  keys_ = DeviceBuffer<std::uint32_t>(n);
  expected_keys_ = DeviceBuffer<std::uint32_t>(n);
  if (shape.pairs) {
    source_values_ = DeviceBuffer<std::uint32_t>(n);
    values_ = DeviceBuffer<std::uint32_t>(n);
    expected_values_ = DeviceBuffer<std::uint32_t>(n);
  }
  if (shape.floats)
    flipped_ = DeviceBuffer<std::uint32_t>(n);
  if (shape.batch > 1) {
    std::vector<int> offsets(shape.batch + 1);
    for (std::size_t a = 0; a <= shape.batch; ++a)
      offsets[a] = static_cast<int>(a * shape.length);
    offsets_ = DeviceBuffer<int>(std::span<const int>(offsets));
  }
  // Scratch for the largest of the sorts reference() may run (keys only, or pairs).
  for (const bool with_values : {false, true}) {
    if (with_values && !shape.pairs)
      continue;
    std::size_t bytes = 0;
    cub_sort(nullptr, bytes, source_keys_.data(), expected_keys_.data(),
             with_values ? source_values_.data() : nullptr, expected_values_.data(), shape_,
             offsets_.data(), nullptr);
    scratch_bytes_ = std::max(scratch_bytes_, bytes);
  }
  scratch_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(scratch_bytes_, 1));
}

void SortBench::load(Variant variant, std::uint64_t seed, cudaStream_t stream) {
  const std::size_t n = shape_.count();
  if (shape_.floats)
    fill_uniform_floats(reinterpret_cast<float*>(source_keys_.data()), n, seed, -1000.0f, 1000.0f,
                        stream);
  else
    fill_uniform_keys(source_keys_.data(), n, seed, stream);
  if (shape_.pairs)
    values_for(variant, source_keys_.data(), source_values_.data(), n, stream);
}

void SortBench::reference(Variant variant, cudaStream_t stream) {
  const std::size_t n = shape_.count();
  const std::uint32_t* keys_in = source_keys_.data();
  if (shape_.floats) {  // CUB sorts the flipped bits as uint32: IEEE 754 totalOrder, bit-exact
    CUDA_CHECK(cudaMemcpyAsync(flipped_.data(), source_keys_.data(), source_keys_.bytes(),
                               cudaMemcpyDeviceToDevice, stream));
    flip_float_keys(flipped_.data(), n, stream);
    keys_in = flipped_.data();
  }
  // CUB's radix sort is stable: the positions of equal keys come out in input order.
  const bool positions = shape_.pairs && info_of(variant).stable;
  cub_sort(scratch_.data(), scratch_bytes_, keys_in, expected_keys_.data(),
           positions ? source_values_.data() : nullptr, expected_values_.data(), shape_,
           offsets_.data(), stream);
  if (shape_.floats)
    unflip_float_keys(expected_keys_.data(), n, stream);
  if (shape_.pairs && !positions)
    values_for(variant, expected_keys_.data(), expected_values_.data(), n, stream);
}

void SortBench::launch(Variant variant, cudaStream_t stream) {
  const std::size_t n = shape_.count();
  CUDA_CHECK(cudaMemcpyAsync(keys_.data(), source_keys_.data(), source_keys_.bytes(),
                             cudaMemcpyDeviceToDevice, stream));
  std::uint32_t* values = nullptr;
  if (shape_.pairs) {
    CUDA_CHECK(cudaMemcpyAsync(values_.data(), source_values_.data(), source_values_.bytes(),
                               cudaMemcpyDeviceToDevice, stream));
    values = values_.data();
  }
  if (shape_.floats) {
    auto* float_keys = reinterpret_cast<float*>(keys_.data());
    if (values != nullptr)
      sort_pairs(variant, float_keys, values, n, workspace_, stream);
    else
      sort_keys(variant, float_keys, n, workspace_, stream);
  } else {
    const int threads = info_of(variant).network ? shape_.threads : 0;
    sort_batches(variant, keys_.data(), values, shape_.batch, shape_.length, threads, workspace_,
                 stream);
  }
}

Trial SortBench::trial(Variant variant) {
  Trial trial;
  trial.rung = std::string(name_of(variant));
  trial.load = [this, variant](std::uint64_t seed, cudaStream_t stream) {
    load(variant, seed, stream);
  };
  trial.reference = [this, variant](cudaStream_t stream) { reference(variant, stream); };
  trial.launch = [this, variant](cudaStream_t stream) { launch(variant, stream); };
  const OutputCheck exact{OutputCheck::Kind::Bytes, {}};
  trial.outputs = {{"keys", keys_.data(), keys_.bytes(), expected_keys_.data(), exact}};
  if (shape_.pairs)
    trial.outputs.push_back({info_of(variant).stable
                                 ? "values (input positions, in the stable order)"
                                 : "values (each a function of its key)",
                             values_.data(), values_.bytes(), expected_values_.data(), exact});
  return trial;
}

}  // namespace course::lesson11
