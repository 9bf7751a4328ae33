// Lesson 03: checks the arguments once, then hands the call to the rung's launcher.
#include <algorithm>
#include <cstdint>
#include <string>

#include "course/error.hpp"
#include "course/indexing.hpp"
#include "course/product_check.hpp"
#include "matmul.cuh"
#include "matmul_rungs.cuh"

namespace course::lesson03 {

namespace {

// Throws for a bad call; returns true when there is work for a kernel (m, n, k > 0). An empty
// C needs nothing; k = 0 makes C the zero matrix, which is filled here for every rung.
bool prepare(const char* who, const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
             cudaStream_t stream) {
  const std::string name = who;
  if (!product::check_call(name, d_a, d_b, d_c, m, n, k, kMaxExtent, kMaxElements))
    return false;
  const long long mk = 1LL * m * k, kn = 1LL * k * n, mn = 1LL * m * n;
  require(k == 0 || (!overlap(d_c, mn, d_a, mk) && !overlap(d_c, mn, d_b, kn)),
          name + ": d_c overlaps d_a or d_b; the product is written out of place");
  if (k == 0) {
    CUDA_CHECK(cudaMemsetAsync(d_c, 0, static_cast<std::size_t>(mn) * sizeof(float), stream));
    return false;
  }
  return true;
}

}  // namespace

void multiply(Variant variant, const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
              cudaStream_t stream) {
  if (!prepare("multiply", d_a, d_b, d_c, m, n, k, stream))
    return;
  switch (variant) {
    case Variant::NaiveUncoalesced:
      return launch_naive_uncoalesced(d_a, d_b, d_c, m, n, k, stream);
    case Variant::Naive:
      return launch_naive(d_a, d_b, d_c, m, n, k, stream);
    case Variant::Tiled:
      return launch_tiled(kTiledTile, d_a, d_b, d_c, m, n, k, stream);
    case Variant::Register1d:
      return launch_register_1d(d_a, d_b, d_c, m, n, k, stream);
    case Variant::Register2d:
      return launch_register_2d(d_a, d_b, d_c, m, n, k, stream);
    case Variant::Warptiled:
      return launch_warptiled(d_a, d_b, d_c, m, n, k, stream);
  }
  throw std::invalid_argument("multiply: unknown variant");
}

void multiply_tiled(int tile, const float* d_a, const float* d_b, float* d_c, int m, int n, int k,
                    cudaStream_t stream) {
  require(std::find(kTileSweep.begin(), kTileSweep.end(), tile) != kTileSweep.end(),
          "multiply_tiled: tile must be 4, 8, 16 or 32, not " + std::to_string(tile));
  if (!prepare("multiply_tiled", d_a, d_b, d_c, m, n, k, stream))
    return;
  launch_tiled(tile, d_a, d_b, d_c, m, n, k, stream);
}

}  // namespace course::lesson03
