// Lesson 10: the entry points check their arguments once, then hand the call to the rung.
#include <string>

#include "course/error.hpp"
#include "scan.cuh"
#include "scan_rungs.cuh"

namespace course::lesson10 {

namespace {

template <class T>
void scan_any(Variant variant, ScanKind kind, const T* d_in, T* d_out, std::size_t n,
              cudaStream_t stream, int block) {
  require(kind == ScanKind::Inclusive || kind == ScanKind::Exclusive,
          "scan: kind must be Inclusive or Exclusive");
  require(n <= kMaxCount, "scan: n must be in [0, 2^30]");
  require(block >= kMinBlock && block <= kMaxBlock && (block & (block - 1)) == 0,
          "scan: block must be a power of two in [32, 1024]");
  if (n == 0)
    return;  // nothing to scan: no launch, and null pointers are fine
  require(d_in != nullptr && d_out != nullptr,
          "scan: d_in and d_out must be device pointers when n > 0");
  // In place (d_out == d_in) works for every rung: each element is read before it is written,
  // by the block that owns it. A partial overlap would let one block overwrite another's input.
  require(d_out == d_in || d_out + n <= d_in || d_in + n <= d_out,
          "scan: d_out overlaps d_in; it must be d_in itself (in place) or disjoint from it");
  switch (variant) {
    case Variant::KoggeStone:
      return launch_kogge_stone<T>(d_in, d_out, nullptr, n, kind, block, stream);
    case Variant::KoggeStoneDoubleBuffer:
      return launch_kogge_stone_double_buffer<T>(d_in, d_out, nullptr, n, kind, block, stream);
    case Variant::BrentKung:
      return launch_brent_kung<T>(d_in, d_out, nullptr, n, kind, block, stream);
    case Variant::ThreePhase:
      return launch_three_phase<T>(d_in, d_out, nullptr, n, kind, block, stream);
    case Variant::Hierarchical:
      return run_hierarchical<T>(d_in, d_out, n, kind, block, stream);
    case Variant::SinglePass:
      return run_single_pass<T>(d_in, d_out, n, kind, stream);
  }
  throw std::invalid_argument("scan: unknown variant");
}

}  // namespace

void scan(Variant variant, ScanKind kind, const int* d_in, int* d_out, std::size_t n,
          cudaStream_t stream, int block) {
  scan_any(variant, kind, d_in, d_out, n, stream, block);
}

void scan(Variant variant, ScanKind kind, const float* d_in, float* d_out, std::size_t n,
          cudaStream_t stream, int block) {
  scan_any(variant, kind, d_in, d_out, n, stream, block);
}

}  // namespace course::lesson10
