// Lesson 04, the stretch rung solved: register tiling on top of symmetry, reaching for cuBLAS.
#include "aat_rungs.cuh"
#include "course/error.hpp"

namespace course::lesson04 {

namespace {

constexpr int kBlockTile = 128;  // a block computes a 128 x 128 tile of C
constexpr int kDepth = 8;        // columns of A per shared-memory stage
constexpr int kThreads = 256;    // 16 x 16 threads, 8 x 8 elements of C each
constexpr int kHalf = kBlockTile / 2;

// One stage: kDepth columns of A for the 128 rows of a strip, stored k-major (transposed), so a
// thread's four consecutive rows are one 16-byte shared load.
using Stage = float[kDepth][kBlockTile];

// Reads this thread's four consecutive elements A[row][p .. p + 3], zeros outside A.
template <bool kVector>
__device__ float4 load_quad(const float* __restrict__ a, int row, int p, int n, int k) {
  if (row >= n)
    return make_float4(0.f, 0.f, 0.f, 0.f);
  const float* line = a + at(row, 0, k);
  if constexpr (kVector) {
    // k % 4 == 0 and p % 4 == 0: the four are all inside the row or all past its end.
    return p < k ? *reinterpret_cast<const float4*>(line + p) : make_float4(0.f, 0.f, 0.f, 0.f);
  } else {
    // A ragged k (or a misaligned A): each element on its own, guarded.
    return make_float4(p < k ? line[p] : 0.f, p + 1 < k ? line[p + 1] : 0.f,
                       p + 2 < k ? line[p + 2] : 0.f, p + 3 < k ? line[p + 3] : 0.f);
  }
}

// Writes A[row][p + s] for s = 0..3 into column `row` of the stage: the transposition.
__device__ void store_quad(Stage& stage, int row, int p, float4 v) {
  stage[p][row] = v.x;
  stage[p + 1][row] = v.y;
  stage[p + 2][row] = v.z;
  stage[p + 3][row] = v.w;
}

// Writes v[0..3] to C[row][col .. col + 3]: one 16-byte store where C's rows allow it.
__device__ void store_four(float* __restrict__ c, int row, int col, int n, const float (&v)[4],
                           bool vector) {
  if (vector && col + 3 < n) {
    *reinterpret_cast<float4*>(c + at(row, col, n)) = make_float4(v[0], v[1], v[2], v[3]);
  } else {
#pragma unroll
    for (int s = 0; s < 4; ++s)
      if (col + s < n)
        c[at(row, col + s, n)] = v[s];
  }
}

//! [register_tiled_kernel]
// The symmetric rung's idea (only tiles (bi, bj) with bi <= bj; off-diagonal ones written twice)
// with far more work per thread. A block computes a 128 x 128 tile of C; each of its 256 threads
// keeps 8 x 8 sums in registers: rows ty*4 + {0..3} and 64 + ty*4 + {0..3}, and the same columns
// for tx. Per step q along k a thread loads 8 values of each strip (four 16-byte loads) and does
// 64 multiply-adds with them: 64 FMAs per 4 shared loads, where the tiled rungs did 1 per 2.
// Two 4-float groups 64 apart, rather than 8 consecutive floats, keep each quarter-warp's
// 16-byte loads in 8 different 16-byte bank groups: conflict-free.
//
// Both strips come from A: rows i0.. and rows j0.. . Each thread loads one float4 of each per
// stage (row t / 2, columns 4 (t % 2) .. +3: a warp reads 16 rows x 32 bytes, whole sectors when
// k is a multiple of 8) and stores it transposed, k-major, so the compute reads a row of the
// stage. Those stores meet 2-way bank conflicts (threads t and t + 1 share a row, hence a bank),
// but they are 8 per thread per stage against 32 conflict-free 16-byte loads: noise.
//
// Double buffering: while the block computes on stage s, each thread already holds the next
// stage's float4s in registers (loaded before the compute, so their latency hides behind it)
// and stores them into the other buffer after. One barrier per stage: it both publishes the
// next stage and tells every thread that the current one may be overwritten next time.
template <bool kVectorLoads>
__global__ void __launch_bounds__(kThreads, 2)
    register_tiled_kernel(const float* __restrict__ a, float* __restrict__ c, int n, int k,
                          bool vector_stores) {
  __shared__ __align__(16) Stage strip_i[2];  // strip_i[b][q][r] = A[i0 + r][p0 + q]
  __shared__ __align__(16) Stage strip_j[2];  // strip_j[b][q][r] = A[j0 + r][p0 + q]
  int bi = 0;
  int bj = 0;
  upper_tile(blockIdx.x, bi, bj);
  const int i0 = bi * kBlockTile;
  const int j0 = bj * kBlockTile;
  const int tx = threadIdx.x % 16;
  const int ty = threadIdx.x / 16;
  const int load_row = threadIdx.x / 2;
  const int load_col = (threadIdx.x % 2) * 4;

  //! [register_tiled_loop]
  float sum[8][8] = {};
  float4 next_i = load_quad<kVectorLoads>(a, i0 + load_row, load_col, n, k);
  float4 next_j = load_quad<kVectorLoads>(a, j0 + load_row, load_col, n, k);
  store_quad(strip_i[0], load_row, load_col, next_i);
  store_quad(strip_j[0], load_row, load_col, next_j);
  __syncthreads();

  const int stages = (k + kDepth - 1) / kDepth;
  for (int s = 0; s < stages; ++s) {
    const int now = s % 2;
    const bool more = s + 1 < stages;
    if (more) {
      next_i = load_quad<kVectorLoads>(a, i0 + load_row, (s + 1) * kDepth + load_col, n, k);
      next_j = load_quad<kVectorLoads>(a, j0 + load_row, (s + 1) * kDepth + load_col, n, k);
    }
#pragma unroll
    for (int q = 0; q < kDepth; ++q) {
      const float4 i_lo = *reinterpret_cast<const float4*>(&strip_i[now][q][ty * 4]);
      const float4 i_hi = *reinterpret_cast<const float4*>(&strip_i[now][q][kHalf + ty * 4]);
      const float4 j_lo = *reinterpret_cast<const float4*>(&strip_j[now][q][tx * 4]);
      const float4 j_hi = *reinterpret_cast<const float4*>(&strip_j[now][q][kHalf + tx * 4]);
      const float x[8] = {i_lo.x, i_lo.y, i_lo.z, i_lo.w, i_hi.x, i_hi.y, i_hi.z, i_hi.w};
      const float y[8] = {j_lo.x, j_lo.y, j_lo.z, j_lo.w, j_hi.x, j_hi.y, j_hi.z, j_hi.w};
#pragma unroll
      for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int col = 0; col < 8; ++col)
          sum[r][col] += x[r] * y[col];
    }
    if (more) {
      // The other buffer was last read in stage s - 1, before the barrier that ended it.
      store_quad(strip_i[1 - now], load_row, load_col, next_i);
      store_quad(strip_j[1 - now], load_row, load_col, next_j);
    }
    __syncthreads();
  }
  //! [register_tiled_loop]

  // The tile (bi, bj): for each row, two float4s, 16 threads side by side: 256 bytes per row.
#pragma unroll
  for (int r = 0; r < 8; ++r) {
    const int row = i0 + (r / 4) * kHalf + ty * 4 + r % 4;
    if (row >= n)
      continue;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const float v[4] = {sum[r][half * 4], sum[r][half * 4 + 1], sum[r][half * 4 + 2],
                          sum[r][half * 4 + 3]};
      store_four(c, row, j0 + half * kHalf + tx * 4, n, v, vector_stores);
    }
  }
  //! [register_tiled_mirror]
  // A diagonal tile is its own mirror. For the others, the mirror (bj, bi), straight from
  // registers: column `col` of the thread's sums becomes a row of C, and its four consecutive
  // rows r become four consecutive columns, one float4. A warp (two values of ty, sixteen of tx)
  // writes 16 rows x 32 contiguous bytes per store: the same number of 32-byte sectors as the
  // direct stores above, each sector written whole, so no staging through shared memory is needed.
  if (bi == bj)
    return;
#pragma unroll
  for (int col = 0; col < 8; ++col) {
    const int row = j0 + (col / 4) * kHalf + tx * 4 + col % 4;
    if (row >= n)
      continue;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const float v[4] = {sum[half * 4][col], sum[half * 4 + 1][col], sum[half * 4 + 2][col],
                          sum[half * 4 + 3][col]};
      store_four(c, row, i0 + half * kHalf + ty * 4, n, v, vector_stores);
    }
  }
  //! [register_tiled_mirror]
}
//! [register_tiled_kernel]

}  // namespace

void launch_register_tiled(const float* d_a, float* d_c, int n, int k, cudaStream_t stream) {
  const unsigned blocks = upper_tile_count((n + kBlockTile - 1) / kBlockTile);
  // float4 access needs rows that start on 16-byte boundaries: k (resp. n) a multiple of 4.
  const bool vector_stores = n % 4 == 0 && aligned16(d_c);
  if (k % 4 == 0 && aligned16(d_a)) {
    register_tiled_kernel<true><<<blocks, kThreads, 0, stream>>>(d_a, d_c, n, k, vector_stores);
  } else {
    register_tiled_kernel<false><<<blocks, kThreads, 0, stream>>>(d_a, d_c, n, k, vector_stores);
  }
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson04
