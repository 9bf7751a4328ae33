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
// (one float4) and walks a strip of output rows of them, as lesson 08's threads walk along z:
//  * Each input row is added, once, into the 2r + 1 output rows it belongs to. Step t of the
//    walk feeds output rows t - 2r ... t through filter rows 2r ... 0, so 2r + 1 float4
//    accumulators are live; output row t - 2r is complete after step t and is stored. The
//    accumulators form a ring indexed by t mod (2r + 1), a compile-time index wherever the walk
//    is unrolled, so the ring stays in registers.
//  * The horizontal window comes from the neighbouring lanes. A thread needs r columns left and
//    right of its four; the lanes holding them hand them over with __shfl_up_sync and
//    __shfl_down_sync. Only the warp's edge lanes take them from memory.
//  * Input rows arrive by asynchronous copies (cp.async through __pipeline_memcpy_async) into a
//    ring of kStages rows in shared memory, kStages - 1 rows ahead of the arithmetic. The bytes
//    in flight cost no registers, so that many warps stay resident. Each thread reads back the
//    four floats it copied itself; only the few columns beyond a warp's edges come from other
//    threads. (On an H200, keeping the rows in flight in registers instead reached 64.6 % of
//    copy at 79 registers a thread, 70.5 % when held to 64.) An SM holds about 100 KB in flight
//    this way, several times what Little's law asks (bandwidth x latency: about 8 KB per SM on
//    an H100 at the idle DRAM latency, more under load, some 40 % more on an H200). What held
//    the copy's speed back was elsewhere, and the strips are shaped against it (up to r = 3):
//  * Odd strips (blockIdx.y odd) walk *up*. Neighbouring strips share the 2r input rows around
//    their border; walking in opposite directions, both reach them at the same moment (both
//    start there, or both end there), so the second read hits L2 instead of DRAM. Strips are
//    8 rows: short-lived, so the live rows form a compact band and the last wave drains soon.
//  * The block's four warps share one ring: a ring row holds the block's 4 x 128 columns and
//    the r on either side, so a warp finds the columns beyond its edges in its neighbours' part
//    of the row, and only the block's two outer edges copy halo columns. With a ring per warp,
//    each warp copied its own: two more 32-byte sectors a row (18 from L2 for the warp's 16),
//    1.69 x the image read from L2 in all (12 rows read per 8 stored); shared, 1.55 x. The
//    price is a block barrier (__syncthreads) per row where a warp's own ring needed only a
//    __syncwarp; on an H200 it gained 2 points (89.7 % of copy against 87.4 % in a benchmark).
//  * A full strip's whole walk (8 + 2r steps) is unrolled. A loop adds its first and last 2r
//    input rows into the accumulators of rows outside the strip too, never stored: +50 %
//    multiply-adds at 8 rows, r = 2 (on an H200, 69 % of copy against 88 % unrolled). Unrolled,
//    ring slot, accumulator and "is this output row in the strip" are compile-time and those
//    multiply-adds vanish. Only for short strips: 32 rows unrolled whole overflow the
//    instruction cache (52-62 % of copy).
// The last, partial strip of an image keeps the loop, with a ring per warp. From r = 4 on, the
// walk keeps the earlier design (32-row strips, all down, the loop, a ring per warp): there the
// multiply-adds set the pace, 8-row strips would waste more row updates than they use, and
// unrolled walks would not fit the instruction cache. Reads per output: one input float from DRAM
// (and 2r rows a strip from L2), one from shared memory; the (2r + 1)^2 weights are operands of the
// multiply-adds.
constexpr int kCoarseWarps = 4;                    // warps per block, side by side along x
constexpr int kCoarseThreads = 32 * kCoarseWarps;  // 128 threads
constexpr int kStages = 6;                         // input rows in a ring
constexpr int kPad = 8;  // ring columns left and right of the warps' (>= kMaxRadius, 16 bytes)
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
  static constexpr int kRingRow = kPad + kWarpCols + kPad;  // floats per row of a warp's ring
  static constexpr bool kShort = R <= 3;         // 8-row strips, mirrored, full walks unrolled
  static constexpr int kRows = kShort ? 8 : 32;  // output rows per strip (blockIdx.y)
  static constexpr int kBlockRow = kPad + kCoarseWarps * kWarpCols + kPad;  // a block ring's row
};

// The rings in shared memory, one layout per walk: a block takes one of the two, never both.
template <int R>
union Rings {
  float block[kStages][Strip<R>::kBlockRow];              // walk_full: one ring for the block
  float warp[kCoarseWarps][kStages][Strip<R>::kRingRow];  // walk: a ring per warp
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

// Starts copying input row `row` into `slot` (the warp's part of a ring row: its columns from
// slot + kPad) without waiting for it: each thread its own kCols columns; lanes 0 ... R - 1 one
// column beyond the warp's left edge each if `left`, lanes 31 ... 32 - R one beyond its right
// edge if `right` (in a block's ring, the neighbouring warp copies the others). Ghost cells are
// written as 0 directly.
template <int R, bool kVector>
__device__ void stage_row(float* slot, const float* __restrict__ in, int row, int warp_x0, int lane,
                          int width, int height, bool left, bool right) {
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
  if (lane < R ? left : lane >= 32 - R && right) {
    constexpr int kWarpCols = Strip<R>::kWarpCols;
    const int col = lane < R ? warp_x0 - 1 - beyond : warp_x0 + kWarpCols + beyond;
    float* const dst = slot + (lane < R ? kPad - 1 - beyond : kPad + kWarpCols + beyond);
    if (row_ok && col >= 0 && col < width)
      __pipeline_memcpy_async(dst, in + at(row, col, width), 4);
    else
      *dst = 0.0f;
  }
}

// Where step t of the walk of strip [begin, end) reads and writes. Walking up is walking down
// the image flipped vertically: the same steps, with filter row k where walking down takes
// row 2R - k.
template <int R, bool kUp>
struct Rows {
  int begin, end;
  __device__ int in(int t) const { return kUp ? end - 1 + R - t : begin - R + t; }  // read
  __device__ int out(int t) const {  // finished by step t >= 2R
    return kUp ? end - 1 - (t - 2 * R) : begin + t - 2 * R;
  }
  // The filter row through which step t's input goes into output row t - 2R + k.
  __device__ static constexpr int filter(int k) { return kUp ? k : 2 * R - k; }
};

// Step t's window: columns x - R ... x + kCols - 1 + R of the input row in the ring, where r
// points at this thread's columns. The thread's own columns from the ring, the rest from the
// neighbouring lanes, or from the ring at the warp's edges.
template <int R>
__device__ __forceinline__ void load_window(const float* r, int lane,
                                            float (&w)[Strip<R>::kCols + 2 * R]) {
  constexpr int kCols = Strip<R>::kCols;
  float mid[kCols];
  load_cols<kCols>(r, mid);
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
}

// One output row's accumulator a += the window w through filter row `row`.
template <int R>
__device__ __forceinline__ void add_row(float (&a)[Strip<R>::kCols], int row,
                                        const float (&w)[Strip<R>::kCols + 2 * R]) {
#pragma unroll
  for (int c = 0; c < Strip<R>::kCols; ++c)
#pragma unroll
    for (int j = 0; j < 2 * R + 1; ++j)
      a[c] += c_stretch_filter[row * (2 * R + 1) + j] * w[c + j];
}

// Stores a finished output row's columns that lie in the image (o: its column x).
template <int R, bool kVector>
__device__ __forceinline__ void store_row(float* o, int x, int width,
                                          const float (&a)[Strip<R>::kCols]) {
  if constexpr (kVector) {
    if (x < width)
      store_cols<Strip<R>::kCols>(o, a);
  } else {
#pragma unroll
    for (int c = 0; c < Strip<R>::kCols; ++c)
      if (x + c < width)
        o[c] = a[c];
  }
}

// The walk as a loop, for a partial strip and for every strip from r = 4 on: unrolled 2R + 1
// steps at a time, so that the accumulator index t mod (2R + 1) is a compile-time constant.
// Every input row goes into all 2R + 1 accumulators, those of the rows before and after the
// strip too (never stored: a run-time test per step cost more than it saved).
template <int R, bool kVector, bool kUp>
__device__ __forceinline__ void walk(float (*ring)[Strip<R>::kRingRow],
                                     const float* __restrict__ in, float* __restrict__ out,
                                     int width, int height, int warp_x0, int lane,
                                     Rows<R, kUp> rows) {
  constexpr int kSide = 2 * R + 1;
  constexpr int kCols = Strip<R>::kCols;
  const int x = warp_x0 + kCols * lane;
  const int steps = (rows.end - rows.begin) + 2 * R;  // 2R steps of warm-up, then a row a step

  // Rows 0 ... kStages - 2 in flight before the first step; one group of copies per row.
#pragma unroll
  for (int t = 0; t < kStages - 1; ++t) {
    if (t < steps)
      stage_row<R, kVector>(ring[t], in, rows.in(t), warp_x0, lane, width, height, true, true);
    __pipeline_commit();
  }
  float acc[kSide][kCols] = {};
  int slot = 0;  // the ring row of step t: t mod kStages

  for (int base = 0; base < steps; base += kSide) {
#pragma unroll
    for (int p = 0; p < kSide; ++p) {
      const int t = base + p;  // t mod kSide == p
      if (t >= steps)
        break;                             // the same for the whole warp
      __pipeline_wait_prior(kStages - 2);  // this thread's copies of step t's row have landed
      __syncwarp();  // ... and every lane's: the edge columns came from other lanes
      // Step t - 1's ring row is free now (every lane read it before the __syncwarp): refill it
      // with step t + kStages - 1's row, kStages - 1 steps ahead.
      const int ahead = t + kStages - 1;
      if (ahead < steps)
        stage_row<R, kVector>(ring[slot == 0 ? kStages - 1 : slot - 1], in, rows.in(ahead), warp_x0,
                              lane, width, height, true, true);
      __pipeline_commit();
      float w[kCols + 2 * R];
      load_window<R>(ring[slot] + kPad + kCols * lane, lane, w);
      slot = slot == kStages - 1 ? 0 : slot + 1;

      // Output row t - 2R + k (accumulator (p + k) mod kSide) takes this row.
#pragma unroll
      for (int k = 0; k < kSide; ++k)
        add_row<R>(acc[(p + k) % kSide], Rows<R, kUp>::filter(k), w);
      if (t >= 2 * R)  // the warm-up steps finish no row
        store_row<R, kVector>(out + at(rows.out(t), x, width), x, width, acc[p]);
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        acc[p][c] = 0.0f;  // the accumulator now starts the row kSide further on
    }
  }
}

// The walk of a full strip of kRows rows (r <= 3), unrolled whole: the step t, its ring slot
// t mod kStages, the accumulator (t + k) mod kSide and whether output row t - 2R + k lies in
// the strip are all compile-time constants, so the multiply-adds into rows outside the strip
// disappear without a branch. The ring is the block's: the warp's part of a row starts
// kWarpCols * warp floats in, and only warp 0's left edge and the last warp's right edge copy
// the columns beyond them; the others lie in the neighbouring warp's part.
template <int R, bool kVector, bool kUp>
__device__ __forceinline__ void walk_full(float (*ring)[Strip<R>::kBlockRow],
                                          const float* __restrict__ in, float* __restrict__ out,
                                          int width, int height, int warp_x0, int warp, int lane,
                                          Rows<R, kUp> rows) {
  constexpr int kSide = 2 * R + 1;
  constexpr int kCols = Strip<R>::kCols;
  constexpr int kSteps = Strip<R>::kRows + 2 * R;
  const int x = warp_x0 + kCols * lane;
  const int part = Strip<R>::kWarpCols * warp;                    // the warp's part of a ring row
  const bool left = warp == 0, right = warp == kCoarseWarps - 1;  // the block's outer edges
  static_assert(kSteps >= kStages - 1);  // every row staged before the first step is read
#pragma unroll
  for (int t = 0; t < kStages - 1; ++t) {
    stage_row<R, kVector>(ring[t] + part, in, rows.in(t), warp_x0, lane, width, height, left,
                          right);
    __pipeline_commit();
  }
  float acc[kSide][kCols] = {};
  //! [register_coarsened_rows]
#pragma unroll
  for (int t = 0; t < kSteps; ++t) {
    __pipeline_wait_prior(kStages - 2);  // this thread's copies of step t's row have landed
    // ... and every thread's (the columns beyond a warp come from its neighbours), and every
    // warp has read step t - 1's row: one barrier per row is the price of a shared ring.
    __syncthreads();
    if (t + kStages - 1 < kSteps)  // refill step t - 1's ring row, kStages - 1 steps ahead
      stage_row<R, kVector>(ring[(t + kStages - 1) % kStages] + part, in, rows.in(t + kStages - 1),
                            warp_x0, lane, width, height, left, right);
    __pipeline_commit();
    float w[kCols + 2 * R];
    load_window<R>(ring[t % kStages] + part + kPad + kCols * lane, lane, w);
#pragma unroll
    for (int k = 0; k < kSide; ++k)
      if (k >= 2 * R - t && k < kSteps - t)  // output row t - 2R + k is in the strip
        add_row<R>(acc[(t + k) % kSide], Rows<R, kUp>::filter(k), w);
    if (t >= 2 * R) {  // output row t - 2R is complete
      store_row<R, kVector>(out + at(rows.out(t), x, width), x, width, acc[t % kSide]);
#pragma unroll
      for (int c = 0; c < kCols; ++c)
        acc[t % kSide][c] = 0.0f;  // the accumulator now starts output row t - 2R + kSide
    }
  }
  //! [register_coarsened_rows]
}

template <int R, bool kVector>
__global__ void __launch_bounds__(kCoarseThreads)
    register_coarsened_kernel(const float* __restrict__ in, float* __restrict__ out, int width,
                              int height) {
  using S = Strip<R>;
  __shared__ __align__(16) Rings<R> rings;
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int warp_x0 = (blockIdx.x * kCoarseWarps + warp) * S::kWarpCols;
  const int begin = blockIdx.y * S::kRows;
  const int end = min(begin + S::kRows, height);
  // Up to r = 3, odd strips walk up, and a full strip's walk is unrolled whole.
  const bool up = S::kShort && blockIdx.y % 2 == 1;
  if constexpr (S::kShort) {
    if (end - begin == S::kRows) {
      // Every warp walks, even one right of the image: the block's barriers wait for all four.
      // (Its columns are staged as zeros and never stored.)
      if (up)
        walk_full<R, kVector>(rings.block, in, out, width, height, warp_x0, warp, lane,
                              Rows<R, true>{begin, end});
      else
        walk_full<R, kVector>(rings.block, in, out, width, height, warp_x0, warp, lane,
                              Rows<R, false>{begin, end});
      return;
    }
  }
  if (warp_x0 >= width)
    return;  // the whole warp is right of the image (the loop has no block barrier)
  float(*ring)[S::kRingRow] = rings.warp[warp];
  if (up)  // the last strip, partial, or any strip from r = 4 on (never up): the loop
    walk<R, kVector>(ring, in, out, width, height, warp_x0, lane, Rows<R, true>{begin, end});
  else
    walk<R, kVector>(ring, in, out, width, height, warp_x0, lane, Rows<R, false>{begin, end});
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
    // One strip of S::kRows rows per blockIdx.y: at most 65535 strips of 8 rows (kMaxExtent).
    const dim3 grid((warps + kCoarseWarps - 1) / kCoarseWarps, (height + S::kRows - 1) / S::kRows);
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
