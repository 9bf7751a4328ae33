/// @file
/// @brief Lesson 12's instructions: the tensor cores' PTX and the copy engines that feed them.
/// Given code: the lesson is in how the rungs use them (which thread calls what, with which
/// addresses, in which order), not in the asm syntax. Every wrapper names its PTX instruction,
/// so the PTX ISA manual and the SASS (`cuobjdump -sass`) can be read beside it.
///
/// The wrappers that lessons 08 and 13 use too are the harness's (course/ptx.cuh): mma.sync,
/// ldmatrix and cp.async; the mbarriers, the TMA's loads and stores, wgmma's fences and
/// descriptors, setmaxnreg. This header names them in the lesson's namespace `ptx`, beside what
/// is the lesson's own: the m64n256k16 wgmma and the host's tensor maps of A, B and C.
///
/// Every wrapper compiles for any architecture: the Ampere ones (sm_80) trap below 8.0, the TMA
/// and mbarrier ones below 9.0; wgmma and setmaxnreg exist only where the code is compiled for
/// sm_90a (wgmma.cu alone), and trap elsewhere. A rung the GPU cannot run never launches:
/// multiply() asks unsupported() first.
#pragma once

#include <cuda.h>  // CUtensorMap
#include <cuda_bf16.h>

#include <cstdint>

#include "course/ptx.cuh"

namespace course::lesson12::ptx {

// The wrappers that more than one lesson uses (course/ptx.cuh), by their names here.
using namespace ::course::ptx;

/// Keeps the compiler from moving reads or writes of the accumulators @p d across this point
/// (course::ptx::fence_registers()): the asm of a wgmma cannot say that a wgmma in flight still
/// writes them.
template <int N>
__device__ inline void fence_accumulators(float (&d)[N]) {
  ::course::ptx::fence_registers(d);
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
      : COURSE_PTX_F8(d, 0), COURSE_PTX_F8(d, 8), COURSE_PTX_F8(d, 16), COURSE_PTX_F8(d, 24),
        COURSE_PTX_F8(d, 32), COURSE_PTX_F8(d, 40), COURSE_PTX_F8(d, 48), COURSE_PTX_F8(d, 56),
        COURSE_PTX_F8(d, 64), COURSE_PTX_F8(d, 72), COURSE_PTX_F8(d, 80), COURSE_PTX_F8(d, 88),
        COURSE_PTX_F8(d, 96), COURSE_PTX_F8(d, 104), COURSE_PTX_F8(d, 112), COURSE_PTX_F8(d, 120)
      : "l"(desc_a), "l"(desc_b), "r"(1));  // scale-d = 1: d += a b
}

/// A TMA descriptor (host side) for a row-major BF16 matrix of @p rows x @p cols at @p base,
/// copied in boxes of @p box_rows x @p box_cols elements, written to shared memory with
/// @p swizzle. The TMA needs @p base on a 16-byte boundary and rows of a multiple of 16 bytes
/// (multiply() sees to both). Elements outside rows x cols arrive as zeros. Encoded by
/// course::encode_tensor_map(), which throws std::invalid_argument for a description the TMA
/// cannot take and std::runtime_error when the driver refuses it.
CUtensorMap tensor_map_2d(const __nv_bfloat16* base, std::uint64_t rows, std::uint64_t cols,
                          std::uint32_t box_rows, std::uint32_t box_cols,
                          CUtensorMapSwizzle swizzle);

/// A TMA descriptor (host side) for a row-major FP32 matrix of @p rows x @p cols at @p base, for
/// the TMA to store boxes of @p box_rows x @p box_cols elements into it from shared memory laid
/// out with @p swizzle (tma_store_2d()). The same 16-byte rules, which multiply() does not see to
/// for C: @p base on a 16-byte boundary and @p cols a multiple of 4; the caller checks both. The
/// elements of a box outside rows x cols are not stored. Throws as the BF16 overload does.
CUtensorMap tensor_map_2d(float* base, std::uint64_t rows, std::uint64_t cols,
                          std::uint32_t box_rows, std::uint32_t box_cols,
                          CUtensorMapSwizzle swizzle);

}  // namespace course::lesson12::ptx
