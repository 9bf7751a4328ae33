// The TMA's tensor maps (course/tensor_map.hpp): the TMA's rules checked, then the driver's
// encoder, found through the runtime.
#include "course/tensor_map.hpp"

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled, PFN_cuGetErrorName
#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

#include "course/error.hpp"

namespace course {

namespace {

constexpr std::uint64_t kMaxExtent = std::uint64_t{1} << 32;
constexpr std::uint64_t kMaxStride = std::uint64_t{1} << 40;
constexpr std::uint32_t kMaxBox = 256;

struct ElementType {
  const char* name = nullptr;  // null: not a type of a fixed element size
  std::size_t bytes = 0;
};

ElementType element_type(CUtensorMapDataType type) {
  switch (type) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8:
      return {"UINT8", 1};
    case CU_TENSOR_MAP_DATA_TYPE_UINT16:
      return {"UINT16", 2};
    case CU_TENSOR_MAP_DATA_TYPE_UINT32:
      return {"UINT32", 4};
    case CU_TENSOR_MAP_DATA_TYPE_INT32:
      return {"INT32", 4};
    case CU_TENSOR_MAP_DATA_TYPE_UINT64:
      return {"UINT64", 8};
    case CU_TENSOR_MAP_DATA_TYPE_INT64:
      return {"INT64", 8};
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
      return {"FLOAT16", 2};
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
      return {"FLOAT32", 4};
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64:
      return {"FLOAT64", 8};
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16:
      return {"BFLOAT16", 2};
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
      return {"FLOAT32_FTZ", 4};
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
      return {"TFLOAT32", 4};
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ:
      return {"TFLOAT32_FTZ", 4};
    default:
      return {};
  }
}

// The span a swizzle permutes 16-byte chunks within, or 0 where none is checked here (no
// swizzle, or the newer modes, which the driver checks itself).
std::uint32_t swizzle_bytes(CUtensorMapSwizzle swizzle) {
  switch (swizzle) {
    case CU_TENSOR_MAP_SWIZZLE_32B:
      return 32;
    case CU_TENSOR_MAP_SWIZZLE_64B:
      return 64;
    case CU_TENSOR_MAP_SWIZZLE_128B:
      return 128;
    default:
      return 0;
  }
}

template <class T>
std::string extents_text(std::span<const T> values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i ? " x " : "") + std::to_string(values[i]);
  return text;
}

// "a 3D BFLOAT16 tensor of 64 x 1000 x 8 elements (innermost first) in boxes of 64 x 128 x 1,
// 128-byte swizzle": what every message names.
std::string description(const char* type_name, std::span<const std::uint64_t> extents,
                        std::span<const std::uint32_t> box, CUtensorMapSwizzle swizzle) {
  const std::uint32_t span = swizzle_bytes(swizzle);
  return "a " + std::to_string(extents.size()) + "D " + type_name + " tensor of " +
         extents_text(extents) + " elements (innermost first) in boxes of " + extents_text(box) +
         (swizzle == CU_TENSOR_MAP_SWIZZLE_NONE ? std::string(", no swizzle")
          : span                                ? ", " + std::to_string(span) + "-byte swizzle"
                 : ", swizzle mode " + std::to_string(static_cast<int>(swizzle)));
}

// The driver's name of @p result ("CUDA_ERROR_INVALID_VALUE"), or its number.
std::string driver_error_text(CUresult result) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  const char* name = nullptr;
  if (cudaGetDriverEntryPointByVersion("cuGetErrorName", &function, 6000, cudaEnableDefault,
                                       &found) == cudaSuccess &&
      found == cudaDriverEntryPointSuccess && function != nullptr &&
      reinterpret_cast<PFN_cuGetErrorName_v6000>(function)(result, &name) == CUDA_SUCCESS &&
      name != nullptr)
    return std::string(name) + ", error " + std::to_string(static_cast<int>(result));
  return "error " + std::to_string(static_cast<int>(result));
}

}  // namespace

CUtensorMap encode_tensor_map(const void* base, CUtensorMapDataType type,
                              std::initializer_list<std::uint64_t> extents_list,
                              std::initializer_list<std::uint32_t> box_list,
                              CUtensorMapSwizzle swizzle, CUtensorMapL2promotion promotion) {
  const ElementType element = element_type(type);
  if (element.name == nullptr)
    throw std::invalid_argument("encode_tensor_map: element type " +
                                std::to_string(static_cast<int>(type)) +
                                " is not one of a fixed element size (FLOAT32, BFLOAT16, FLOAT16, "
                                "the integers)");
  const std::span<const std::uint64_t> extents(extents_list.begin(), extents_list.size());
  const std::span<const std::uint32_t> box(box_list.begin(), box_list.size());
  if (extents.empty() || extents.size() > 5)
    throw std::invalid_argument("encode_tensor_map: a tensor map has 1 to 5 dimensions (" +
                                std::to_string(extents.size()) + " extents given)");
  if (box.size() != extents.size())
    throw std::invalid_argument("encode_tensor_map: the box needs one extent per dimension (" +
                                std::to_string(box.size()) + " for " +
                                std::to_string(extents.size()) + ")");
  // The messages are made only on failure: a launcher may encode a map at every call.
  const auto fail = [&](const std::string& rule) {
    throw std::invalid_argument("encode_tensor_map: " + rule + ", for " +
                                description(element.name, extents, box, swizzle));
  };
  if (base == nullptr)
    fail("the base address is null");
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0)
    fail("the TMA needs the base address on a 16-byte boundary");
  const std::size_t rank = extents.size();
  cuuint64_t dims[5] = {};
  cuuint64_t strides[4] = {};  // in bytes, from one row (plane, ...) to the next
  cuuint32_t boxes[5] = {};
  cuuint32_t element_strides[5] = {};
  std::uint64_t stride = element.bytes;
  for (std::size_t i = 0; i < rank; ++i) {
    if (extents[i] < 1 || extents[i] > kMaxExtent)
      fail("every extent must be from 1 to 2^32");
    if (box[i] < 1 || box[i] > kMaxBox)
      fail("every box extent must be from 1 to 256");
    if (i > 0) {
      if (stride % 16 != 0)
        fail("the TMA needs rows of a multiple of 16 bytes (dimension " + std::to_string(i) +
             " starts every " + std::to_string(stride) + " bytes)");
      if (stride >= kMaxStride)
        fail("a stride must be under 2^40 bytes");
      strides[i - 1] = stride;
    }
    stride *= extents[i];
    dims[i] = extents[i];
    boxes[i] = box[i];
    element_strides[i] = 1;
  }
  const std::uint64_t box_row_bytes = std::uint64_t{box[0]} * element.bytes;
  if (box_row_bytes % 16 != 0)
    fail("the TMA needs the box's innermost extent a multiple of 16 bytes (it is " +
         std::to_string(box_row_bytes) + ")");
  const std::uint32_t span = swizzle_bytes(swizzle);
  if (span != 0 && box_row_bytes > span)
    fail("a " + std::to_string(span) + "-byte swizzle takes boxes of at most " +
         std::to_string(span) + " bytes along the innermost dimension (it is " +
         std::to_string(box_row_bytes) + ")");

  static const auto encode = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000,
                                                cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || function == nullptr)
      throw std::runtime_error(
          "encode_tensor_map: the driver has no cuTensorMapEncodeTiled (it needs a driver for "
          "CUDA 12.0 or later)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  CUtensorMap map{};
  // The encoder takes a non-const pointer, for the maps that stores write through.
  const CUresult result =
      encode(&map, type, static_cast<cuuint32_t>(rank), const_cast<void*>(base), dims, strides,
             boxes, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, promotion,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    throw std::runtime_error("encode_tensor_map: cuTensorMapEncodeTiled refused " +
                             description(element.name, extents, box, swizzle) + " (" +
                             driver_error_text(result) + ")");
  return map;
}

}  // namespace course
