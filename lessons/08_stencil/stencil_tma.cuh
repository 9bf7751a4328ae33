/// @file
/// @brief Lesson 08's given Hopper pieces for the `tuned` rung: the mbarrier and TMA instructions
/// (wrapped once for every lesson, in course/ptx.cuh, and named here in the lesson's namespace
/// `ptx`), and the host's description of a grid for the TMA (a tensor map). Given code: the
/// lesson is in which thread calls what, in which order, with which parity; not in the asm
/// syntax. Every wrapper names its PTX instruction.
///
/// The TMA and the mbarrier's byte counts exist from compute capability 9.0 on (sm_90; nothing
/// here needs sm_90a). The wrappers compile for any architecture and trap below 9.0: code built
/// for 7.5 (the course's 75-virtual build) has no TMA, so the launcher must not choose it there.
#pragma once

#include <cuda.h>  // CUtensorMap
#include <cuda_runtime.h>

#include <cstdint>

#include "course/ptx.cuh"
#include "stencil.cuh"

namespace course::lesson08::ptx {

// The harness's wrappers (course/ptx.cuh) that the `tuned` rung uses, by their names here.
using ::course::ptx::fence_barrier_init;
using ::course::ptx::mbarrier_arrive_expect_bytes;
using ::course::ptx::mbarrier_init;
using ::course::ptx::tma_load_3d;

/// `mbarrier.try_wait.parity`, in a loop: waits until the phase of parity @p parity (0 or 1) has
/// completed. A barrier's phases alternate 0, 1, 0, ...: a thread waiting for the n-th fill of a
/// buffer (n = 0, 1, ...) waits for parity n % 2. Waiting for a phase that never completes
/// hangs: a wrong parity does not fail, it waits forever (or, one phase early, not at all).
/// The loop is C++ around course::ptx::mbarrier_try_wait(), as the rung was measured with
/// (course::ptx::mbarrier_wait() loops inside the asm).
__device__ inline void mbarrier_wait(std::uint64_t* barrier, int parity) {
  while (!::course::ptx::mbarrier_try_wait(barrier, parity)) {
  }
}

/// `fence.proxy.async.shared::cta` (course::ptx::fence_proxy_async_shared()): this thread's
/// earlier accesses to shared memory (and, after a __syncthreads(), the block's) are ordered
/// before the TMA's (the "async proxy") that follow: issue it before the TMA refills a buffer
/// that threads have just read.
__device__ inline void fence_proxy_async() {
  ::course::ptx::fence_proxy_async_shared();
}

/// A TMA descriptor (host side) for the float grid @p grid at @p base (x fastest), copied in
/// boxes of @p box_x x @p box_y x 1 floats; elements outside the grid arrive as zeros. The TMA
/// needs @p base on a 16-byte boundary, rows of a multiple of 16 bytes (nx % 4 == 0), and
/// @p box_x * 4 bytes a multiple of 16, each box extent at most 256. Encoded by
/// course::encode_tensor_map(). About a microsecond of host time.
/// @throws std::invalid_argument for a grid or box the TMA cannot take; std::runtime_error when
/// the driver has no encoder or refuses the description.
CUtensorMap tensor_map_3d(const float* base, Grid grid, int box_x, int box_y);

}  // namespace course::lesson08::ptx
