// The ceilings: CUB, cuBLAS and the copy engines, measured in this process. All of CUB's and
// cuBLAS's compile time is spent here, once, rather than in every lesson.
#include "course/ceilings.hpp"

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>

#include "course/buffer.hpp"
#include "course/data.hpp"
#include "course/error.hpp"
#include "course/gpu.hpp"
#include "course/stream.hpp"

namespace course::ceilings {

namespace {

constexpr std::uint64_t kCeilingSeed = 20261122;

// The GPU's UUID, so that a ceiling measured on one GPU is never read on another.
std::string gpu_uuid() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  std::string text;
  char hex[3];
  for (char byte : properties.uuid.bytes) {
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(byte));
    text += hex;
  }
  return text;
}

// A run's ceilings are shared by the processes of one CTest run: $COURSE_CEILINGS_DIR names a
// directory that a fixture of that run emptied first (cmake/CourseLesson.cmake), so a ceiling is
// measured once per run and never reused across runs or GPUs. The first process that needs it
// measures it under a lock while the others wait; a process run alone (no variable) measures
// its own. The file holds the GPU's UUID, the figure and its timing.
class RunCache {
 public:
  RunCache(const std::string& dir, const std::string& key) {
    std::string name;
    for (char c : key)
      name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    path_ = dir + "/" + name + ".ceiling";
    ::mkdir(dir.c_str(), 0755);  // the fixture removed it; the first process makes it again
    lock_ = ::open((path_ + ".lock").c_str(), O_CREAT | O_RDWR, 0644);
    if (lock_ >= 0)
      ::flock(lock_, LOCK_EX);
  }
  ~RunCache() {
    if (lock_ >= 0)
      ::close(lock_);  // closing releases the lock
  }
  RunCache(const RunCache&) = delete;
  RunCache& operator=(const RunCache&) = delete;

  std::optional<Ceiling> read(const std::string& uuid) const {
    std::ifstream in(path_);
    std::string stored_uuid;
    Ceiling c;
    if (!(in >> stored_uuid) || stored_uuid != uuid)
      return std::nullopt;
    in >> c.value >> c.timing.median_ms >> c.timing.min_ms >> c.timing.max_ms >> c.timing.repeats;
    in.ignore();
    std::getline(in, c.name);
    std::getline(in, c.unit);
    std::getline(in, c.what);
    if (!in)
      return std::nullopt;
    return c;
  }

  /// The file's name in the run's directory.
  [[nodiscard]] std::string file_name() const { return path_.substr(path_.rfind('/') + 1); }

  void write(const std::string& uuid, const Ceiling& c) const {
    std::ofstream out(path_);
    out.precision(17);
    out << uuid << ' ' << c.value << ' ' << c.timing.median_ms << ' ' << c.timing.min_ms << ' '
        << c.timing.max_ms << ' ' << c.timing.repeats << '\n'
        << c.name << '\n'
        << c.unit << '\n'
        << c.what << '\n';
  }

 private:
  std::string path_;
  int lock_ = -1;
};

// Memoizes ceilings by key, so each is measured once per process, and once per CTest run where
// the run shares them.
template <class Measure>
const Ceiling& cached(const std::string& key, Measure&& measurement) {
  // Whatever ran before (a launcher's stray work included) is finished before a ceiling is
  // measured, so that it cannot make the ceiling lower.
  auto measure = [&] {
    CUDA_CHECK(cudaDeviceSynchronize());
    return measurement();
  };
  static std::map<std::string, Ceiling> cache;
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(key); it != cache.end())
    return it->second;
  Ceiling ceiling;
  const char* dir = std::getenv("COURSE_CEILINGS_DIR");
  if (dir != nullptr && *dir != '\0') {
    const std::string uuid = gpu_uuid();
    RunCache run(dir, key);
    if (auto stored = run.read(uuid)) {
      ceiling = std::move(*stored);
      ceiling.what += " (measured earlier in this CTest run)";
    } else {
      ceiling = measure();
      run.write(uuid, ceiling);
    }
    // What this process grades against, for the row runner to compare with the run's own copy
    // (cmake/course_run_rows.sh): a figure the process changed fails the row as tampered.
    std::ostringstream used;
    used.precision(17);
    used << "[course] ceiling-used " << run.file_name() << ' ' << ceiling.value << '\n';
    std::fputs(used.str().c_str(), stdout);
    std::fflush(stdout);
  } else {
    ceiling = measure();
  }
  announce(ceiling);
  return cache.emplace(key, std::move(ceiling)).first->second;
}

std::string count_text(std::size_t n) {
  for (int p = 10; p < 40; ++p)
    if (n == (std::size_t{1} << p))
      return "2^" + std::to_string(p);
  return std::to_string(n);
}

DeviceBuffer<float> random_floats(std::size_t n) {
  return DeviceBuffer<float>(std::span<const float>(uniform_floats(n, kCeilingSeed, -1.f, 1.f)));
}

class Cublas {
 public:
  Cublas() {
    if (cublasCreate(&handle_) != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error("cublasCreate failed");
    // FP32 arithmetic on the CUDA cores: no TF32 tensor-core shortcut, so the comparison with the
    // lessons' FP32 kernels is fair.
    cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH);
  }
  ~Cublas() { cublasDestroy(handle_); }
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_{};
};

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS call failed: ") + what + " (status " +
                             std::to_string(static_cast<int>(status)) + ")");
}

cublasHandle_t cublas() {
  static Cublas handle;
  return handle.get();
}

Ceiling gemm_ceiling(std::string name, int m, int n, int k, bool aat, bool syrk) {
  // Row-major A (m x k) is column-major A^T; the products below are written for cuBLAS's
  // column-major view and move the same bytes and FLOPs.
  auto a = random_floats(static_cast<std::size_t>(m) * k);
  auto b = random_floats(aat ? 1 : static_cast<std::size_t>(k) * n);
  DeviceBuffer<float> c(static_cast<std::size_t>(m) * n);
  const float alpha = 1.0f, beta = 0.0f;
  auto work = [&](cudaStream_t stream) {
    check(cublasSetStream(cublas(), stream), "cublasSetStream");
    if (syrk) {
      check(cublasSsyrk(cublas(), CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, n, k, &alpha, a.data(), k,
                        &beta, c.data(), n),
            "cublasSsyrk");
    } else if (aat) {
      check(cublasSgemm(cublas(), CUBLAS_OP_T, CUBLAS_OP_N, m, m, k, &alpha, a.data(), k, a.data(),
                        k, &beta, c.data(), m),
            "cublasSgemm (A A^T)");
    } else {
      check(cublasSgemm(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b.data(), n, a.data(),
                        k, &beta, c.data(), n),
            "cublasSgemm");
    }
  };
  const Timing t = time_on_gpu(work, {.warmup = 2, .repeats = 10, .flush_l2 = false});
  const double flops = 2.0 * m * static_cast<double>(n) * k;
  return {std::move(name), gflop_per_s(flops, t.median_ms), "GFLOP/s",
          std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
              ", FP32 without tensor cores, counted as 2mnk",
          t};
}

// The tensor-core products, in lesson 12's layout: A row-major m x k, B column-major k x n (both
// read along k, cuBLAS's "TN" case), C row-major m x n in FP32. In cuBLAS's column-major view
// C^T = B^T A^T: B, stored n rows of k, is the first factor transposed, A the second as it is.
__global__ void to_bf16_kernel(const float* in, __nv_bfloat16* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16(in[i]);
}

DeviceBuffer<__nv_bfloat16> random_bf16(std::size_t n) {
  const auto floats = random_floats(n);
  DeviceBuffer<__nv_bfloat16> out(n);
  to_bf16_kernel<<<1024, 256>>>(floats.data(), out.data(), n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  return out;
}

Ceiling tensor_gemm_ceiling(std::string name, int m, int n, int k, bool bf16) {
  DeviceBuffer<__nv_bfloat16> a16, b16;
  DeviceBuffer<float> a32, b32;
  if (bf16) {
    a16 = random_bf16(static_cast<std::size_t>(m) * k);
    b16 = random_bf16(static_cast<std::size_t>(k) * n);
  } else {
    a32 = random_floats(static_cast<std::size_t>(m) * k);
    b32 = random_floats(static_cast<std::size_t>(k) * n);
  }
  DeviceBuffer<float> c(static_cast<std::size_t>(m) * n);
  const float alpha = 1.0f, beta = 0.0f;
  const cudaDataType_t in_type = bf16 ? CUDA_R_16BF : CUDA_R_32F;
  const void* a = bf16 ? static_cast<const void*>(a16.data()) : a32.data();
  const void* b = bf16 ? static_cast<const void*>(b16.data()) : b32.data();
  // FP32 accumulation either way; TF32 rounds FP32 inputs to 10 significant bits first.
  const cublasComputeType_t compute = bf16 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_FAST_TF32;
  auto work = [&](cudaStream_t stream) {
    check(cublasSetStream(cublas(), stream), "cublasSetStream");
    check(cublasGemmEx(cublas(), CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, b, in_type, k, a,
                       in_type, k, &beta, c.data(), CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  };
  const Timing t = time_on_gpu(work, {.warmup = 3, .repeats = 15, .flush_l2 = false});
  const double flops = 2.0 * m * static_cast<double>(n) * k;
  return {std::move(name), gflop_per_s(flops, t.median_ms), "GFLOP/s",
          std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + ", " +
              (bf16 ? "BF16" : "FP32 rounded to TF32") +
              " inputs, FP32 accumulate, tensor cores, counted as 2mnk",
          t};
}

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
  const Timing t = time_on_gpu(work, {.warmup = 2, .repeats = 10, .flush_l2 = false});
  return {std::move(name), gb_per_s(static_cast<double>(bytes), t.median_ms), "GB/s",
          std::to_string(bytes >> 20) + " MiB, pinned", t};
}

Ceiling pinned_both_ways(std::size_t bytes) {
  HostBuffer<unsigned char> up(bytes, HostMemory::Pinned), down(bytes, HostMemory::Pinned);
  std::fill(up.begin(), up.end(), static_cast<unsigned char>(0x5A));
  DeviceBuffer<unsigned char> to(bytes), from(bytes);
  from.fill_bytes(0x3C);
  Stream other;
  Event started, done;
  auto work = [&](cudaStream_t stream) {
    started.record(stream);
    other.wait(started.get());
    CUDA_CHECK(cudaMemcpyAsync(to.data(), up.data(), bytes, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(
        cudaMemcpyAsync(down.data(), from.data(), bytes, cudaMemcpyDeviceToHost, other.get()));
    done.record(other.get());
    CUDA_CHECK(cudaStreamWaitEvent(stream, done.get(), 0));
  };
  const Timing t = time_on_gpu(work, {.warmup = 2, .repeats = 10, .flush_l2 = false});
  return {"pinned both ways", gb_per_s(2.0 * static_cast<double>(bytes), t.median_ms), "GB/s",
          std::to_string(bytes >> 20) + " MiB each way at once, bytes of both directions", t};
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
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, fma_peak_kernel,
                                                           kThreads, 0));
  const int blocks = sms * std::max(blocks_per_sm, 1);
  constexpr int kIterations = 1 << 16;
  DeviceBuffer<float> sink(static_cast<std::size_t>(blocks) * kThreads);
  auto work = [&](cudaStream_t stream) {
    fma_peak_kernel<<<blocks, kThreads, 0, stream>>>(sink.data(), kIterations, 0.999f, 0.001f);
    CUDA_CHECK(cudaGetLastError());
  };
  const Timing t = time_on_gpu(work, {.warmup = 3, .repeats = 15, .flush_l2 = false});
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

const Ceiling& cublas_sgemm(int m, int n, int k) {
  return cached("sgemm " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
                [=] { return gemm_ceiling("cuBLAS SGEMM", m, n, k, false, false); });
}

const Ceiling& cublas_sgemm_aat(int n, int k) {
  return cached("sgemm aat " + std::to_string(n) + "x" + std::to_string(k),
                [=] { return gemm_ceiling("cuBLAS SGEMM A*A^T", n, n, k, true, false); });
}

const Ceiling& cublas_ssyrk(int n, int k) {
  return cached("ssyrk " + std::to_string(n) + "x" + std::to_string(k),
                [=] { return gemm_ceiling("cuBLAS SSYRK", n, n, k, true, true); });
}

const Ceiling& cublas_gemm_bf16(int m, int n, int k) {
  return cached(
      "gemm bf16 " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
      [=] { return tensor_gemm_ceiling("cuBLAS BF16", m, n, k, true); });
}

const Ceiling& cublas_gemm_tf32(int m, int n, int k) {
  return cached(
      "gemm tf32 " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k),
      [=] { return tensor_gemm_ceiling("cuBLAS TF32", m, n, k, false); });
}

const Ceiling& bf16_tensor_peak() {
  return cached("bf16 tensor peak", [] {
    Ceiling roof = tensor_gemm_ceiling("BF16 tensor-core roof", 8192, 8192, 8192, true);
    roof.what =
        "cuBLAS BF16 at 8192x8192x8192, the fastest product measured on the tensor "
        "cores; " +
        roof.what;
    return roof;
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
