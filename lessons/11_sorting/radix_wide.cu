// Lesson 11, the stretch rung: reach for CUB. Write it, launch it, and delete the `throw`.
#include "course/error.hpp"
#include "radix_device.cuh"
#include "sorting_rungs.cuh"

namespace course::lesson11 {

namespace {
constexpr const char* kHere = "lessons/11_sorting/radix_wide.cu";
}  // namespace

//! [radix_wide_exercise]
// TODO(student), stretch: rung "radix_wide". Your radix rung with 8-bit digits: 4 passes, half
// the traffic. Ideas, each worth measuring:
//   - The global count of each digit does not change from pass to pass: count the digits of
//     all four passes in ONE read of the keys (shared-memory histograms, then atomicAdd).
//   - Coalesced writes: with 256 digits a warp's 32 keys go to 32 places. Rank the keys as
//     before (eight ballots find a lane's peers; one of them updates the warp's count of that
//     digit in shared memory), place them in shared memory sorted by digit, then write the tile
//     out in that order.
//   - One kernel per pass, one read of the keys ("one sweep"): where tile t's keys of digit d go
//     is the digit's start plus the keys of d in tiles 0 .. t - 1. Publish each tile's counts as
//     soon as they are known and look back over the tiles before, as lesson 10's single_pass
//     does, with one look-back per digit. Take the tile's number from an atomic counter, not
//     from blockIdx.x, so that a tile only waits for tiles that have started.
//   - Name the pass kernel wide_scatter_kernel: profile_lesson11 looks for it.
void launch_radix_wide(const Problem& problem, Workspace& workspace, cudaStream_t stream) {
  throw NotImplemented("radix_wide", kHere);
}
//! [radix_wide_exercise]

}  // namespace course::lesson11
