// The ceilings: CUB and the copy engines, and the FP32 roof, measured in this process (cuBLAS's:
// ceilings_blas.cu). All of CUB's compile time is spent here, once, rather than in every lesson.
#include "course/ceilings.hpp"

#include <algorithm>
#include <cstdio>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <string>

#include "ceilings_cache.hpp"
#include "course/buffer.hpp"
#include "course/data.hpp"
#include "course/error.hpp"
#include "course/gpu.hpp"
#include "course/stream.hpp"

namespace course::ceilings {

namespace {

using detail::cached;
using detail::count_text;
using detail::kCeilingSeed;
using detail::random_floats;

Ceiling pinned_copy(std::string name, std::size_t bytes, bool to_device) {
  HostBuffer<unsigned char> host(bytes, HostMemory::Pinned);
  std::fill(host.begin(), host.end(), static_cast<unsigned char>(0x5A));
  DeviceBuffer<unsigned char> device(bytes);
  auto work = [&](cudaStream_t stream) {
    if (to_device) {
      CUDA_CHECK(
          cudaMemcpyAsync(device.data(), host.data(), bytes, cudaMemcpyHostToDevice, stream));
    } else {
      CUDA_CHECK(
          cudaMemcpyAsync(host.data(), device.data(), bytes, cudaMemcpyDeviceToHost, stream));
    }
  };
  const Timing t = time_on_gpu(work, {.warmup = 2, .repeats = 10, .flush_l2 = true});
  return {std::move(name), gb_per_s(static_cast<double>(bytes), t.median_ms), "GB/s",
          std::to_string(bytes >> 20) + " MiB, pinned", t};
}

// Copies in both directions at once, the most a trip can move over the bus: one copy each way,
// and the same bytes in 4 and in 16 chunks each way (as an overlapped trip moves them), the
// uploads on one stream and the downloads on another; the fastest of the three medians. One pair
// of copies alone is not enough: in one process on an H100 it read 70 GB/s while the streams
// trip moved 86.5, and a ceiling below the trip it measures fails a correct trip's plausibility
// bound.
Ceiling pinned_both_ways(std::size_t bytes) {
  HostBuffer<unsigned char> up(bytes, HostMemory::Pinned), down(bytes, HostMemory::Pinned);
  std::fill(up.begin(), up.end(), static_cast<unsigned char>(0x5A));
  DeviceBuffer<unsigned char> to(bytes), from(bytes);
  from.fill_bytes(0x3C);
  Stream other;
  Event started, done;
  auto both_ways = [&](std::size_t chunks) {
    auto work = [&](cudaStream_t stream) {
      started.record(stream);
      other.wait(started.get());
      for (std::size_t i = 0; i < chunks; ++i) {
        const std::size_t first = bytes * i / chunks, size = bytes * (i + 1) / chunks - first;
        CUDA_CHECK(cudaMemcpyAsync(to.data() + first, up.data() + first, size,
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaMemcpyAsync(down.data() + first, from.data() + first, size,
                                   cudaMemcpyDeviceToHost, other.get()));
      }
      done.record(other.get());
      CUDA_CHECK(cudaStreamWaitEvent(stream, done.get(), 0));
    };
    return time_on_gpu(work, {.warmup = 2, .repeats = 15, .flush_l2 = true});
  };
  std::size_t best_chunks = 0;
  Timing best{};
  for (const std::size_t chunks : {1, 4, 16}) {
    const Timing t = both_ways(chunks);
    if (best_chunks == 0 || t.median_ms < best.median_ms) {
      best = t;
      best_chunks = chunks;
    }
  }
  return {"pinned both ways", gb_per_s(2.0 * static_cast<double>(bytes), best.median_ms), "GB/s",
          std::to_string(bytes >> 20) +
              " MiB each way at once, the fastest of 1, 4 and 16 chunks (here " +
              std::to_string(best_chunks) + "), bytes of both directions",
          best};
}

// The FP32 roof: kChains independent multiply-add chains per thread, so that a warp always has
// an FMA whose inputs are ready (the FMA's latency is about 4 cycles; 8 chains cover it twice).
// x < 1 keeps every chain finite (it converges to y / (1 - x)); the store behind a test the
// compiler cannot decide keeps the loop from being optimized away.
constexpr int kChains = 8;

__global__ void fma_peak_kernel(float* sink, int iterations, float x, float y) {
  float chain[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c)
    chain[c] = static_cast<float>(threadIdx.x + c);
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c)
      chain[c] = fmaf(chain[c], x, y);
  }
  float sum = 0.f;
#pragma unroll
  for (int c = 0; c < kChains; ++c)
    sum += chain[c];
  if (sum == -1.f)  // never: every chain is positive
    sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

Ceiling fma_peak() {
  const int sms = gpu_info().sm_count;
  constexpr int kThreads = 256;
  int blocks_per_sm = 0;
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, fma_peak_kernel, kThreads, 0));
  const int blocks = sms * std::max(blocks_per_sm, 1);
  constexpr int kIterations = 1 << 16;
  DeviceBuffer<float> sink(static_cast<std::size_t>(blocks) * kThreads);
  auto work = [&](cudaStream_t stream) {
    fma_peak_kernel<<<blocks, kThreads, 0, stream>>>(sink.data(), kIterations, 0.999f, 0.001f);
    CUDA_CHECK(cudaGetLastError());
  };
  const Timing t = time_on_gpu(work, {.warmup = 3, .repeats = 15, .flush_l2 = true});
  const double flops = 2.0 * kChains * kIterations * static_cast<double>(blocks) * kThreads;
  return {"FP32 FMA peak", gflop_per_s(flops, t.median_ms), "GFLOP/s",
          "independent fmaf chains in registers, " + std::to_string(blocks) + " blocks of " +
              std::to_string(kThreads) + " threads, a multiply-add counted as 2 FLOP",
          t};
}

}  // namespace

namespace {
std::FILE* announce_stream = nullptr;  // nullptr: standard output
}  // namespace

void set_announce_stream(std::FILE* stream) {
  announce_stream = stream;
}

void announce(const Ceiling& ceiling) {
  std::FILE* out = announce_stream != nullptr ? announce_stream : stdout;
  std::fprintf(out, "[course] ceiling: %s = %.1f %s (%s)\n", ceiling.name.c_str(), ceiling.value,
               ceiling.unit.c_str(), ceiling.what.c_str());
  std::fflush(out);
}

const Ceiling& device_copy() {
  return cached("device copy", [] {
    const std::size_t bytes =
        std::min<std::size_t>(std::size_t{1} << 30, gpu_info().memory_bytes / 4);
    DeviceBuffer<unsigned char> source(bytes), target(bytes);
    source.fill_bytes(0x5A);
    auto work = [&](cudaStream_t stream) {
      CUDA_CHECK(
          cudaMemcpyAsync(target.data(), source.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    };
    const Timing t = time_on_gpu(work, {.warmup = 3, .repeats = 15, .flush_l2 = true});
    return Ceiling{"device copy", gb_per_s(2.0 * static_cast<double>(bytes), t.median_ms), "GB/s",
                   "cudaMemcpyAsync device to device, " + std::to_string(bytes >> 20) +
                       " MiB, bytes read + written",
                   t};
  });
}

const Ceiling& fp32_fma_peak() {
  return cached("fp32 fma peak", [] { return fma_peak(); });
}

const Ceiling& cub_reduce_sum(std::size_t n) {
  return cached("reduce " + std::to_string(n), [n] {
    auto in = random_floats(n);
    DeviceBuffer<float> out(1);
    std::size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in.data(), out.data(), n));
    DeviceBuffer<unsigned char> temp(temp_bytes);
    auto work = [&](cudaStream_t stream) {
      CUDA_CHECK(cub::DeviceReduce::Sum(temp.data(), temp_bytes, in.data(), out.data(), n, stream));
    };
    const Timing t = time_on_gpu(work);
    return Ceiling{"CUB reduce", gb_per_s(4.0 * static_cast<double>(n), t.median_ms), "GB/s",
                   "DeviceReduce::Sum, " + count_text(n) + " floats, bytes read", t};
  });
}

const Ceiling& cub_inclusive_sum(std::size_t n) {
  return cached("scan " + std::to_string(n), [n] {
    auto in = random_floats(n);
    DeviceBuffer<float> out(n);
    std::size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in.data(), out.data(), n));
    DeviceBuffer<unsigned char> temp(temp_bytes);
    auto work = [&](cudaStream_t stream) {
      CUDA_CHECK(
          cub::DeviceScan::InclusiveSum(temp.data(), temp_bytes, in.data(), out.data(), n, stream));
    };
    const Timing t = time_on_gpu(work);
    return Ceiling{"CUB scan", gb_per_s(8.0 * static_cast<double>(n), t.median_ms), "GB/s",
                   "DeviceScan::InclusiveSum, " + count_text(n) + " floats, bytes read + written",
                   t};
  });
}

Ceiling cub_histogram_even(const unsigned char* d_bytes, std::size_t n, int bins, int lower,
                           int upper) {
  DeviceBuffer<int> histogram(static_cast<std::size_t>(bins));
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, d_bytes, histogram.data(),
                                                 bins + 1, lower, upper, static_cast<int64_t>(n)));
  DeviceBuffer<unsigned char> temp(temp_bytes);
  auto work = [&](cudaStream_t stream) {
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp.data(), temp_bytes, d_bytes,
                                                   histogram.data(), bins + 1, lower, upper,
                                                   static_cast<int64_t>(n), stream));
  };
  const Timing t = time_on_gpu(work);
  Ceiling ceiling{"CUB histogram", gb_per_s(static_cast<double>(n), t.median_ms), "GB/s",
                  "DeviceHistogram::HistogramEven, " + std::to_string(bins) + " bins, " +
                      count_text(n) + " bytes read",
                  t};
  announce(ceiling);
  return ceiling;
}

const Ceiling& cub_radix_sort_keys(std::size_t n) {
  return cached("sort " + std::to_string(n), [n] {
    DeviceBuffer<std::uint32_t> keys(std::span<const std::uint32_t>(uniform_keys(n, kCeilingSeed)));
    DeviceBuffer<std::uint32_t> in(n), out(n);
    std::size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, in.data(), out.data(), n));
    DeviceBuffer<unsigned char> temp(temp_bytes);
    auto work = [&](cudaStream_t stream) {
      // Sorting from a fresh copy each time: the input is never already sorted.
      CUDA_CHECK(
          cudaMemcpyAsync(in.data(), keys.data(), keys.bytes(), cudaMemcpyDeviceToDevice, stream));
      CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), temp_bytes, in.data(), out.data(), n,
                                                0, 32, stream));
    };
    const Timing t = time_on_gpu(work);
    return Ceiling{"CUB radix sort", static_cast<double>(n) / (t.median_ms * 1e6), "Gkeys/s",
                   "DeviceRadixSort::SortKeys, " + count_text(n) + " uint32 keys, incl. a copy", t};
  });
}

const Ceiling& pinned_host_to_device(std::size_t bytes) {
  return cached("h2d " + std::to_string(bytes),
                [=] { return pinned_copy("pinned host to device", bytes, true); });
}

const Ceiling& pinned_bidirectional(std::size_t bytes) {
  return cached("both " + std::to_string(bytes), [=] { return pinned_both_ways(bytes); });
}

const Ceiling& pinned_device_to_host(std::size_t bytes) {
  return cached("d2h " + std::to_string(bytes),
                [=] { return pinned_copy("pinned device to host", bytes, false); });
}

}  // namespace course::ceilings
