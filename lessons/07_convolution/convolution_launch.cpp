// Lesson 07: checks the arguments once, then hands the call to the rung's launcher.
#include <string>

#include "convolution.cuh"
#include "convolution_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson07 {

namespace {

// A filter every rung can rely on: radius in range, weights (and vectors) of the right size.
void check_filter(const Filter& filter) {
  require(filter.radius >= 1 && filter.radius <= kMaxRadius, radius_range_message("convolve"));
  const std::size_t side = static_cast<std::size_t>(filter.size());
  require(filter.weights.size() == side * side,
          "convolve: a filter of radius r needs (2r + 1)^2 weights (use make_filter)");
  require(filter.column.empty() == filter.row.empty(),
          "convolve: a separable filter needs both its column and its row vector");
  require(filter.row.empty() || (filter.row.size() == side && filter.column.size() == side),
          "convolve: a separable filter's vectors need 2r + 1 weights each");
}

}  // namespace

void convolve(Variant variant, const float* d_in, float* d_out, int width, int height,
              const Filter& filter, cudaStream_t stream) {
  check_filter(filter);
  if (variant == Variant::Separable)
    require(filter.separable(),
            "convolve: the separable rung needs a separable filter (make_separable_filter, "
            "make_box_filter or make_gaussian_filter)");
  const std::string range = "0 <= width, height <= " + std::to_string(kMaxExtent);
  require(width >= 0 && height >= 0,
          "convolve: width and height must be non-negative (" + range + ")");
  require(width <= kMaxExtent && height <= kMaxExtent, "convolve: image too large (" + range + ")");
  const std::size_t count = static_cast<std::size_t>(width) * height;
  require(count <= kMaxPixels,
          "convolve: image too large (width * height <= 2^30 pixels, so that every pixel's index "
          "fits in 32 bits)");
  if (width == 0 || height == 0)
    return;
  require(d_in != nullptr && d_out != nullptr, "convolve: d_in and d_out must be device pointers");
  require(d_in + count <= d_out || d_out + count <= d_in,
          "convolve: d_in and d_out overlap; the convolution is out of place");
  switch (variant) {
    case Variant::Basic:
      return launch_basic(d_in, d_out, width, height, filter, stream);
    case Variant::ConstantFilter:
      return launch_constant_filter(d_in, d_out, width, height, filter, stream);
    case Variant::TiledHalo:
      return launch_tiled_halo(d_in, d_out, width, height, filter, stream);
    case Variant::TiledCachedHalo:
      return launch_tiled_cached_halo(d_in, d_out, width, height, filter, stream);
    case Variant::Separable:
      return launch_separable(d_in, d_out, width, height, filter, stream);
    case Variant::RegisterCoarsened:
      return launch_register_coarsened(d_in, d_out, width, height, filter, stream);
  }
  throw std::invalid_argument("convolve: unknown variant");
}

}  // namespace course::lesson07
