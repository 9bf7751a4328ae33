// Lesson 12, the stretch rung (bonus points): Hopper's way, with the wrappers of
// tensor_cores_ptx.cuh. Finish wmma and mma_sync first. This file alone is compiled for sm_90a,
// and only in a build for compute capability 9.0 (README, "Building for Hopper").
#include "course/error.hpp"
#include "course/gpu.hpp"
#include "tensor_cores_ptx.cuh"
#include "tensor_cores_rungs.cuh"

namespace course::lesson12 {

namespace {
constexpr const char* kHere = "lessons/12_tensor_cores/wgmma.cu";
}  // namespace

//! [wgmma_exercise]
// TODO(student), stretch: rung "wgmma". Reach 80 % of cuBLAS BF16. A block of 384 threads (three
// warpgroups of 128) owns a 128 x 256 tile of C: warpgroup 0 produces, warpgroups 1 and 2
// consume, each 64 rows of the tile in `float acc[128]` per thread.
//   1. Shared memory (dynamic, about 193 KB): 4 stages of a 128 x 64 tile of A and a 256 x 64
//      tile of B, each tile 1024-byte aligned; `std::uint64_t full[4], empty[4]` mbarriers.
//      Thread 0 initializes full[i] for 1 arrival and empty[i] for 2 (one per consumer), calls
//      ptx::fence_barrier_init(); then __syncthreads().
//   2. The host: ptx::tensor_map_2d for A (p.m rows of p.k, boxes of 128 x 64) and B (p.n rows of
//      p.k, boxes of 256 x 64), both CU_TENSOR_MAP_SWIZZLE_128B; pass them to the kernel by value
//      as `const __grid_constant__ CUtensorMap`. Describe the whole matrix: the TMA fills the
//      part of a box past the edge with zeros.
//   3. Producer (warpgroup 0: ptx::setmaxnreg_decrease<40>(), then thread 0 alone): for each
//      k-step, wait until the stage is empty (ptx::mbarrier_wait(&empty[s], phase ^ 1)), then
//      ptx::mbarrier_arrive_expect_bytes(&full[s], bytes of both tiles) and two ptx::tma_load_2d
//      (column kt * 64, row of the tile). After stage 3 comes stage 0 with the other phase.
//   4. Consumers (ptx::setmaxnreg_increase<232>()): for each k-step, ptx::mbarrier_wait(&full[s],
//      phase); ptx::wgmma_fence(); four ptx::wgmma_m64n256k16, one per k16, with descriptors
//      ptx::smem_descriptor(tile + 16 * kk, 1024, ptx::Swizzle::Bytes128) for A (the consumer's
//      64 rows) and for B; ptx::wgmma_commit_group(); ptx::wgmma_wait_group<1>(); then one thread
//      per consumer arrives on the empty barrier of the stage before (its wgmma are done).
//      After the last k-step wait_group<0>, release the last stage, and store (the accumulator
//      layout is at ptx::wgmma_m64n256k16).
//   5. Persistent grid: one block per SM (gpu_info().sm_count); block b takes tiles b, b + grid,
//      ...; producer and consumers walk the same tiles, their stages and phases running on, so
//      that the next tile's loads overlap this tile's stores.
//   6. Optional, last, for speed: C through the TMA. Each consumer writes its accumulators as 8
//      boxes of 64 rows x 32 floats (128-byte rows), chunk c of row r at chunk c ^ (r % 8), into
//      two 8 KB buffers of its own (1024-byte aligned: 32 KB more shared memory in all), then
//      every thread calls ptx::fence_proxy_async_shared() (the TMA must see the writes) and
//      ptx::named_barrier_sync(1 + consumer, 128), and one thread ptx::tma_store_2d(&map_c,
//      buffer, column, row) and ptx::bulk_commit_group(). Before a buffer is written again, that
//      thread's ptx::bulk_wait_group_read<1>() and the named barrier; before the block ends,
//      ptx::bulk_wait_group<0>(). The map is ptx::tensor_map_2d(p.c, p.m, p.n, 64, 32,
//      CU_TENSOR_MAP_SWIZZLE_128B), which needs p.n % 4 == 0 and p.c 16-byte aligned: keep the
//      stores of step 4 for every other C.
// __launch_bounds__(384, 1): setmaxnreg needs the register cap at entry.
void launch_wgmma(const Problem& p, cudaStream_t stream) {
  throw NotImplemented("wgmma", kHere);
}
//! [wgmma_exercise]

}  // namespace course::lesson12
