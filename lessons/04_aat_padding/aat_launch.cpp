// Lesson 04: checks the arguments once, then hands the call to the rung's launcher.
#include <string>

#include "aat.cuh"
#include "aat_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson04 {

void aat(Variant variant, const float* d_a, float* d_c, int n, int k, cudaStream_t stream) {
  const std::string range = "0 <= n <= " + std::to_string(kMaxN) + ", k >= 0, n * k <= 2^26";
  require(n >= 0 && k >= 0, "aat: n and k must be non-negative (" + range + ")");
  require(n <= kMaxN, "aat: n too large: C = A A^T has n * n elements (" + range + ")");
  require(static_cast<long long>(n) * k <= kMaxElements, "aat: A too large (" + range + ")");
  if (n == 0)
    return;
  require(d_c != nullptr, "aat: d_c must be a device pointer to n * n floats");
  require(k == 0 || d_a != nullptr, "aat: d_a must be a device pointer to n * k floats");
  const std::size_t a_count = static_cast<std::size_t>(n) * k;
  const std::size_t c_count = static_cast<std::size_t>(n) * n;
  require(k == 0 || d_a + a_count <= d_c || d_c + c_count <= d_a,
          "aat: d_a and d_c overlap; C = A A^T is computed out of place");
  // k = 0 needs no special case: every rung's loop over k runs no step, and each element is
  // written as the empty sum, 0.
  switch (variant) {
    case Variant::TiledUnpadded:
      return launch_tiled_unpadded(d_a, d_c, n, k, stream);
    case Variant::TiledPadded:
      return launch_tiled_padded(d_a, d_c, n, k, stream);
    case Variant::TransposedStore:
      return launch_transposed_store(d_a, d_c, n, k, stream);
    case Variant::Symmetric:
      return launch_symmetric(d_a, d_c, n, k, stream);
    case Variant::RegisterTiled:
      return launch_register_tiled(d_a, d_c, n, k, stream);
  }
  throw std::invalid_argument("aat: unknown variant");
}

}  // namespace course::lesson04
