/// @file
/// @brief Lesson 07, 2D convolution: the interface shared by skeleton, solution, tests and demo.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "course/variants.hpp"

namespace course::lesson07 {

/// The rungs of the ladder, in teaching order.
enum class Variant {
  Basic,            ///< given: one thread per output, the filter read from global memory
  ConstantFilter,   ///< exercise: the same kernel with the filter in `__constant__` memory
  TiledHalo,        ///< exercise: an input tile and its halo in shared memory, threads = input tile
  TiledCachedHalo,  ///< exercise: tile = output tile in shared memory, halo read through the caches
  Separable,        ///< stretch: a row pass then a column pass, for separable filters
  RegisterCoarsened,  ///< stretch: a column of outputs per thread, filter rows slid through
                      ///< registers
};

/// A rung's name and kind, for tables, tests and docs.
using VariantInfo = RungInfo<Variant>;

/// All rungs, in teaching order.
inline constexpr std::array<VariantInfo, 6> kVariants{{
    {Variant::Basic, "basic", "given"},
    {Variant::ConstantFilter, "constant_filter", "exercise"},
    {Variant::TiledHalo, "tiled_halo", "exercise"},
    {Variant::TiledCachedHalo, "tiled_cached_halo", "exercise"},
    {Variant::Separable, "separable", "stretch"},
    {Variant::RegisterCoarsened, "register_coarsened", "stretch"},
}};

/// The name of @p variant.
[[nodiscard]] constexpr std::string_view name_of(Variant variant) {
  return name_in(kVariants, variant);
}

/// The largest filter radius a launch accepts (PMPP's bound: a 15 x 15 filter).
inline constexpr int kMaxRadius = 7;
/// The most weights a filter has: (2 kMaxRadius + 1)^2.
inline constexpr int kMaxTaps = (2 * kMaxRadius + 1) * (2 * kMaxRadius + 1);
/// The largest width or height a launch accepts: 65535 blocks of 8 rows along the grid's y
/// dimension.
inline constexpr int kMaxExtent = 65535 * 8;
/// The most pixels (width * height) a launch accepts: 2^30, 4 GiB a buffer. Every pixel's
/// index, and every index a window reaches inside the image, then fits in a 32-bit int, so a
/// kernel that indexes with int is right at every size a launch accepts.
inline constexpr std::size_t kMaxPixels = std::size_t{1} << 30;

/// A square filter of (2 radius + 1)^2 weights, held on the host. The launchers upload it to the
/// GPU as each rung needs. Make one with make_filter(), make_separable_filter(),
/// make_box_filter() or make_gaussian_filter().
struct Filter {
  /// r: the filter reaches r pixels in each direction, 1 <= r <= kMaxRadius.
  int radius = 0;
  /// (2r + 1)^2 weights, row-major: weights[(dy + r) * (2r + 1) + (dx + r)] multiplies the input
  /// pixel dy rows below and dx columns right of the output pixel.
  std::vector<float> weights;
  /// For a separable filter, 2r + 1 weights down the column (dy); empty otherwise.
  std::vector<float> column;
  /// For a separable filter, 2r + 1 weights along the row (dx); empty otherwise.
  std::vector<float> row;
  /// The side of the filter, 2r + 1.
  [[nodiscard]] int size() const noexcept { return 2 * radius + 1; }
  /// True when the filter carries the column and row vectors whose outer product its weights are.
  [[nodiscard]] bool separable() const noexcept { return !column.empty() && !row.empty(); }
};

/// "radius must be in [1, 7]": the message every radius check gives.
inline std::string radius_range_message(const char* who) {
  return std::string(who) + ": radius must be in [1, " + std::to_string(kMaxRadius) + "]";
}

/// A filter with the given weights.
/// @param[in] radius  r, 1 <= r <= kMaxRadius
/// @param[in] weights (2r + 1)^2 weights, row-major (see Filter::weights), host memory
/// @throws std::invalid_argument for a radius out of range or the wrong number of weights.
[[nodiscard]] inline Filter make_filter(int radius, std::vector<float> weights) {
  if (radius < 1 || radius > kMaxRadius)
    throw std::invalid_argument(radius_range_message("make_filter"));
  const std::size_t side = 2 * static_cast<std::size_t>(radius) + 1;
  if (weights.size() != side * side)
    throw std::invalid_argument("make_filter: a filter of radius r needs (2r + 1)^2 weights");
  return Filter{radius, std::move(weights), {}, {}};
}

/// The separable filter weights[i][j] = column[i] * row[j] (rounded to float), which also keeps
/// both vectors for the Separable rung.
/// @param[in] column 2r + 1 weights down the column, host memory
/// @param[in] row    2r + 1 weights along the row, host memory
/// @throws std::invalid_argument when the vectors differ in length or are not 2r + 1 long for
///         some 1 <= r <= kMaxRadius.
[[nodiscard]] inline Filter make_separable_filter(std::vector<float> column,
                                                  std::vector<float> row) {
  const int side = static_cast<int>(row.size());
  if (column.size() != row.size() || side % 2 == 0 || side < 3 || side > 2 * kMaxRadius + 1)
    throw std::invalid_argument(
        "make_separable_filter: column and row need the same odd length 2r + 1, radius r in [1, " +
        std::to_string(kMaxRadius) + "]");
  std::vector<float> weights(static_cast<std::size_t>(side) * side);
  for (int i = 0; i < side; ++i)
    for (int j = 0; j < side; ++j)
      weights[static_cast<std::size_t>(i) * side + j] = column[i] * row[j];
  return Filter{side / 2, std::move(weights), std::move(column), std::move(row)};
}

/// The box filter of radius @p radius: every weight 1 / (2r + 1)^2 (separable).
/// @throws std::invalid_argument for a radius out of [1, kMaxRadius].
[[nodiscard]] inline Filter make_box_filter(int radius) {
  if (radius < 1 || radius > kMaxRadius)
    throw std::invalid_argument(radius_range_message("make_box_filter"));
  const std::vector<float> line(2 * radius + 1, 1.0f / static_cast<float>(2 * radius + 1));
  return make_separable_filter(line, line);
}

/// The Gaussian filter of radius @p radius, standard deviation r / 2 (r = 1: 0.75), normalised
/// to sum 1 along each axis (separable).
/// @throws std::invalid_argument for a radius out of [1, kMaxRadius].
[[nodiscard]] inline Filter make_gaussian_filter(int radius) {
  if (radius < 1 || radius > kMaxRadius)
    throw std::invalid_argument(radius_range_message("make_gaussian_filter"));
  const double sigma = radius == 1 ? 0.75 : radius / 2.0;
  std::vector<double> g(2 * radius + 1);
  double sum = 0.0;
  for (int d = -radius; d <= radius; ++d)
    sum += g[d + radius] = std::exp(-0.5 * d * d / (sigma * sigma));
  std::vector<float> line(g.size());
  for (std::size_t i = 0; i < g.size(); ++i)
    line[i] = static_cast<float>(g[i] / sum);
  return make_separable_filter(line, line);
}

/// Convolves a width x height row-major image with @p filter, PMPP's way (a correlation; the
/// same thing for the symmetric filters of image processing):
/// out[y][x] = sum over dy, dx in [-r, r] of weights[dy + r][dx + r] * in[y + dy][x + dx],
/// where pixels outside the image (ghost cells) count as 0.
///
/// The launcher uploads the filter's weights before the kernel, in stream order: to a
/// `__device__` array for Basic, to `__constant__` memory for the other rungs. Calls on one
/// stream may therefore use different filters; concurrent calls on different streams with
/// different filters may not.
///
/// @param[in]  variant the rung to run
/// @param[in]  d_in    device memory, width * height floats
/// @param[out] d_out   device memory, width * height floats, not overlapping d_in
/// @param[in]  width   columns, 0 <= width <= kMaxExtent
/// @param[in]  height  rows, 0 <= height <= kMaxExtent, and width * height <= kMaxPixels
/// @param[in]  filter  the filter, host memory; the Separable rung needs filter.separable()
/// @param[in]  stream  the stream to launch on (asynchronous)
/// @pre An empty image (width or height 0) is a no-op that never touches the GPU, once the
///      filter has been checked.
/// @throws std::invalid_argument for a radius out of [1, kMaxRadius], weights that do not match
///         the radius, a non-separable filter given to Separable, a negative or too large
///         extent, more than kMaxPixels pixels, a null pointer or overlapping buffers;
///         course::NotImplemented for a rung the skeleton has not written yet;
///         course::CudaError if the launch fails.
void convolve(Variant variant, const float* d_in, float* d_out, int width, int height,
              const Filter& filter, cudaStream_t stream = {});

}  // namespace course::lesson07
