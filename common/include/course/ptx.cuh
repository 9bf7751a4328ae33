/// @file
/// @brief The PTX instructions that more than one lesson's rungs use, each wrapped once:
/// Ampere's tensor-core loads and products (ldmatrix, mma.sync, cp.async) and Hopper's copy
/// engine with its barriers (the TMA, mbarriers, bulk groups) and warpgroup instructions
/// (wgmma's fences and descriptors, setmaxnreg).
///
/// Given code, for the lessons whose rungs are written against the instructions themselves (08's
/// `tuned`, 12's `mma_sync` and `wgmma`, 13's `flash_mma` and `flash_wgmma`): what a lesson
/// teaches is which thread calls what, with which addresses, in which order and with which
/// parity, not the asm syntax. Every wrapper names its PTX instruction, so the PTX ISA manual and
/// the SASS (`cuobjdump -sass`) can be read beside it. A lesson's own header (e.g.
/// tensor_cores_ptx.cuh) names the wrappers it uses in its namespace `ptx`, beside the
/// instructions only it needs, so a rung calls `ptx::mbarrier_wait` whichever header holds it.
///
/// Each wrapper compiles for every architecture and traps where the code is compiled for one
/// without its instruction, so that a lesson still builds for 7.5 (the course's 75-virtual
/// build): the Ampere ones below 8.0, the TMA and mbarrier ones below 9.0, wgmma and setmaxnreg
/// where the code is not compiled for sm_90a (cmake/CourseLesson.cmake, SM90A). A trap is never
/// reached: a lesson's launcher asks whether the GPU and the build can run the rung first
/// (course/capability.hpp). The functions are `__device__ inline`, as the lessons had them, so
/// each rung's PTX is what it was when it was measured.
#pragma once

#include <cuda.h>  // CUtensorMap
#include <cuda_runtime.h>

#include <cstdint>

/// An asm statement of an instruction that exists from compute capability 9.0 on (the TMA,
/// mbarrier byte counts, bulk groups, the async proxy's fence); a trap where the code is
/// compiled for an older architecture. The host pass never reaches it.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define COURSE_SM90_ASM(...) asm volatile(__VA_ARGS__)
#else
#define COURSE_SM90_ASM(...) __trap()
#endif

/// An asm statement of a Hopper architecture-specific instruction (wgmma, setmaxnreg): it
/// exists only in code compiled for sm_90a, which runs on compute capability 9.0 alone; a trap
/// anywhere else. A lesson's own wgmma shapes use it too.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define COURSE_SM90A_ASM(...) asm volatile(__VA_ARGS__)
#else
#define COURSE_SM90A_ASM(...) __trap()
#endif

/// Eight read-and-written FP32 asm operands, `"+f"(d[i])` to `"+f"(d[i + 7])`: a wgmma's
/// accumulators, which its asm must list one by one (64 x N / 128 of them per thread), written as
/// groups of eight so that a lesson's wgmma wrapper reads as its instruction, not as its list.
#define COURSE_PTX_F8(d, i)                                                                   \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])

/// The PTX instructions shared by the lessons' tensor-core and TMA rungs (see the file comment).
namespace course::ptx {

/// The 32-bit shared-memory address of @p pointer, as the PTX instructions below take it: a
/// generic pointer is 64 bits, and the `.shared` state space is addressed from its own base.
__device__ inline std::uint32_t shared_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

// ---------------------------------------------------------------------------------------------
// Ampere: ldmatrix, mma.sync, cp.async (sm_80)
// ---------------------------------------------------------------------------------------------

/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16`: the warp loads four 8 x 8 matrices of 16-bit
/// values. Lane l gives the address of one 16-byte row: lanes 0-7 the rows of matrix 0, 8-15 of
/// matrix 1, 16-23 of matrix 2, 24-31 of matrix 3. Afterwards @p r[i] holds, in lane l, the two
/// values of matrix i at row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1: exactly a quarter of an
/// mma.sync fragment, so no lane has to shuffle anything.
__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], const void* row_address) {
#if __CUDA_ARCH__ >= 800
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row_address)));
#else
  __trap();
#endif
}

/// `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`: as ldmatrix_x4(), each 8 x 8 matrix
/// transposed on its way: lane l receives row l / 4 of the transpose. For a B operand stored
/// along n (row-major [k][n]): mma.sync wants B's values adjacent along k, and the transpose
/// puts them there without a pass through registers.
__device__ inline void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* row_address) {
#if __CUDA_ARCH__ >= 800
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row_address)));
#else
  __trap();
#endif
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`: d += a b for a 16 x 16 tile of A and a
/// 16 x 8 tile of B, FP32 accumulators, one warp. Lane l = 4 g + t (g = l / 4, t = l % 4) holds
///  - a: {A[g][2t..], A[g + 8][2t..], A[g][2t + 8..], A[g + 8][2t + 8..]}, two BF16 values each;
///  - b: {B[2t..][g], B[2t + 8..][g]}, two BF16 values each (consecutive k);
///  - d: {C[g][2t], C[g][2t + 1], C[g + 8][2t], C[g + 8][2t + 1]}.
__device__ inline void mma_16816(float (&d)[4], const std::uint32_t (&a)[4],
                                 const std::uint32_t (&b)[2]) {
#if __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  __trap();
#endif
}

/// `cp.async.cg.shared.global`: copies 16 bytes from global to shared memory without passing
/// through registers, and without waiting: the thread goes on at once. When @p valid is false,
/// nothing is read (src-size 0) and the 16 bytes are filled with zeros: a tile's ragged edge.
__device__ inline void cp_async_16(void* shared, const void* global, bool valid) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(shared)),
               "l"(global), "r"(valid ? 16 : 0)
               : "memory");
#else
  __trap();
#endif
}

/// `cp.async.commit_group`: closes the group of this thread's cp.async copies issued so far, so
/// that cp_async_wait() can wait for the older groups while the newest is still in flight.
__device__ inline void cp_async_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/// `cp.async.wait_group N`: waits until at most @p N of this thread's groups are in flight.
/// Other threads' copies need a barrier after it before anyone reads them.
template <int N>
__device__ inline void cp_async_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// ---------------------------------------------------------------------------------------------
// Hopper: mbarriers, the TMA, bulk groups, named barriers (sm_90)
// ---------------------------------------------------------------------------------------------

/// `mbarrier.init.shared::cta.b64`: a barrier in shared memory (8 bytes, 8-byte aligned) that
/// completes a phase when @p arrivals threads have arrived and every byte it was told to expect
/// has landed. One thread initializes it; fence_barrier_init() and a __syncthreads() publish it.
__device__ inline void mbarrier_init(std::uint64_t* barrier, int arrivals) {
  COURSE_SM90_ASM("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(barrier)),
                  "r"(arrivals)
                  : "memory");
}

/// `fence.mbarrier_init.release.cluster`: makes initialized barriers visible to the TMA, which
/// is not one of the block's threads and so does not see them through __syncthreads() alone.
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

/// `mbarrier.arrive`: one arrival, no bytes: a consumer telling the producer that it is done
/// with a buffer.
__device__ inline void mbarrier_arrive(std::uint64_t* barrier) {
  COURSE_SM90_ASM("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(barrier))
                  : "memory");
}

/// `mbarrier.try_wait.parity`, once: whether the phase of parity @p parity (0 or 1) has
/// completed. The hardware waits a little before it answers no, so a loop around it does not
/// spin at full speed; mbarrier_wait() is that loop.
__device__ inline bool mbarrier_try_wait(std::uint64_t* barrier, int parity) {
  std::uint32_t done = 0;
  COURSE_SM90_ASM(
      "{\n.reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(shared_address(barrier)), "r"(parity)
      : "memory");
  return done != 0;
}

/// `mbarrier.try_wait.parity`, in a loop inside the asm: waits until the phase of parity
/// @p parity (0 or 1) has completed. A barrier's phases alternate 0, 1, 0, ...: a thread waiting
/// for the n-th fill of a buffer (n = 0, 1, ...) waits for parity n % 2, and a fresh barrier
/// counts its phase -1 as complete. A wrong parity does not fail: one phase late it waits
/// forever, one phase early not at all.
__device__ inline void mbarrier_wait(std::uint64_t* barrier, int parity) {
  COURSE_SM90_ASM(
      "{\n"
      ".reg .pred done;\n"
      "wait:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait;\n"
      "}\n" ::"r"(shared_address(barrier)),
      "r"(parity)
      : "memory");
}

/// `fence.proxy.async.shared::cta`: orders this thread's ordinary accesses to shared memory with
/// those of the async proxy, through which the TMA reads and writes it. Before the TMA refills a
/// buffer that threads have just read, or stores a box that threads have just written, every
/// such thread calls it, then the threads meet at a barrier: the barrier alone orders the
/// threads, not the copy engine.
__device__ inline void fence_proxy_async_shared() {
  COURSE_SM90_ASM("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/// `cp.async.bulk.tensor.2d...mbarrier::complete_tx::bytes`: the TMA copies the box of @p map
/// whose first element is at column @p x, row @p y (in elements) into shared memory at
/// @p shared (128-byte aligned; 1024 with a 128-byte swizzle), swizzled as the map says, and
/// counts the bytes on @p barrier. Elements outside the tensor (coordinates below 0 too) arrive
/// as zeros, and their bytes count too. One thread issues it.
__device__ inline void tma_load_2d(void* shared, const CUtensorMap* map, std::uint64_t* barrier,
                                   int x, int y) {
  COURSE_SM90_ASM(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(shared_address(shared)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(shared_address(barrier))
      : "memory");
}

/// `cp.async.bulk.tensor.3d...mbarrier::complete_tx::bytes`: as tma_load_2d(), for a map of
/// three dimensions: the box whose first element is (@p x, @p y, @p z), innermost first (a
/// grid's x, y, z; a head's column, row and the head). The box never reaches past the tensor's
/// extent in z into the next plane or head: what lies outside arrives as zeros.
__device__ inline void tma_load_3d(void* shared, const CUtensorMap* map, std::uint64_t* barrier,
                                   int x, int y, int z) {
  COURSE_SM90_ASM(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(shared_address(shared)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(z),
      "r"(shared_address(barrier))
      : "memory");
}

/// The TMA store (`cp.async.bulk.tensor.2d`, shared to global, bulk-group completion): the TMA
/// copies the box at @p shared (1024-byte aligned, laid out with the map's swizzle) into the
/// tensor of @p map at column @p x, row @p y (in elements). Elements of the box outside the
/// tensor are not written. The thread goes on at once; the store joins its bulk group
/// (bulk_commit_group()), and its source may be written again only after bulk_wait_group_read().
/// One thread issues it, after fence_proxy_async_shared() and a barrier.
__device__ inline void tma_store_2d(const CUtensorMap* map, const void* shared, int x, int y) {
  COURSE_SM90_ASM(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
          reinterpret_cast<std::uint64_t>(map)),
      "r"(x), "r"(y), "r"(shared_address(shared))
      : "memory");
}

/// `cp.async.bulk.commit_group`: closes this thread's bulk copies (TMA stores) issued so far into
/// a group, the unit that bulk_wait_group_read() and bulk_wait_group() wait for.
__device__ inline void bulk_commit_group() {
  COURSE_SM90_ASM("cp.async.bulk.commit_group;\n" ::: "memory");
}

/// `cp.async.bulk.wait_group.read N`: waits until at most @p N of this thread's bulk groups are
/// still reading their shared memory; the buffers of the older ones may be written again. Their
/// writes to global memory may still be under way.
template <int N>
__device__ inline void bulk_wait_group_read() {
  COURSE_SM90_ASM("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

/// `cp.async.bulk.wait_group N`: waits until at most @p N of this thread's bulk groups are in
/// flight at all: the older ones have read their shared memory and written global memory. With
/// N = 0 before the block ends, no store still reads shared memory that the block gives up.
template <int N>
__device__ inline void bulk_wait_group() {
  COURSE_SM90_ASM("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

/// `bar.sync id, threads`: a barrier for the @p threads threads (a multiple of 32) that reach
/// named barrier @p id (1 ... 15; __syncthreads() is barrier 0). One warpgroup waits for its own
/// 128 threads while the others go on: a consumer's epilogue must not stop the producer or the
/// other consumer. The instruction exists on every GPU; the warp-specialized rungs that need it
/// are Hopper's.
__device__ inline void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// ---------------------------------------------------------------------------------------------
// Hopper, sm_90a only: wgmma's fences and shared-memory descriptors, setmaxnreg
// ---------------------------------------------------------------------------------------------

/// The swizzle of a shared-memory tile, as the TMA writes it and wgmma reads it: the 16-byte
/// chunk c of row r lands at chunk c ^ (r % 8) (128-byte rows; 64 and 32 bytes likewise, on 4
/// and 2 chunks), so that the eight rows a wgmma reads at once hit different banks. Values as the
/// wgmma descriptor encodes them.
enum class Swizzle : std::uint64_t { None = 0, Bytes128 = 1, Bytes64 = 2, Bytes32 = 3 };

/// A wgmma shared-memory matrix descriptor for a tile at @p tile (1024-byte aligned): rows
/// grouped by eight, @p group_stride_bytes from one group of 8 rows to the next (8 rows x 128
/// bytes = 1024 for 128-byte swizzled rows), @p leading_bytes between the swizzle-wide column
/// blocks of an MN-major operand (unused by a K-major one), @p swizzle as the tile was written.
/// To step along k inside a swizzled K-major row, add the byte offset >> 4 to the descriptor.
__device__ inline std::uint64_t smem_descriptor(const void* tile, std::uint32_t group_stride_bytes,
                                                Swizzle swizzle, std::uint32_t leading_bytes = 16) {
  std::uint64_t d = 0;
  d |= static_cast<std::uint64_t>((shared_address(tile) & 0x3FFFF) >> 4);  // start address
  d |= static_cast<std::uint64_t>((leading_bytes & 0x3FFFF) >> 4) << 16;
  d |= static_cast<std::uint64_t>((group_stride_bytes & 0x3FFFF) >> 4) << 32;
  d |= static_cast<std::uint64_t>(swizzle) << 62;
  return d;
}

/// `wgmma.fence.sync.aligned`: orders this warpgroup's register accesses to the accumulators
/// (and to a register A operand) before the wgmma that follows. Needed before the first wgmma
/// of a batch.
__device__ inline void wgmma_fence() {
  COURSE_SM90A_ASM("wgmma.fence.sync.aligned;\n" ::: "memory");
}

/// `wgmma.commit_group.sync.aligned`: closes the batch of wgmma issued so far into one group.
__device__ inline void wgmma_commit_group() {
  COURSE_SM90A_ASM("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/// `wgmma.wait_group.sync.aligned N`: waits until at most @p N groups are in flight; until then
/// neither the accumulators nor the memory those groups read may be touched.
template <int N>
__device__ inline void wgmma_wait_group() {
  COURSE_SM90A_ASM("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/// Keeps the compiler from moving reads or writes of @p d across this point: an asm statement
/// cannot say that a wgmma in flight still writes the accumulators.
template <int N>
__device__ inline void fence_registers(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("" : "+f"(d[i])::"memory");
}

/// The same for the A fragments @p a of wgmma in flight (register A operands): they must stay in
/// their registers, unchanged, until the wgmma that read them are waited for.
template <int M, int N>
__device__ inline void fence_registers(std::uint32_t (&a)[M][N]) {
#pragma unroll
  for (int i = 0; i < M; ++i)
#pragma unroll
    for (int j = 0; j < N; ++j)
      asm volatile("" : "+r"(a[i][j])::"memory");
}

/// `setmaxnreg.inc.sync.aligned.u32`: the warpgroup takes @p N registers per thread, from a pool
/// the others give back. The consumers of a warp-specialized kernel hold their accumulators in
/// registers; the producer, which only issues the TMA, needs few.
template <int N>
__device__ inline void setmaxnreg_increase() {
  COURSE_SM90A_ASM("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

/// `setmaxnreg.dec.sync.aligned.u32`: the warpgroup gives registers back, keeping @p N per thread.
template <int N>
__device__ inline void setmaxnreg_decrease() {
  COURSE_SM90A_ASM("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

}  // namespace course::ptx
