// Lesson 08, given: the tensor map of a grid for the `tuned` rung's TMA (stencil_tma.cuh).
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <stdexcept>
#include <string>

#include "course/error.hpp"
#include "stencil_tma.cuh"

namespace course::lesson08 {

CUtensorMap ptx::tensor_map_3d(const float* base, Grid grid, int box_x, int box_y) {
  // The driver's encoder, found through the runtime: no link against libcuda.
  static const auto encode = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000,
                                                cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || function == nullptr)
      throw std::runtime_error("tensor_map_3d: the driver has no cuTensorMapEncodeTiled");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  CUtensorMap map{};
  const cuuint64_t row_bytes = static_cast<cuuint64_t>(grid.nx) * sizeof(float);
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(grid.nx), static_cast<cuuint64_t>(grid.ny),
                              static_cast<cuuint64_t>(grid.nz)};   // innermost first
  const cuuint64_t strides[2] = {row_bytes, row_bytes * grid.ny};  // bytes to the next y, z
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(box_x), static_cast<cuuint32_t>(box_y), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  // OOB_FILL_NONE: elements outside the grid arrive as zeros (not NaN). L2 promotion of 256 B:
  // the setting the benchmark behind the rung was measured with.
  const CUresult result =
      encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, const_cast<float*>(base), dims, strides, box,
             element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    throw std::runtime_error("tensor_map_3d: cuTensorMapEncodeTiled refused a " +
                             std::to_string(grid.nx) + " x " + std::to_string(grid.ny) + " x " +
                             std::to_string(grid.nz) + " grid in boxes of " +
                             std::to_string(box_x) + " x " + std::to_string(box_y) + " (error " +
                             std::to_string(static_cast<int>(result)) + ")");
  return map;
}

}  // namespace course::lesson08
