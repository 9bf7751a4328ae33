/// @file
/// @brief Lesson 00, the debugging lab: the interface shared by skeleton, solution, tests and demo.
///
/// Four small tasks on an array of floats, one kernel each. In the skeleton every kernel is
/// written, compiles and runs, and each holds one bug of a kind that the course's tests and
/// tools are built to catch: a race, a read past the end, a missing barrier and a read of shared
/// memory that nothing wrote.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "course/variants.hpp"

namespace course::lesson00 {

/// The rungs of the lab, in the order the README takes them.
enum class Variant {
  Count,       ///< exercise: count the positive elements (the skeleton's bug: a race)
  Downsample,  ///< exercise: the mean of each pair of elements (a read past the end)
  Reverse,     ///< exercise: the array reversed through a shared tile (a missing barrier)
  Smooth,      ///< exercise: a 3-point moving average with a halo (shared memory never written)
};

/// A rung's name and kind, for tables, tests and docs.
using VariantInfo = RungInfo<Variant>;

/// All rungs, in the README's order.
inline constexpr std::array<VariantInfo, 4> kVariants{{
    {Variant::Count, "count", "exercise"},
    {Variant::Downsample, "downsample", "exercise"},
    {Variant::Reverse, "reverse", "exercise"},
    {Variant::Smooth, "smooth", "exercise"},
}};

/// The name of @p variant.
[[nodiscard]] constexpr std::string_view name_of(Variant variant) {
  return name_in(kVariants, variant);
}

/// The longest array a call accepts: 2^28 floats (1 GiB). Below it every index a kernel
/// computes (twice an output index, an element one block past the end) fits in an int.
inline constexpr std::size_t kMaxLength = std::size_t{1} << 28;

/// One third, as smooth() multiplies by it: the kernel and the CPU reference both compute
/// (left + center + right) * kThird in float, in that order, so their results are bit-identical.
inline constexpr float kThird = 1.0f / 3.0f;

/// The number of outputs downsample() writes for @p n inputs: (n + 1) / 2.
[[nodiscard]] constexpr std::size_t downsampled_length(std::size_t n) {
  return (n + 1) / 2;
}

/// Counts the elements of d_in[0, n) that are greater than zero and writes the count to
/// *d_count (rung `count`). For n = 0 the count is 0.
///
/// @param[in]  d_in    device memory, n floats; may be null when n = 0
/// @param[out] d_count device memory, one int, not inside d_in
/// @param[in]  n       elements, 0 <= n <= kMaxLength
/// @param[in]  stream  the stream to work on (asynchronous)
/// @throws std::invalid_argument for n > kMaxLength, a null pointer, or d_count inside d_in;
///         course::CudaError if a launch fails.
void count_positive(const float* d_in, std::int32_t* d_count, std::size_t n,
                    cudaStream_t stream = {});

/// Halves the length of d_in[0, n) (rung `downsample`): d_out[j] = (d_in[2j] + d_in[2j + 1]) / 2,
/// computed as 0.5f * (d_in[2j] + d_in[2j + 1]), for each whole pair; when n is odd the last
/// element has no partner and is its own mean: d_out[(n - 1) / 2] = d_in[n - 1].
///
/// @param[in]  d_in    device memory, n floats
/// @param[out] d_out   device memory, downsampled_length(n) floats, not overlapping d_in
/// @param[in]  n       elements, 0 <= n <= kMaxLength
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @pre n = 0 is a no-op that never touches the GPU (the pointers may then be null).
/// @throws std::invalid_argument for n > kMaxLength, a null pointer or overlapping buffers;
///         course::CudaError if the launch fails.
void downsample(const float* d_in, float* d_out, std::size_t n, cudaStream_t stream = {});

/// Reverses d_in[0, n) into d_out (rung `reverse`): d_out[i] = d_in[n - 1 - i].
///
/// @param[in]  d_in    device memory, n floats
/// @param[out] d_out   device memory, n floats, not overlapping d_in
/// @param[in]  n       elements, 0 <= n <= kMaxLength
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @pre n = 0 is a no-op that never touches the GPU (the pointers may then be null).
/// @throws std::invalid_argument for n > kMaxLength, a null pointer or overlapping buffers;
///         course::CudaError if the launch fails.
void reverse(const float* d_in, float* d_out, std::size_t n, cudaStream_t stream = {});

/// A 3-point moving average of d_in[0, n) (rung `smooth`):
/// d_out[i] = (d_in[i - 1] + d_in[i] + d_in[i + 1]) * kThird, with d_in[-1] = d_in[n] = 0.
///
/// @param[in]  d_in    device memory, n floats
/// @param[out] d_out   device memory, n floats, not overlapping d_in
/// @param[in]  n       elements, 0 <= n <= kMaxLength
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @pre n = 0 is a no-op that never touches the GPU (the pointers may then be null).
/// @throws std::invalid_argument for n > kMaxLength, a null pointer or overlapping buffers;
///         course::CudaError if the launch fails.
void smooth(const float* d_in, float* d_out, std::size_t n, cudaStream_t stream = {});

}  // namespace course::lesson00
