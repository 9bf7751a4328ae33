// Lesson 07, the stretch rungs solved: a separable filter in two passes through shared memory,
// and a general filter with a column of outputs per thread, reaching for the copy ceiling.
// Both kernels take the radius as a template parameter, so that every loop over the filter is
// unrolled and every weight's address in constant memory is known at compile time.
#include <type_traits>

#include "convolution_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson07 {

// This file's own copies of the filter in constant memory (a __constant__ variable belongs to the
// file that defines it; convolution.cu has its own c_filter).
__constant__ float c_stretch_filter[kMaxTaps];            ///< register_coarsened: all weights
__constant__ float c_stretch_column[2 * kMaxRadius + 1];  ///< separable: weights down a column
__constant__ float c_stretch_row[2 * kMaxRadius + 1];     ///< separable: weights along a row

namespace {

constexpr int kThreads = 256;  // threads per block of both kernels

// Calls launch(std::integral_constant<int, R>{}) for R = radius: one compiled kernel per radius.
template <class Launch>
void with_radius(int radius, Launch&& launch) {
  switch (radius) {
    case 1:
      return launch(std::integral_constant<int, 1>{});
    case 2:
      return launch(std::integral_constant<int, 2>{});
    case 3:
      return launch(std::integral_constant<int, 3>{});
    case 4:
      return launch(std::integral_constant<int, 4>{});
    case 5:
      return launch(std::integral_constant<int, 5>{});
    case 6:
      return launch(std::integral_constant<int, 6>{});
    case 7:
      return launch(std::integral_constant<int, 7>{});
  }
  throw std::invalid_argument(radius_range_message("convolve"));
}

//! [separable_kernel]
// A separable filter w[i][j] = column[i] * row[j] costs 2 (2r + 1) multiply-adds per output in two
// passes instead of (2r + 1)^2 in one. Both passes run in one block, through shared memory, so
// the intermediate image never goes to global memory (NVIDIA's convolutionSeparable sample writes
// it out and reads it back: twice the traffic). The block loads its 64 x 32 output tile with a
// halo of R on every side (one coalesced pass, 0 for ghost cells); the row pass filters every row
// of it, halo rows included, along x; the column pass filters that result along y. A warp's 32
// threads always touch 32 consecutive floats of one shared row: no bank conflicts.
constexpr int kSepTileW = 64;
constexpr int kSepTileH = 32;

template <int R>
__global__ void __launch_bounds__(kThreads)
    separable_kernel(const float* __restrict__ in, float* __restrict__ out, int width, int height) {
  constexpr int kSide = 2 * R + 1;
  constexpr int kInW = kSepTileW + 2 * R;
  constexpr int kInH = kSepTileH + 2 * R;
  __shared__ float tile[kInH][kInW];           // the input tile and its halo
  __shared__ float row_pass[kInH][kSepTileW];  // after the row pass: halo rows, no halo columns
  const int x0 = blockIdx.x * kSepTileW;
  const int y0 = blockIdx.y * kSepTileH;

  for (int i = threadIdx.x; i < kInH * kInW; i += kThreads) {
    const int y = y0 - R + i / kInW;
    const int x = x0 - R + i % kInW;
    tile[i / kInW][i % kInW] =
        y >= 0 && y < height && x >= 0 && x < width ? in[at(y, x, width)] : 0.0f;
  }
  __syncthreads();  // the row pass reads its neighbours' pixels

  // A ghost row is all zeros, and so is its row pass: the column pass needs nothing special.
  for (int i = threadIdx.x; i < kInH * kSepTileW; i += kThreads) {
    const int r = i / kSepTileW, c = i % kSepTileW;
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < kSide; ++j)
      sum += c_stretch_row[j] * tile[r][c + j];
    row_pass[r][c] = sum;
  }
  __syncthreads();  // the column pass reads rows that other warps filtered

  for (int i = threadIdx.x; i < kSepTileH * kSepTileW; i += kThreads) {
    const int r = i / kSepTileW, c = i % kSepTileW;
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < kSide; ++j)
      sum += c_stretch_column[j] * row_pass[r + j][c];
    if (y0 + r < height && x0 + c < width)
      out[at(y0 + r, x0 + c, width)] = sum;
  }
}
//! [separable_kernel]

//! [register_coarsened_kernel]
// The general filter at the speed of a copy. Two things keep the one-output-per-thread rungs
// below it: too few loads in flight per thread, and (2r + 1)^2 shared-memory reads per output,
// as many as the multiply-adds. Here a block of 64 x 4 threads computes a 64 x 64 output tile:
//  * It loads the tile and its halo ((64 + 2R)^2 floats, ~18 per thread at R = 2) into registers
//    first, every load issued before any is used, then stores them to shared memory: many bytes
//    in flight per thread, and coalesced (consecutive threads, consecutive addresses).
//  * Each thread then computes a strip of 16 outputs down one column. It reads each input row
//    of its window once, 2R + 1 floats into registers, and adds that row into each of the up to
//    2R + 1 outputs it belongs to (filter row i - k for output k). Shared reads per output drop
//    from (2R + 1)^2 to (16 + 2R)(2R + 1) / 16 (6.25 at R = 2), and the weights come from
//    constant memory as operands of the multiply-adds.
constexpr int kRegTileW = 64;                            // output columns = threads along x
constexpr int kRegThreadRows = 4;                        // threads along y
constexpr int kRegOutputs = 16;                          // outputs per thread, one column
constexpr int kRegTileH = kRegThreadRows * kRegOutputs;  // output rows per block
static_assert(kRegTileW * kRegThreadRows == kThreads);

template <int R>
__global__ void __launch_bounds__(kThreads)
    register_coarsened_kernel(const float* __restrict__ in, float* __restrict__ out, int width,
                              int height) {
  constexpr int kSide = 2 * R + 1;
  constexpr int kInW = kRegTileW + 2 * R;
  constexpr int kInH = kRegTileH + 2 * R;
  constexpr int kLoads = (kInH * kInW + kThreads - 1) / kThreads;
  __shared__ float tile[kInH][kInW];
  const int tid = threadIdx.y * kRegTileW + threadIdx.x;
  const int x0 = blockIdx.x * kRegTileW;
  const int y0 = blockIdx.y * kRegTileH;

  float staged[kLoads];
#pragma unroll
  for (int k = 0; k < kLoads; ++k) {
    const int i = tid + k * kThreads;  // flat index into the tile
    const int y = y0 - R + i / kInW;
    const int x = x0 - R + i % kInW;
    const bool inside = i < kInH * kInW && y >= 0 && y < height && x >= 0 && x < width;
    staged[k] = inside ? in[at(y, x, width)] : 0.0f;
  }
#pragma unroll
  for (int k = 0; k < kLoads; ++k) {
    const int i = tid + k * kThreads;
    if (i < kInH * kInW)
      tile[i / kInW][i % kInW] = staged[k];
  }
  __syncthreads();  // the windows reach into pixels other threads loaded

  //! [register_coarsened_strip]
  const int col = threadIdx.x;                  // tile column of this thread's outputs
  const int first = threadIdx.y * kRegOutputs;  // tile row of its first output
  float acc[kRegOutputs];
#pragma unroll
  for (int k = 0; k < kRegOutputs; ++k)
    acc[k] = 0.0f;
    // Input row first + i feeds output k through filter row i - k. Everything is unrolled, so the
    // test below is decided at compile time and acc[] stays in registers.
#pragma unroll
  for (int i = 0; i < kRegOutputs + 2 * R; ++i) {
    float v[kSide];
#pragma unroll
    for (int j = 0; j < kSide; ++j)
      v[j] = tile[first + i][col + j];
#pragma unroll
    for (int k = 0; k < kRegOutputs; ++k) {
      if (i - k >= 0 && i - k < kSide) {
#pragma unroll
        for (int j = 0; j < kSide; ++j)
          acc[k] += c_stretch_filter[(i - k) * kSide + j] * v[j];
      }
    }
  }
  //! [register_coarsened_strip]
  const int x = x0 + col;
#pragma unroll
  for (int k = 0; k < kRegOutputs; ++k) {
    const int y = y0 + first + k;
    if (y < height && x < width)
      out[at(y, x, width)] = acc[k];
  }
}
//! [register_coarsened_kernel]

}  // namespace

void launch_separable(const float* d_in, float* d_out, int width, int height, const Filter& filter,
                      cudaStream_t stream) {
  const std::size_t bytes = filter.row.size() * sizeof(float);
  CUDA_CHECK(cudaMemcpyToSymbolAsync(c_stretch_column, filter.column.data(), bytes, 0,
                                     cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyToSymbolAsync(c_stretch_row, filter.row.data(), bytes, 0,
                                     cudaMemcpyHostToDevice, stream));
  const dim3 grid((width + kSepTileW - 1) / kSepTileW, (height + kSepTileH - 1) / kSepTileH);
  with_radius(filter.radius, [&](auto radius) {
    separable_kernel<decltype(radius)::value>
        <<<grid, kThreads, 0, stream>>>(d_in, d_out, width, height);
  });
  CUDA_CHECK_LAST();
}

void launch_register_coarsened(const float* d_in, float* d_out, int width, int height,
                               const Filter& filter, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyToSymbolAsync(c_stretch_filter, filter.weights.data(),
                                     filter.weights.size() * sizeof(float), 0,
                                     cudaMemcpyHostToDevice, stream));
  const dim3 grid((width + kRegTileW - 1) / kRegTileW, (height + kRegTileH - 1) / kRegTileH);
  with_radius(filter.radius, [&](auto radius) {
    register_coarsened_kernel<decltype(radius)::value>
        <<<grid, dim3(kRegTileW, kRegThreadRows), 0, stream>>>(d_in, d_out, width, height);
  });
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson07
