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
//   - 256 digits x tiles counts are too many for one block to scan: scan digit by digit, one
//     block per digit, and add the digit's global start.
//   - Coalesced writes: with 256 digits a warp's 32 keys go to 32 places. Rank the keys as
//     before (eight ballots; the lowest lane of each group of peers updates the warp's count of
//     that digit in shared memory), place them in shared memory sorted by digit, then write the
//     tile out in that order (kernel wide_scatter_kernel, the name profile_lesson11 looks for).
void launch_radix_wide(const Problem& problem, Workspace& workspace, cudaStream_t stream) {
  throw NotImplemented("radix_wide", kHere);
}
//! [radix_wide_exercise]

}  // namespace course::lesson11
