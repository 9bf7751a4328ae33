// Lesson 10, the stretch rung: a scan of the whole input in one pass, reaching for CUB's
// DeviceScan. Write it, launch it, and delete the `throw`.
#include "course/error.hpp"
#include "scan_rungs.cuh"

namespace course::lesson10 {

namespace {
constexpr const char* kHere = "lessons/10_scan/scan_single_pass.cu";
}  // namespace

//! [single_pass_exercise]
// TODO(student), stretch: rung "single_pass", decoupled look-back (the README explains it).
//   - Tiles of kThreads x kItems elements (e.g. 128 x 32), one tile per block. Take the tile index
//     from an atomic counter (atomicAdd by thread 0, shared with the block), not from blockIdx.x:
//     tiles are then claimed in the order blocks start, and a block only ever waits for tiles
//     that running blocks own.
//   - Load warp-striped (lane l reads l, l + 32, ...: coalesced), transpose through shared memory
//     so each lane holds kItems consecutive elements; scan them in registers, then the lanes'
//     totals with __shfl_up_sync, then the warps' totals: the tile's aggregate.
//   - Status per tile, in scratch that is zero before the launch (workspace<unsigned long long>
//     and one cudaMemsetAsync, which can hold the counter too): a flag (invalid, aggregate,
//     inclusive prefix) and a value. Pack both into one 64-bit word and use
//     cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> (<cuda/atomic>) to load and
//     store it: the reader then sees the flag and its value together.
//   - Publish the aggregate at once; warp 0 then walks back over the predecessors, 32 at a time,
//     adding aggregates until it meets an inclusive prefix; publish your own inclusive prefix.
//   - For speed: pause (__nanosleep, ~1 us) between polls; spinning warps crowd the L2's slices.
//   - Add the tile's exclusive prefix to the items, store back through shared memory, coalesced.
//   The exclusive scan is the inclusive one shifted by one element: shift inside the lane's items.
template <class T>
void run_single_pass(const T* d_in, T* d_out, std::size_t n, ScanKind kind, cudaStream_t stream) {
  throw NotImplemented("single_pass", kHere);
}
//! [single_pass_exercise]

#define COURSE_LESSON10_INSTANTIATE(T) \
  template void run_single_pass<T>(const T*, T*, std::size_t, ScanKind, cudaStream_t);
COURSE_LESSON10_INSTANTIATE(int)
COURSE_LESSON10_INSTANTIATE(float)
#undef COURSE_LESSON10_INSTANTIATE

}  // namespace course::lesson10
