// Lesson 05, the single-pass rungs solved: coarsened segments with one atomic per block (PMPP
// ch. 10), warp shuffles, and the vectorized rung that reaches for CUB.
#include <algorithm>
#include <cstdint>

#include "course/error.hpp"
#include "course/gpu.hpp"
#include "reduction_device.cuh"
#include "reduction_rungs.cuh"

namespace course::lesson05 {

namespace {

//! [coarsened_atomic_kernel]
// PMPP's coarsened, segmented reduction. A block owns a segment of 2 kCoarseFactor blockDim
// elements; each thread first folds its 2 kCoarseFactor elements, blockDim apart (every load of a
// warp is coalesced, and all of them are independent, so they are in flight together), into a
// register. Only then does the block's tree run, once per 16 elements instead of once per 2. The
// tree is unrolled_warp's. Thread 0 then combines the block's value into *out with one atomic:
// the whole reduction is one pass (after the given identity fill), whatever n is.
constexpr int kCoarseFactor = 8;

template <class T, class Op>
__global__ void coarsened_atomic_kernel(const T* __restrict__ in, T* out, std::size_t n, Op op) {
  __shared__ T data[kMaxBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t segment = static_cast<std::size_t>(2 * kCoarseFactor) * blockDim.x * blockIdx.x;
  T v = Op::identity();
#pragma unroll
  for (int k = 0; k < 2 * kCoarseFactor; ++k) {
    const std::size_t i = segment + static_cast<std::size_t>(k) * blockDim.x + tid;
    if (i < n)
      v = op(v, in[i]);
  }
  data[tid] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      data[tid] = op(data[tid], data[tid + s]);
    __syncthreads();
  }
  if (tid < 32) {
    v = data[tid];
#pragma unroll
    for (unsigned s = 32; s > 0; s >>= 1) {
      v = op(v, data[tid + s]);
      __syncwarp();
      data[tid] = v;
      __syncwarp();
    }
    if (tid == 0)
      atomic_combine(op, out, v);
  }
}
//! [coarsened_atomic_kernel]

//! [warp_shuffle_kernel]
// Inside a warp, registers can be exchanged directly: __shfl_down_sync(mask, v, k) returns the v
// of the lane k above. Five shuffles halve the warp's values down to lane 0, with no shared
// memory and no barrier (the _sync names the lanes that take part and synchronizes them).
template <class T, class Op>
__device__ T warp_reduce(T v, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

// A block's reduction with shuffles: each warp reduces its 32 values, lane 0 of each warp
// leaves the result in shared memory (at most 32 of them), and warp 0 reduces those. One
// __syncthreads() instead of one per tree level. The result is valid in thread 0.
template <class T, class Op>
__device__ T block_reduce(T v, Op op) {
  __shared__ T warp_results[32];
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;
  v = warp_reduce(v, op);
  if (lane == 0)
    warp_results[warp] = v;
  __syncthreads();
  if (warp == 0)
    v = warp_reduce(lane < blockDim.x / 32 ? warp_results[lane] : Op::identity(), op);
  return v;
}

// coarsened_atomic with the shared-memory tree replaced by block_reduce.
template <class T, class Op>
__global__ void warp_shuffle_kernel(const T* __restrict__ in, T* out, std::size_t n, Op op) {
  const std::size_t segment = static_cast<std::size_t>(2 * kCoarseFactor) * blockDim.x * blockIdx.x;
  T v = Op::identity();
#pragma unroll
  for (int k = 0; k < 2 * kCoarseFactor; ++k) {
    const std::size_t i = segment + static_cast<std::size_t>(k) * blockDim.x + threadIdx.x;
    if (i < n)
      v = op(v, in[i]);
  }
  v = block_reduce(v, op);
  if (threadIdx.x == 0)
    atomic_combine(op, out, v);
}
//! [warp_shuffle_kernel]

//! [vectorized_kernel]
// Reaching for CUB. (1) 16-byte loads: a float4 moves four elements per instruction. They need a
// 16-byte aligned address, so the first `head` elements (up to 3) before the first aligned one,
// and the `tail` after the last whole vector, are read one by one. (2) A grid of two blocks of 512
// threads per SM, each thread striding over the vectors: no block waits for a slot, and no block
// is launched for little work. (3) Four loads in flight per thread per iteration, into four
// independent accumulators: 1024 threads x 4 x 16 bytes = 64 KiB in flight per SM, well over what
// Little's law asks of an H100 (3.0 TB/s x 0.35 us, one DRAM load at idle, / 132 SMs: 8 KB, more
// under load) or an H200 (some 40 % more). (4) One launch: no atomics on the result, no identity
// fill, no second kernel. Each block leaves its value in partials[blockIdx.x] and counts itself in
// *arrivals; the block that arrives last reduces the partials and writes *out.
constexpr int kVecThreads = 512;
constexpr int kVecBlocksPerSm = 2;

template <class T>
using Vec4 = std::conditional_t<std::is_same_v<T, float>, float4, int4>;

template <class T, class Op>
__device__ T combine4(Vec4<T> x, Op op) {
  return op(op(x.x, x.y), op(x.z, x.w));
}

//! [vectorized_pass]
template <class T, class Op>
__global__ void __launch_bounds__(kVecThreads)
    vectorized_kernel(const T* __restrict__ in, T* __restrict__ partials, unsigned* arrivals,
                      T* __restrict__ out, std::size_t n, std::size_t head, Op op) {
  const auto* vectors = reinterpret_cast<const Vec4<T>*>(in + head);
  const std::size_t count = (n - head) / 4;
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  T a0 = Op::identity(), a1 = Op::identity(), a2 = Op::identity(), a3 = Op::identity();
  std::size_t i = thread;
  for (; i + 3 * threads < count; i += 4 * threads) {
    const Vec4<T> x0 = vectors[i];
    const Vec4<T> x1 = vectors[i + threads];
    const Vec4<T> x2 = vectors[i + 2 * threads];
    const Vec4<T> x3 = vectors[i + 3 * threads];
    a0 = op(a0, combine4<T>(x0, op));
    a1 = op(a1, combine4<T>(x1, op));
    a2 = op(a2, combine4<T>(x2, op));
    a3 = op(a3, combine4<T>(x3, op));
  }
  for (; i < count; i += threads)
    a0 = op(a0, combine4<T>(vectors[i], op));
  const std::size_t tail_start = head + 4 * count;
  if (thread < head)
    a1 = op(a1, in[thread]);
  if (thread < n - tail_start)
    a2 = op(a2, in[tail_start + thread]);
  const T v = block_reduce(op(op(a0, a1), op(a2, a3)), op);
  //! [vectorized_pass]

  //! [vectorized_finish]
  // The fence makes this block's partial visible to every other block before the count says it
  // is there; the block whose count is the last one then sees all of them.
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = v;
    __threadfence();
    last = atomicAdd(arrivals, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last)
    return;
  T w = Op::identity();
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
    w = op(w, __ldcg(partials + b));  // from L2, where the other SMs' writes are
  w = block_reduce(w, op);
  if (threadIdx.x == 0) {
    *out = w;
    *arrivals = 0;  // as arrival_counter() promises the next call
  }
}
//! [vectorized_finish]
//! [vectorized_kernel]

// Blocks of vectorized_kernel<T, Op> to launch: kVecBlocksPerSm per SM, or fewer if the GPU holds
// fewer at once (asked once, then remembered).
template <class T, class Op>
unsigned resident_blocks() {
  static const unsigned blocks = [] {
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, vectorized_kernel<T, Op>,
                                                             kVecThreads, 0));
    return static_cast<unsigned>(
        std::max(1, std::min(per_sm, kVecBlocksPerSm) * gpu_info().sm_count));
  }();
  return blocks;
}

}  // namespace

template <class T>
void run_coarsened_atomic(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                          cudaStream_t stream) {
  fill_identity(op, d_out, stream);  // the atomics combine into *d_out: start from the identity
  with_op<T>(op, [&](auto functor) {
    coarsened_atomic_kernel<<<blocks_for(n, 2 * kCoarseFactor * block), block, 0, stream>>>(
        d_in, d_out, n, functor);
  });
  CUDA_CHECK_LAST();
}

template <class T>
void run_warp_shuffle(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                      cudaStream_t stream) {
  fill_identity(op, d_out, stream);
  with_op<T>(op, [&](auto functor) {
    warp_shuffle_kernel<<<blocks_for(n, 2 * kCoarseFactor * block), block, 0, stream>>>(d_in, d_out,
                                                                                        n, functor);
  });
  CUDA_CHECK_LAST();
}

template <class T>
void run_vectorized(Op op, const T* d_in, T* d_out, std::size_t n, cudaStream_t stream) {
  // Elements before the first 16-byte boundary (d_in is at least 4-byte aligned).
  const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(d_in) % 16;
  const std::size_t head = std::min(n, (16 - misalignment) % 16 / sizeof(T));
  const std::size_t vectors = (n - head) / 4;
  with_op<T>(op, [&](auto functor) {
    using Functor = decltype(functor);
    const unsigned blocks =
        std::max(1u, std::min(resident_blocks<T, Functor>(), blocks_for(vectors, kVecThreads)));
    vectorized_kernel<<<blocks, kVecThreads, 0, stream>>>(
        d_in, workspace<T>(blocks), arrival_counter(), d_out, n, head, functor);
  });
  CUDA_CHECK_LAST();
}

#define COURSE_LESSON05_INSTANTIATE(T)                                                     \
  template void run_coarsened_atomic<T>(Op, const T*, T*, std::size_t, int, cudaStream_t); \
  template void run_warp_shuffle<T>(Op, const T*, T*, std::size_t, int, cudaStream_t);     \
  template void run_vectorized<T>(Op, const T*, T*, std::size_t, cudaStream_t);
COURSE_LESSON05_INSTANTIATE(int)
COURSE_LESSON05_INSTANTIATE(float)
#undef COURSE_LESSON05_INSTANTIATE

}  // namespace course::lesson05
