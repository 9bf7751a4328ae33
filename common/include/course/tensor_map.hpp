/// @file
/// @brief The TMA's description of a tensor in global memory (a tensor map), encoded on the host
/// for the rungs that copy with the TMA (course/ptx.cuh: tma_load_2d(), tma_load_3d(),
/// tma_store_2d()).
///
/// The TMA copies a box of a tensor between global and shared memory in one instruction: the
/// kernel names only the box's coordinates, and the map, made once on the host and passed to the
/// kernel as a `const __grid_constant__ CUtensorMap`, holds the rest (where the tensor is, its
/// extents and strides, the box, the swizzle). The driver's cuTensorMapEncodeTiled makes it,
/// reached through the CUDA runtime (cudaGetDriverEntryPointByVersion), so that nothing links
/// against libcuda. A lesson's own function (e.g. lesson 12's ptx::tensor_map_2d) says the
/// lesson's shapes in the lesson's words and calls this one.
#pragma once

#include <cuda.h>  // CUtensorMap and its enums

#include <cstdint>
#include <initializer_list>

namespace course {

/// A tensor map of the dense tensor at @p base: elements of @p type, @p extents elements along
/// each dimension, innermost (contiguous) first, with no gap between rows or planes (a row-major
/// rows x cols matrix is {cols, rows}; a grid is {nx, ny, nz}). The TMA copies it in boxes of
/// @p box elements, in the same order, written to shared memory with @p swizzle (a load) or read
/// from it so laid out (a store). Elements of a box outside the tensor arrive as zeros, never as
/// the next row's or plane's, and a store does not write them. @p promotion is a hint: how much
/// the L2 cache fetches from memory at once for the loads through the map.
///
/// The TMA's rules, checked here first so that a mistake is named: 1 to 5 dimensions, as many
/// box extents as tensor extents; @p base not null, on a 16-byte boundary; extents from 1 to
/// 2^32; each row (and plane) a multiple of 16 bytes long, under 2^40 bytes; box extents from
/// 1 to 256; the box's innermost extent a multiple of 16 bytes and, with a 32, 64 or 128-byte
/// swizzle, at most that many bytes. @p type: the types of a fixed element size (FLOAT32,
/// BFLOAT16, FLOAT16, the integers; not the packed 4 and 6-bit ones).
///
/// About a microsecond of host time; the map holds the tensor's address and extents, none of its
/// values, so a launcher may keep it for the same pointer and shape.
/// @throws std::invalid_argument naming the rule that the description breaks.
/// @throws std::runtime_error when the driver has no encoder, or refuses the description (the
/// message describes the tensor and names the driver's error).
/// @throws course::CudaError when the runtime cannot look the encoder up.
[[nodiscard]] CUtensorMap encode_tensor_map(const void* base, CUtensorMapDataType type,
                                            std::initializer_list<std::uint64_t> extents,
                                            std::initializer_list<std::uint32_t> box,
                                            CUtensorMapSwizzle swizzle,
                                            CUtensorMapL2promotion promotion);

}  // namespace course
