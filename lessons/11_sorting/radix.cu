// Lesson 11, the radix rung: write the kernels, launch them, and delete the `throw` in the
// launcher. README.md, "Background", explains LSD radix sort; radix_device.cuh gives you
// block_exclusive_scan().
#include "course/error.hpp"
#include "radix_device.cuh"
#include "sorting_rungs.cuh"

namespace course::lesson11 {

namespace {
constexpr const char* kHere = "lessons/11_sorting/radix.cu";
}  // namespace

//! [radix_exercise]
// TODO(student): rung "radix". LSD radix sort with 4-bit digits: 8 passes, digit
// (key >> 4 pass) & 15, each pass from one array into another (take a spare array of n keys,
// and of n values for pairs, from the workspace with Carver), each pass STABLE.
// Split the keys into tiles (e.g. 256 threads x 16 keys = 4096 keys per block). Per pass:
//   1. histogram kernel: the count of each digit in each tile, written digit-major:
//      counts[digit * tiles + tile].
//   2. scan kernel: an exclusive scan over all 16 * tiles counts, in place: now
//      counts[digit * tiles + tile] is where the tile's first key of that digit goes. One block
//      of 1024 threads, each owning a contiguous segment, is enough (block_exclusive_scan).
//   3. scatter kernel, radix_scatter_kernel (profile_lesson11 looks for it): each key goes to
//      counts[digit * tiles + tile] + its rank among the tile's keys with the same digit, in
//      input order. Let warp w own keys [w 512, w 512 + 512) of the tile, 32 at a time: four
//      __ballot_sync calls (one per digit bit) tell each lane which lanes share its digit; the
//      lower ones among them come first. Keep per-digit running counts across the groups of 32
//      (lane d can hold digit d's), then add the earlier warps' counts (shared memory, one
//      __syncthreads()).
//      Never rank with atomicAdd (its order is the hardware's; LSD needs each pass stable).
// Values go where their keys go. Eight passes end in the caller's arrays. The last tile may be
// ragged: count and move only keys below n.
void launch_radix(const Problem& problem, Workspace& workspace, cudaStream_t stream) {
  throw NotImplemented("radix", kHere);
}
//! [radix_exercise]

}  // namespace course::lesson11
