/// @file
/// @brief Lesson 08's given Hopper pieces for the `tuned` rung: the mbarrier and TMA instructions,
/// each wrapped once, and the host's description of a grid for the TMA (a tensor map). Given
/// code, as lesson 12's tensor_cores_ptx.cuh: the lesson is in which thread calls what, in which
/// order, with which parity; not in the asm syntax. Every wrapper names its PTX instruction.
///
/// The TMA and the mbarrier's byte counts exist from compute capability 9.0 on (sm_90; nothing
/// here needs sm_90a). The wrappers compile for any architecture and trap below 9.0: code built
/// for 7.5 (the course's 75-virtual build) has no TMA, so the launcher must not choose it there.
#pragma once

#include <cuda.h>  // CUtensorMap
#include <cuda_runtime.h>

#include <cstdint>

#include "stencil.cuh"

namespace course::lesson08::ptx {

/// An asm statement of a Hopper instruction where the code is compiled for 9.0 or later; a trap
/// elsewhere (the host pass and older architectures never reach it: see the file comment).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define COURSE_SM90_ASM(...) asm volatile(__VA_ARGS__)
#else
#define COURSE_SM90_ASM(...) __trap()
#endif

/// The 32-bit shared-memory address of @p pointer, as the PTX instructions below take it.
__device__ inline std::uint32_t shared_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

/// `mbarrier.init.shared::cta.b64`: a barrier in shared memory (8 bytes, 8-byte aligned) that
/// completes a phase when @p arrivals threads have arrived and every byte it was told to expect
/// has landed. One thread initializes it; fence_barrier_init() and a __syncthreads() publish it.
__device__ inline void mbarrier_init(std::uint64_t* barrier, int arrivals) {
  COURSE_SM90_ASM("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(barrier)),
                  "r"(arrivals)
                  : "memory");
}

/// `fence.mbarrier_init.release.cluster`: makes initialized barriers visible to the TMA.
__device__ inline void fence_barrier_init() {
  COURSE_SM90_ASM("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/// `mbarrier.arrive.expect_tx`: arrives, and tells the barrier that @p bytes more are coming
/// (from TMA loads that name it): the phase completes only when they have landed.
__device__ inline void mbarrier_arrive_expect_bytes(std::uint64_t* barrier, std::uint32_t bytes) {
  COURSE_SM90_ASM(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(barrier)),
      "r"(bytes)
      : "memory");
}

/// `mbarrier.try_wait.parity`, in a loop: waits until the phase of parity @p parity (0 or 1) has
/// completed. A barrier's phases alternate 0, 1, 0, ...: a thread waiting for the n-th fill of a
/// buffer (n = 0, 1, ...) waits for parity n % 2. Waiting for a phase that never completes
/// hangs: a wrong parity does not fail, it waits forever (or, one phase early, not at all).
__device__ inline void mbarrier_wait(std::uint64_t* barrier, int parity) {
  std::uint32_t done = 0;
  do {
    COURSE_SM90_ASM(
        "{\n.reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(shared_address(barrier)), "r"(parity)
        : "memory");
  } while (!done);
}

/// `fence.proxy.async.shared::cta`: this thread's earlier accesses to shared memory (and, after a
/// __syncthreads(), the block's) are ordered before the TMA's (the "async proxy") that follow:
/// issue it before the TMA refills a buffer that threads have just read.
__device__ inline void fence_proxy_async() {
  COURSE_SM90_ASM("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/// `cp.async.bulk.tensor.3d...mbarrier::complete_tx::bytes`: the TMA copies the box of @p map
/// whose first element is (@p x, @p y, @p z) into shared memory at @p shared (128-byte aligned),
/// row after row, and counts the bytes on @p barrier. Elements outside the tensor (coordinates
/// below 0 too) arrive as zeros, and their bytes count too. One thread issues it.
__device__ inline void tma_load_3d(void* shared, const CUtensorMap* map, std::uint64_t* barrier,
                                   int x, int y, int z) {
  COURSE_SM90_ASM(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(shared_address(shared)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(z),
      "r"(shared_address(barrier))
      : "memory");
}

#undef COURSE_SM90_ASM

/// A TMA descriptor (host side) for the float grid @p grid at @p base (x fastest), copied in
/// boxes of @p box_x x @p box_y x 1 floats; elements outside the grid arrive as zeros. The TMA
/// needs @p base on a 16-byte boundary, rows of a multiple of 16 bytes (nx % 4 == 0), and
/// @p box_x * 4 bytes a multiple of 16, each box extent at most 256. Found through the runtime
/// (cudaGetDriverEntryPointByVersion): no link against libcuda. About a microsecond of host time.
/// @throws std::runtime_error when the driver has no encoder or refuses the description.
CUtensorMap tensor_map_3d(const float* base, Grid grid, int box_x, int box_y);

}  // namespace course::lesson08::ptx
