/// @file
/// @brief Lesson 12's instructions, each wrapped once: the tensor cores' PTX and the copy engines
/// that feed them. Given code: the lesson is in how the rungs use them (which thread calls what,
/// with which addresses, in which order), not in the asm syntax. Every wrapper names its PTX
/// instruction, so the PTX ISA manual and the SASS (`cuobjdump -sass`) can be read beside it.
///
/// The Ampere wrappers (sm_80) compile for any architecture and trap below 8.0; the Hopper ones
/// exist only where the code is compiled for sm_90a (wgmma.cu alone), and trap elsewhere. A rung
/// the GPU cannot run never launches: multiply() asks unsupported() first.
#pragma once

#include <cuda.h>  // CUtensorMap
#include <cuda_bf16.h>

#include <cstdint>

namespace course::lesson12::ptx {

// ---------------------------------------------------------------------------------------------
// Ampere: mma.sync, ldmatrix, cp.async (sm_80)
// ---------------------------------------------------------------------------------------------

/// The 32-bit shared-memory address of @p pointer, as the PTX instructions below take it.
__device__ inline std::uint32_t shared_address(const void* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

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

/// `cp.async.commit_group`: closes the group of this thread's cp.async copies issued so far.
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
// Hopper: mbarriers, the TMA, wgmma, setmaxnreg, TMA stores (sm_90a)
// ---------------------------------------------------------------------------------------------

/// An asm statement of an sm_90a instruction where the code is compiled for sm_90a; a trap
/// elsewhere (the host pass and other architectures never reach it: see the file comment).
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define COURSE_SM90A_ASM(...) asm volatile(__VA_ARGS__)
#else
#define COURSE_SM90A_ASM(...) __trap()
#endif

/// `mbarrier.init.shared::cta.b64`: a barrier in shared memory that completes a phase when
/// @p arrivals threads have arrived and every byte it was told to expect has landed. One thread
/// initializes it; fence_barrier_init() and a __syncthreads() publish it.
__device__ inline void mbarrier_init(std::uint64_t* barrier, int arrivals) {
  COURSE_SM90A_ASM("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(barrier)),
                   "r"(arrivals)
                   : "memory");
}

/// `fence.mbarrier_init.release.cluster`: makes initialized barriers visible to the TMA.
__device__ inline void fence_barrier_init() {
  COURSE_SM90A_ASM("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/// `mbarrier.arrive.expect_tx`: arrives, and tells the barrier that @p bytes more are coming
/// (from TMA loads that name it): the phase completes only when they have landed.
__device__ inline void mbarrier_arrive_expect_bytes(std::uint64_t* barrier, std::uint32_t bytes) {
  COURSE_SM90A_ASM(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(barrier)),
      "r"(bytes)
      : "memory");
}

/// `mbarrier.arrive`: one arrival.
__device__ inline void mbarrier_arrive(std::uint64_t* barrier) {
  COURSE_SM90A_ASM("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(barrier))
                   : "memory");
}

/// `mbarrier.try_wait.parity`, in a loop: waits until the phase of parity @p phase (0 or 1) has
/// completed. A barrier's phases alternate 0, 1, 0, ...: a consumer waiting for the n-th fill of
/// a buffer waits for parity n % 2.
__device__ inline void mbarrier_wait(std::uint64_t* barrier, int phase) {
  COURSE_SM90A_ASM(
      "{\n"
      ".reg .pred done;\n"
      "wait:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait;\n"
      "}\n" ::"r"(shared_address(barrier)),
      "r"(phase)
      : "memory");
}

/// `cp.async.bulk.tensor.2d...mbarrier::complete_tx::bytes`: the TMA copies the box of
/// @p map at column @p col, row @p row (in elements) into shared memory at @p shared, swizzled
/// as the map says, and counts the bytes on @p barrier. Elements outside the tensor arrive as
/// zeros, and their bytes count too. One thread issues it.
__device__ inline void tma_load_2d(void* shared, const CUtensorMap* map, std::uint64_t* barrier,
                                   int col, int row) {
  COURSE_SM90A_ASM(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(shared_address(shared)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(col), "r"(row), "r"(shared_address(barrier))
      : "memory");
}

/// The swizzle of a shared-memory tile, as the TMA writes it and wgmma reads it: the 16-byte
/// chunk c of row r lands at chunk c ^ (r % 8) (128-byte rows; 64 and 32 bytes likewise, on 4
/// and 2 chunks). Values as the wgmma descriptor encodes them.
enum class Swizzle : std::uint64_t { None = 0, Bytes128 = 1, Bytes64 = 2, Bytes32 = 3 };

/// A wgmma shared-memory matrix descriptor for a K-major tile at @p tile (1024-byte aligned):
/// rows of k values, grouped by eight; @p group_stride_bytes from one group of 8 rows to the next
/// (8 rows x 128 bytes = 1024 for a 128-byte swizzle), @p swizzle as the tile was written. To
/// step along k inside the swizzled row, add the byte offset >> 4 to the descriptor.
__device__ inline std::uint64_t smem_descriptor(const void* tile, std::uint32_t group_stride_bytes,
                                                Swizzle swizzle) {
  std::uint64_t d = 0;
  d |= static_cast<std::uint64_t>((shared_address(tile) & 0x3FFFF) >> 4);  // start address
  d |= std::uint64_t{1} << 16;  // leading byte offset: unused by swizzled K-major tiles
  d |= static_cast<std::uint64_t>((group_stride_bytes & 0x3FFFF) >> 4) << 32;
  d |= static_cast<std::uint64_t>(swizzle) << 62;
  return d;
}

/// `wgmma.fence.sync.aligned`: orders this warpgroup's register accesses to the accumulators
/// before the wgmma that follows. Needed before the first wgmma of a batch.
__device__ inline void wgmma_fence() {
  COURSE_SM90A_ASM("wgmma.fence.sync.aligned;\n" ::: "memory");
}

/// `wgmma.commit_group.sync.aligned`: closes the batch of wgmma issued so far into one group.
__device__ inline void wgmma_commit_group() {
  COURSE_SM90A_ASM("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/// `wgmma.wait_group.sync.aligned N`: waits until at most @p N groups are in flight; until then
/// neither the accumulators nor the shared memory those groups read may be touched.
template <int N>
__device__ inline void wgmma_wait_group() {
  COURSE_SM90A_ASM("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/// Keeps the compiler from moving reads or writes of @p d across this point: the asm above
/// cannot say that a wgmma in flight still writes the accumulators.
template <int N>
__device__ inline void fence_accumulators(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("" : "+f"(d[i])::"memory");
}

/// `wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16`: the warpgroup (128 threads) adds
/// a 64 x 16 tile of A times a 16 x 256 tile of B to its 64 x 256 FP32 accumulators, both tiles
/// read from shared memory through their descriptors (K-major: trans-a = trans-b = 0). Thread t
/// of the warpgroup (warp w = t / 32, lane l = 4 g + q) holds, for each n8 column block j,
/// d[4j..4j + 3] = C[16 w + g][8 j + 2 q], C[16 w + g][8 j + 2 q + 1], C[16 w + g + 8][8 j + 2 q],
/// C[16 w + g + 8][8 j + 2 q + 1]. Asynchronous: see wgmma_commit_group() and wgmma_wait_group().
__device__ inline void wgmma_m64n256k16(float (&d)[128], std::uint64_t desc_a,
                                        std::uint64_t desc_b) {
  COURSE_SM90A_ASM(
      "{\n"
      ".reg .pred scale_d;\n"
      "setp.ne.b32 scale_d, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, "
      "%127"
      "}, %128, %129, scale_d, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(1));  // scale-d = 1: d += a b
}

/// `setmaxnreg.inc/dec.sync.aligned.u32`: the warpgroup takes @p N registers per thread, from a
/// pool the others give back. The producer needs few; the consumers hold 128 accumulators each.
template <int N>
__device__ inline void setmaxnreg_increase() {
  COURSE_SM90A_ASM("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
/// `setmaxnreg.dec.sync.aligned.u32`: the warpgroup gives registers back, keeping @p N per thread.
template <int N>
__device__ inline void setmaxnreg_decrease() {
  COURSE_SM90A_ASM("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

// The wgmma rung's epilogue: C leaves through shared memory and the TMA, in boxes.

/// `bar.sync id, threads`: a barrier for the @p threads threads (a multiple of 32) that reach
/// named barrier @p id (1 ... 15; __syncthreads() is barrier 0). One warpgroup waits for its own
/// 128 threads while the others go on: a consumer's epilogue must not stop the producer or the
/// other consumer. (The instruction exists everywhere; only the sm_90a rung needs it.)
__device__ inline void named_barrier_sync(int id, int threads) {
  COURSE_SM90A_ASM("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/// `fence.proxy.async.shared::cta`: makes this thread's ordinary writes to shared memory visible
/// to the async proxy, through which the TMA reads. Every thread that wrote a box calls it before
/// the barrier after which one thread stores the box: the barrier alone orders the threads, not
/// the copy engine.
__device__ inline void fence_proxy_async_shared() {
  COURSE_SM90A_ASM("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/// The TMA store (`cp.async.bulk.tensor.2d`, shared to global, bulk-group completion): the TMA
/// copies the box at @p shared (1024-byte aligned, laid out with the map's swizzle) into the
/// tensor of @p map at column @p col, row @p row (in elements). Elements of the box outside the
/// tensor are not written. The thread goes on at once; the store joins its bulk group
/// (bulk_commit_group()), and its source may be written again only after bulk_wait_group_read().
/// One thread issues it.
__device__ inline void tma_store_2d(const CUtensorMap* map, const void* shared, int col, int row) {
  COURSE_SM90A_ASM(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
          reinterpret_cast<std::uint64_t>(map)),
      "r"(col), "r"(row), "r"(shared_address(shared))
      : "memory");
}

/// `cp.async.bulk.commit_group`: closes this thread's bulk copies (TMA stores) issued so far into
/// a group.
__device__ inline void bulk_commit_group() {
  COURSE_SM90A_ASM("cp.async.bulk.commit_group;\n" ::: "memory");
}

/// `cp.async.bulk.wait_group.read N`: waits until at most @p N of this thread's bulk groups are
/// still reading their shared memory; the buffers of the older ones may be written again. Their
/// writes to global memory may still be under way.
template <int N>
__device__ inline void bulk_wait_group_read() {
  COURSE_SM90A_ASM("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

/// `cp.async.bulk.wait_group N`: waits until at most @p N of this thread's bulk groups are in
/// flight at all: the older ones have read their shared memory and written global memory. With
/// N = 0 before the block ends, no store still reads shared memory that the block gives up.
template <int N>
__device__ inline void bulk_wait_group() {
  COURSE_SM90A_ASM("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

#undef COURSE_SM90A_ASM

/// A TMA descriptor (host side) for a row-major BF16 matrix of @p rows x @p cols at @p base,
/// copied in boxes of @p box_rows x @p box_cols elements, written to shared memory with
/// @p swizzle. The TMA needs @p base on a 16-byte boundary and rows of a multiple of 16 bytes
/// (multiply() sees to both). Elements outside rows x cols arrive as zeros. Throws
/// std::runtime_error when the driver refuses the description.
CUtensorMap tensor_map_2d(const __nv_bfloat16* base, std::uint64_t rows, std::uint64_t cols,
                          std::uint32_t box_rows, std::uint32_t box_cols,
                          CUtensorMapSwizzle swizzle);

/// A TMA descriptor (host side) for a row-major FP32 matrix of @p rows x @p cols at @p base, for
/// the TMA to store boxes of @p box_rows x @p box_cols elements into it from shared memory laid
/// out with @p swizzle (tma_store_2d()). The same 16-byte rules, which multiply() does not see to
/// for C: @p base on a 16-byte boundary and @p cols a multiple of 4; the caller checks both. The
/// elements of a box outside rows x cols are not stored. Throws std::runtime_error when the
/// driver refuses the description.
CUtensorMap tensor_map_2d(float* base, std::uint64_t rows, std::uint64_t cols,
                          std::uint32_t box_rows, std::uint32_t box_cols,
                          CUtensorMapSwizzle swizzle);

}  // namespace course::lesson12::ptx
