// Lesson 09, the stretch rungs: reaching for CUB's DeviceHistogram with 7 bins, and the general
// 256-bin byte histogram. Each launcher is called with d_bins already zero. The demo prints your
// share of CUB on uniform letters and on long runs.
#include <algorithm>
#include <cstdint>

#include "course/error.hpp"
#include "histogram_rungs.cuh"

namespace course::lesson09 {

namespace {
constexpr const char* kHere = "lessons/09_histogram/histogram_stretch.cu";
}  // namespace

//! [register_privatized_exercise]
// TODO(student), stretch: rung "register_privatized". Reach for (and pass) CUB. With 7 bins a
// thread can keep its own counters in registers: `std::uint32_t counts[kLetterBins]`, indexed
// only by constants (a loop over the 7 bins that the compiler unrolls; an index computed from
// the data would move the array to local memory). Then no atomic per byte is left at all, and a
// run of one letter costs nothing extra. Ideas, each worth measuring:
//   - read 16 bytes per load (uint4); the bytes before the first 16-byte boundary of d_text and
//     after the last whole vector are read one by one (d_text may start anywhere);
//   - classify bytes cheaply: e.g. a 256-entry table in shared memory giving 1 << (4 * bin) for
//     a letter and 0 for any other byte; the sum of 8 such values holds 8 four-bit counters,
//     which you widen into 8-bit counters and, before they can overflow, into `counts`;
//   - several independent loads in flight per thread; a grid of resident_blocks() blocks;
//   - at the end, sum each counter over the warp with __shfl_down_sync, over the warps through
//     shared memory, and do 7 atomicAdd per block.
void launch_register_privatized(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                                cudaStream_t stream) {
  throw NotImplemented("register_privatized", kHere);
}
//! [register_privatized_exercise]

//! [bytes256_exercise]
// TODO(student), stretch: rung "bytes256". Count every byte value into 256 bins (d_bins holds
// 256 counts): bin = the byte itself. 256 counters no longer fit in registers: use shared
// memory, with one private copy per warp (`__shared__ std::uint32_t warp_bins[8][256]` for 256
// threads) so that only the threads of one warp compete for a counter; read 16 bytes per load as
// in register_privatized; launch resident_blocks() blocks; at the end add the warps' copies and
// do 256 atomicAdd per block. Compare your GB/s with NVIDIA's cuda-samples `histogram256` (448
// GB/s on an H200, README "Measured") and with CUB's 256-bin histogram (the demo measures it).
void launch_bytes256(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                     cudaStream_t stream) {
  throw NotImplemented("bytes256", kHere);
}
//! [bytes256_exercise]

}  // namespace course::lesson09
