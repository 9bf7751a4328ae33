// Lesson 02: checks the arguments once, then hands the call to the rung's launcher.
#include <string>

#include "course/error.hpp"
#include "transpose.cuh"
#include "transpose_rungs.cuh"

namespace course::lesson02 {

void transpose(Variant variant, const float* d_in, float* d_out, int rows, int cols,
               cudaStream_t stream) {
  const std::string range = "0 <= rows, cols <= " + std::to_string(kMaxExtent);
  require(rows >= 0 && cols >= 0, "transpose: rows and cols must be non-negative (" + range + ")");
  require(rows <= kMaxExtent && cols <= kMaxExtent, "transpose: matrix too large (" + range + ")");
  require(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols) <= kMaxElements,
          "transpose: matrix too large (rows * cols <= 2^28 = " + std::to_string(kMaxElements) +
              " elements)");
  if (rows == 0 || cols == 0)
    return;
  require(d_in != nullptr && d_out != nullptr, "transpose: d_in and d_out must be device pointers");
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  require(d_in + count <= d_out || d_out + count <= d_in,
          "transpose: d_in and d_out overlap; the transpose is out of place");
  switch (variant) {
    case Variant::Copy:
      return launch_copy(d_in, d_out, rows, cols, stream);
    case Variant::Naive:
      return launch_naive(d_in, d_out, rows, cols, stream);
    case Variant::Tiled:
      return launch_tiled(d_in, d_out, rows, cols, stream);
    case Variant::Padded:
      return launch_padded(d_in, d_out, rows, cols, stream);
    case Variant::Coarsened:
      return launch_coarsened(d_in, d_out, rows, cols, stream);
    case Variant::Vectorized:
      return launch_vectorized(d_in, d_out, rows, cols, stream);
  }
  throw std::invalid_argument("transpose: unknown variant");
}

}  // namespace course::lesson02
