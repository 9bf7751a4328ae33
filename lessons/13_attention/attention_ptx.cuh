/// @file
/// @brief Lesson 13's instructions for the tensor-core rungs: mma.sync, ldmatrix and cp.async
/// for flash_mma; mbarriers, the TMA and wgmma for flash_wgmma; and the special-function unit's
/// 2^x for both. Given code, as lesson 12's tensor_cores_ptx.cuh is: the lesson is in how the
/// rungs use them. Every wrapper names its PTX instruction, so the PTX ISA manual and the SASS
/// (`cuobjdump -sass`) can be read beside it.
///
/// The wrappers that lessons 08 and 12 use too are the harness's (course/ptx.cuh); this header
/// names them in the lesson's namespace `ptx`, beside what is the lesson's own: the wgmma shapes
/// of S = Q K^T and O = P V, P's packing to BF16, 2^x, and the host's tensor maps of Q, K and V.
/// How the rungs use the shared ones:
///  - ldmatrix_x4 loads Q (the A operand of S = Q K^T) and K (its B operand: K's rows are the
///    columns of K^T, read along d as mma's .col wants them); ldmatrix_x4_trans loads V, the B
///    operand of O = P V, stored [key][d], where mma wants B's values adjacent along the key;
///  - mma_16816's accumulator layout of S over two n8 tiles is the A layout of P over one k16
///    step: P never leaves the registers (pack_bf16x2());
///  - fence_registers() keeps S, O and the P fragments of wgmma in flight where they are;
///  - named_barrier_sync() is not needed by the overlap of flash_wgmma's recipe: it is what a
///    step further takes, FlashAttention-3's ping-pong, where the two consumers take turns to
///    issue their wgmma, so that one's softmax always runs under the other's products.
///
/// Every wrapper compiles for any architecture: the Ampere ones (sm_80) trap below 8.0, the TMA
/// and mbarrier ones below 9.0; wgmma and setmaxnreg exist only where the code is compiled for
/// sm_90a (flash_wgmma.cu alone), and trap elsewhere. A rung the GPU cannot run never launches:
/// attention() asks unsupported() first.
#pragma once

#include <cuda.h>  // CUtensorMap
#include <cuda_bf16.h>

#include <cstdint>

#include "course/ptx.cuh"

namespace course::lesson13::ptx {

// The wrappers that more than one lesson uses (course/ptx.cuh), by their names here.
using namespace ::course::ptx;

/// Two floats rounded to BF16 (to nearest even) in one 32-bit register, @p low in the low half:
/// the element order of an mma fragment register (`cvt.rn.bf16x2.f32`).
__device__ inline std::uint32_t pack_bf16x2(float low, float high) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(low, high);
  return *reinterpret_cast<const std::uint32_t*>(&pair);
}

/// `ex2.approx.ftz.f32`: 2^x on the special-function unit (MUFU.EX2), relative error below
/// 2^-22; 2^-inf = +0, and results below 2^-126 flush to zero. exp2f() compiles to the same
/// instruction plus three more that keep such results subnormal: a softmax weight that small is
/// zero for every purpose, and at one call per score those three would take a good part of the
/// issue slots that the tensor cores leave free. Every architecture has it.
__device__ inline float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

/// `wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16`, both operands from shared memory
/// (K-major: trans-a = trans-b = 0): S = Q K^T for 64 rows of Q and 128 keys, one k16 step. The
/// warpgroup's 64 x 128 FP32 result lies as lesson 12's: thread t (warp w = t / 32, lane
/// l = 4 g + q) holds, for each n8 column block j, d[4j..4j + 3] = C[16 w + g][8 j + 2 q],
/// C[16 w + g][8 j + 2 q + 1], C[16 w + g + 8][8 j + 2 q], C[16 w + g + 8][8 j + 2 q + 1].
/// d = a b when @p accumulate is false (the first k16 step: no zeroing needed), d += a b
/// otherwise. Asynchronous: see wgmma_commit_group() and wgmma_wait_group().
__device__ inline void wgmma_m64n128k16_ss(float (&d)[64], std::uint64_t desc_a,
                                           std::uint64_t desc_b, bool accumulate) {
  COURSE_SM90A_ASM(
      "{\n"
      ".reg .pred scale_d;\n"
      "setp.ne.b32 scale_d, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
      "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
      "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "
      "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, scale_d, 1, 1, 0, 0;\n"
      "}\n"
      : COURSE_PTX_F8(d, 0), COURSE_PTX_F8(d, 8), COURSE_PTX_F8(d, 16), COURSE_PTX_F8(d, 24),
        COURSE_PTX_F8(d, 32), COURSE_PTX_F8(d, 40), COURSE_PTX_F8(d, 48), COURSE_PTX_F8(d, 56)
      : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)));
}

/// `wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16` with A from registers: O += P V for
/// 64 rows and 128 columns of O (d = 128), one k16 step of keys. @p a holds the thread's four
/// registers of A, per warp mma.sync's m16n8k16 A layout on rows 16 w .. 16 w + 15:
/// {A[16 w + g][2q..], A[16 w + g + 8][2q..], A[16 w + g][2q + 8..], A[16 w + g + 8][2q + 8..]}.
/// That is where an m64nN accumulator's n8 blocks 2 kk and 2 kk + 1 already lie: P never leaves
/// the registers. B is MN-major (trans-b = 1): V stored [key][d], d contiguous. d += a b.
__device__ inline void wgmma_m64n128k16_rs(float (&d)[64], const std::uint32_t (&a)[4],
                                           std::uint64_t desc_b) {
  COURSE_SM90A_ASM(
      "{\n"
      ".reg .pred scale_d;\n"
      "setp.ne.b32 scale_d, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
      "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
      "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "
      "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, {%64, %65, %66, %67}, %68, scale_d, 1, 1, 1;\n"
      "}\n"
      : COURSE_PTX_F8(d, 0), COURSE_PTX_F8(d, 8), COURSE_PTX_F8(d, 16), COURSE_PTX_F8(d, 24),
        COURSE_PTX_F8(d, 32), COURSE_PTX_F8(d, 40), COURSE_PTX_F8(d, 48), COURSE_PTX_F8(d, 56)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));  // d += a b
}

/// As wgmma_m64n128k16_rs(), for 64 columns of O (d = 64): `wgmma...m64n64k16` with A from
/// registers and B MN-major. d += a b.
__device__ inline void wgmma_m64n64k16_rs(float (&d)[32], const std::uint32_t (&a)[4],
                                          std::uint64_t desc_b) {
  COURSE_SM90A_ASM(
      "{\n"
      ".reg .pred scale_d;\n"
      "setp.ne.b32 scale_d, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
      "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, {%32, %33, %34, %35}, %36, scale_d, 1, 1, 1;\n"
      "}\n"
      : COURSE_PTX_F8(d, 0), COURSE_PTX_F8(d, 8), COURSE_PTX_F8(d, 16), COURSE_PTX_F8(d, 24)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));  // d += a b
}

/// A TMA descriptor (host side) for Q, K or V as attention() takes them: @p heads x @p rows x
/// @p cols BF16 values at @p base, row-major ([head][row][col]), copied in boxes of one head,
/// @p box_rows rows and @p box_cols columns (at most 128 bytes of a row with a 128-byte swizzle:
/// 64 values, so a row of d = 128 takes two boxes), written to shared memory with @p swizzle.
/// Rows past the end of a head arrive as zeros, never as the next head's. The TMA needs @p base
/// on a 16-byte boundary and rows of a multiple of 16 bytes (attention() sees to both). Encoded
/// by course::encode_tensor_map(), which throws std::invalid_argument for a description the TMA
/// cannot take and std::runtime_error when the driver refuses it.
CUtensorMap tensor_map_3d(const __nv_bfloat16* base, std::uint64_t heads, std::uint64_t rows,
                          std::uint64_t cols, std::uint32_t box_rows, std::uint32_t box_cols,
                          CUtensorMapSwizzle swizzle);

}  // namespace course::lesson13::ptx
