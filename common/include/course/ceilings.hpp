/// @file
/// @brief The GPU's own limits, measured in this process: what "close to the hardware" means.
///
/// Every lesson grades its rungs as a share of one of these, measured in the same run on the
/// same GPU, so a grade means the same on a T4 as on an H200. Each is measured once per process
/// and argument set, then cached. CUB and cuBLAS ship with the CUDA toolkit, so the ceilings
/// exist on every machine that can build the course.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include "course/timer.hpp"

namespace course::ceilings {

/// A measured ceiling.
struct Ceiling {
  std::string name;   ///< e.g. "device copy"
  double value = 0;   ///< in unit
  std::string unit;   ///< e.g. "GB/s"
  std::string what;   ///< how it was measured: size, counting rule
  Timing timing;      ///< the timing behind value
};

/// Device-to-device cudaMemcpyAsync, bytes read + written per second (1 GiB, or a quarter of
/// the GPU's memory if smaller).
[[nodiscard]] const Ceiling& device_copy();

/// FP32 fused multiply-adds from registers, every SM busy: the compute roof of the lessons'
/// rooflines, in GFLOP/s (a multiply-add counts 2). Measured, not taken from a spec sheet: a
/// kernel of independent FMA chains, enough of them per warp and enough warps per SM to hide the
/// FMA's latency, so that the FP32 pipes issue every cycle they can at this GPU's clock.
[[nodiscard]] const Ceiling& fp32_fma_peak();

/// CUB DeviceReduce::Sum over @p n random floats: bytes read per second.
[[nodiscard]] const Ceiling& cub_reduce_sum(std::size_t n);

/// CUB DeviceScan::InclusiveSum over @p n random floats: bytes read + written per second.
[[nodiscard]] const Ceiling& cub_inclusive_sum(std::size_t n);

/// CUB DeviceHistogram::HistogramEven over the @p n bytes at @p d_bytes (device memory), with
/// @p bins bins evenly over [@p lower, @p upper): bytes read per second. Not cached: the input
/// is the caller's.
[[nodiscard]] Ceiling cub_histogram_even(const unsigned char* d_bytes, std::size_t n, int bins,
                                         int lower, int upper);

/// CUB DeviceRadixSort::SortKeys over @p n random uint32 keys: keys per second (in Gkeys/s).
[[nodiscard]] const Ceiling& cub_radix_sort_keys(std::size_t n);

/// cuBLAS SGEMM C = A B for A m x k, B k x n, FP32 arithmetic without tensor cores:
/// 2 m n k / t in GFLOP/s.
[[nodiscard]] const Ceiling& cublas_sgemm(int m, int n, int k);

/// cuBLAS SGEMM computing A A^T for A n x k (FP32, no tensor cores): 2 n^2 k / t in GFLOP/s.
[[nodiscard]] const Ceiling& cublas_sgemm_aat(int n, int k);

/// cuBLAS SSYRK computing A A^T (one triangle) for A n x k, counted as 2 n^2 k / t in GFLOP/s.
[[nodiscard]] const Ceiling& cublas_ssyrk(int n, int k);

/// cuBLAS cublasGemmEx C = A B on the tensor cores, BF16 inputs and FP32 accumulation, for
/// A m x k row-major and B k x n column-major (lesson 12's layout): 2 m n k / t in GFLOP/s.
[[nodiscard]] const Ceiling& cublas_gemm_bf16(int m, int n, int k);

/// The same product from FP32 inputs with TF32 tensor-core arithmetic: 2 m n k / t in GFLOP/s.
[[nodiscard]] const Ceiling& cublas_gemm_tf32(int m, int n, int k);

/// The BF16 tensor-core roof: cuBLAS BF16 at 8192^3, the largest product the course's limits
/// allow, where the GPU's matrix throughput shows with the least overhead. GFLOP/s.
[[nodiscard]] const Ceiling& bf16_tensor_peak();

/// Pinned host-to-device copy of @p bytes, GB/s.
[[nodiscard]] const Ceiling& pinned_host_to_device(std::size_t bytes);

/// Pinned device-to-host copy of @p bytes, GB/s.
[[nodiscard]] const Ceiling& pinned_device_to_host(std::size_t bytes);

/// Pinned copies of @p bytes in both directions at once, the uploads on one stream and the
/// downloads on another, as one copy each way and in 4 and 16 chunks each way: the fastest, in
/// bytes moved (both directions together) per second, GB/s. What an overlapped host-device
/// pipeline can reach.
[[nodiscard]] const Ceiling& pinned_bidirectional(std::size_t bytes);

/// Prints "[course] ceiling: <name> = <value> <unit> (<what>)": the line the grader shows at the
/// head of its report. Goes to standard output unless redirected with set_announce_stream().
void announce(const Ceiling& ceiling);

/// Where announce() writes: standard output by default; a demo printing JSON or CSV sends the
/// lines to standard error so that its standard output stays machine-readable.
void set_announce_stream(std::FILE* stream);

}  // namespace course::ceilings
