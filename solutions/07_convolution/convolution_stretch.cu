// Lesson 07, the stretch rungs solved: a separable filter in two passes through shared memory,
// and a general filter with a column of outputs per thread, reaching for the copy ceiling.
// Both kernels take the radius as a template parameter, so that every loop over the filter is
// unrolled and every weight's address in constant memory is known at compile time.
#include <cuda_pipeline.h>

#include <cstdint>
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

constexpr int kThreads = 256;  // threads per block of the separable kernel

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
// The general filter at the speed of a copy. What keeps the one-output-per-thread rungs below it:
// too few loads in flight per thread, (2r + 1)^2 shared-memory reads per output (as many as the
// multiply-adds), and a block that first loads and then computes, so that its SM's memory and
// arithmetic take turns instead of overlapping. Here every thread owns four adjacent columns
// (one float4) and walks down kChunkRows output rows of them, as lesson 08's threads walk
// along z:
//  * Each input row is added, once, into the 2r + 1 output rows it belongs to. Input row t of
//    the walk feeds output rows t - 2r ... t through filter rows 2r ... 0, so 2r + 1 float4
//    accumulators are live; output row t - 2r is complete after row t and is stored. The
//    accumulators form a ring indexed by t mod (2r + 1): unrolling the walk 2r + 1 steps at a
//    time makes every index a compile-time constant, so the ring stays in registers.
//  * The horizontal window comes from the neighbouring lanes. A thread needs r columns left and
//    right of its four; the lanes holding them hand them over with __shfl_up_sync and
//    __shfl_down_sync. Only the warp's edge lanes take them from memory.
//  * Input rows arrive by asynchronous copies (cp.async through __pipeline_memcpy_async) into a
//    ring of kStages rows per warp in shared memory, kStages - 1 rows ahead of the arithmetic.
//    The bytes in flight cost no registers, so that many warps stay resident, and there is no
//    block barrier: each thread reads back the four floats it copied itself, and a
//    __syncwarp() covers the few edge columns other lanes copied. (On an H200, keeping the rows
//    in flight in registers instead reached 64.6 % of copy at 79 registers a thread, 70.5 % when
//    held to 64; this reaches 83 % there, and about four fifths on the H100 of slides/results.)
// Reads per output: one input float from DRAM (plus 2r / kChunkRows rows of vertical halo, from
// L2), one from shared memory; the (2r + 1)^2 weights are operands of the multiply-adds.
constexpr int kCoarseWarps = 4;                    // warps per block, side by side along x
constexpr int kCoarseThreads = 32 * kCoarseWarps;  // 128 threads
constexpr int kChunkRows = 32;                     // output rows a warp walks down
constexpr int kStages = 6;                         // input rows in a warp's ring
constexpr int kPad = 8;  // ring columns left and right of the warp's (>= kMaxRadius, 16 bytes)
constexpr unsigned kFullWarp = 0xffffffffu;
static_assert(kPad >= kMaxRadius && kPad % 4 == 0);

// The strip a thread owns at radius R: four columns (one float4) up to r = 3, two (a float2)
// beyond, where 2r + 1 accumulators of four columns would no longer fit in registers (at r = 7,
// four columns took 255 registers and spilled; the instructors' notes record that two still
// take 255, which leaves 8 warps per SM).
template <int R>
struct Strip {
  static constexpr int kCols = R <= 3 ? 4 : 2;              // output columns per thread
  static constexpr int kWarpCols = 32 * kCols;              // columns per warp
  static constexpr int kRingRow = kPad + kWarpCols + kPad;  // floats per input row in the ring
};

// The kCols floats at p (16- or 8-byte aligned) as one load or store.
template <int kCols>
__device__ void load_cols(const float* p, float (&v)[kCols]) {
  if constexpr (kCols == 4) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else {
    const float2 q = *reinterpret_cast<const float2*>(p);
    v[0] = q.x, v[1] = q.y;
  }
}
template <int kCols>
__device__ void store_cols(float* p, const float (&v)[kCols]) {
  if constexpr (kCols == 4)
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  else
    *reinterpret_cast<float2*>(p) = make_float2(v[0], v[1]);
}

// Starts copying input row `row` into `slot` (one row of the warp's ring) without waiting for
// it: each thread its own kCols columns, lanes 0 ... R - 1 and 31 ... 32 - R one column beyond
// the warp's left and right edge each. Ghost cells are written as 0 directly.
template <int R, bool kVector>
__device__ void stage_row(float* slot, const float* __restrict__ in, int row, int warp_x0, int lane,
                          int width, int height) {
  constexpr int kCols = Strip<R>::kCols;
  const bool row_ok = row >= 0 && row < height;
  const int x = warp_x0 + kCols * lane;
  float* const mine = slot + kPad + kCols * lane;
  if constexpr (kVector) {
    if (row_ok && x < width)
      __pipeline_memcpy_async(mine, in + at(row, x, width), 4 * kCols);
    else
      store_cols<kCols>(mine, {});
  } else {
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      if (row_ok && x + c < width)
        __pipeline_memcpy_async(mine + c, in + at(row, x + c, width), 4);
      else
        mine[c] = 0.0f;
    }
  }
  const int beyond = lane < R ? lane : 31 - lane;  // 0 ... R - 1 columns out from the edge
  if (lane < R || lane >= 32 - R) {
    constexpr int kWarpCols = Strip<R>::kWarpCols;
    const int col = lane < R ? warp_x0 - 1 - beyond : warp_x0 + kWarpCols + beyond;
    float* const dst = slot + (lane < R ? kPad - 1 - beyond : kPad + kWarpCols + beyond);
    if (row_ok && col >= 0 && col < width)
      __pipeline_memcpy_async(dst, in + at(row, col, width), 4);
    else
      *dst = 0.0f;
  }
}

template <int R, bool kVector>
__global__ void __launch_bounds__(kCoarseThreads)
    register_coarsened_kernel(const float* __restrict__ in, float* __restrict__ out, int width,
                              int height) {
  constexpr int kSide = 2 * R + 1;
  constexpr int kCols = Strip<R>::kCols;
  constexpr int kWindow = kCols + 2 * R;  // input columns one step reads
  __shared__ __align__(16) float rings[kCoarseWarps][kStages][Strip<R>::kRingRow];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int warp_x0 = (blockIdx.x * kCoarseWarps + warp) * Strip<R>::kWarpCols;
  if (warp_x0 >= width)
    return;  // the whole warp is right of the image (no barrier waits for it)
  const int x = warp_x0 + kCols * lane;
  const int y0 = blockIdx.y * kChunkRows;
  // Input rows y0 - R ... : 2R rows of warm-up, then one finished output row per step.
  const int steps = min(kChunkRows, height - y0) + 2 * R;
  float(*ring)[Strip<R>::kRingRow] = rings[warp];

  // Rows 0 ... kStages - 2 in flight before the first step; one group of copies per row.
#pragma unroll
  for (int t = 0; t < kStages - 1; ++t) {
    if (t < steps)
      stage_row<R, kVector>(ring[t], in, y0 - R + t, warp_x0, lane, width, height);
    __pipeline_commit();
  }
  float acc[kSide][kCols] = {};
  int slot = 0;  // the ring row of input row t: t mod kStages

  for (int base = 0; base < steps; base += kSide) {
#pragma unroll
    for (int p = 0; p < kSide; ++p) {
      const int t = base + p;  // input row y0 - R + t; t mod kSide == p
      if (t >= steps)
        break;                             // the same for the whole warp
      __pipeline_wait_prior(kStages - 2);  // this thread's copies of row t have landed
      __syncwarp();  // ... and every lane's: the edge columns came from other lanes
      // Row t - 1's ring row is free now (every lane read it before the __syncwarp): refill it
      // with row t + kStages - 1, kStages - 1 rows ahead.
      const int ahead = t + kStages - 1;
      if (ahead < steps)
        stage_row<R, kVector>(ring[slot == 0 ? kStages - 1 : slot - 1], in, y0 - R + ahead, warp_x0,
                              lane, width, height);
      __pipeline_commit();

      // The window: columns x - R ... x + kCols - 1 + R of row t. The thread's own columns
      // from the ring, the rest from the neighbouring lanes, or from the ring at the warp's
      // edges.
      const float* const r = ring[slot] + kPad + kCols * lane;
      float mid[kCols];
      load_cols<kCols>(r, mid);
      float w[kWindow];
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        w[R + c] = mid[c];
#pragma unroll
      for (int j = 1; j <= R; ++j) {
        const int d = (j + kCols - 1) / kCols;  // lanes away
        const float from_left = __shfl_up_sync(kFullWarp, mid[d * kCols - j], d);
        const float from_right = __shfl_down_sync(kFullWarp, mid[kCols - 1 + j - d * kCols], d);
        w[R - j] = lane < d ? r[-j] : from_left;
        w[R + kCols - 1 + j] = lane >= 32 - d ? r[kCols - 1 + j] : from_right;
      }
      slot = slot == kStages - 1 ? 0 : slot + 1;

      //! [register_coarsened_rows]
      // Output row t - 2R + k (accumulator (p + k) mod kSide) takes this row through filter
      // row 2R - k.
#pragma unroll
      for (int k = 0; k < kSide; ++k)
#pragma unroll
        for (int c = 0; c < kCols; ++c)
#pragma unroll
          for (int j = 0; j < kSide; ++j)
            acc[(p + k) % kSide][c] += c_stretch_filter[(2 * R - k) * kSide + j] * w[c + j];

      // Output row y0 + t - 2R has all its rows now (the warm-up rows finish nothing).
      const int y = y0 + t - 2 * R;
      if (t >= 2 * R) {
        float* const o = out + at(y, x, width);
        if constexpr (kVector) {
          if (x < width)
            store_cols<kCols>(o, acc[p]);
        } else {
#pragma unroll
          for (int c = 0; c < kCols; ++c)
            if (x + c < width)
              o[c] = acc[p][c];
        }
      }
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        acc[p][c] = 0.0f;  // the accumulator now starts output row y + kSide
      //! [register_coarsened_rows]
    }
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
  with_radius(filter.radius, [&](auto radius) {
    constexpr int R = decltype(radius)::value;
    using S = Strip<R>;
    // Vector copies and stores need every row to start on a multiple of kCols floats.
    auto aligned = [](const void* p) {
      return reinterpret_cast<std::uintptr_t>(p) % (S::kCols * sizeof(float)) == 0;
    };
    const bool vector = width % S::kCols == 0 && aligned(d_in) && aligned(d_out);
    const int warps = (width + S::kWarpCols - 1) / S::kWarpCols;
    const dim3 grid((warps + kCoarseWarps - 1) / kCoarseWarps,
                    (height + kChunkRows - 1) / kChunkRows);
    if (vector)
      register_coarsened_kernel<R, true>
          <<<grid, kCoarseThreads, 0, stream>>>(d_in, d_out, width, height);
    else
      register_coarsened_kernel<R, false>
          <<<grid, kCoarseThreads, 0, stream>>>(d_in, d_out, width, height);
  });
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson07
