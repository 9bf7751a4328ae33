// Lesson 05, the tree rungs solved (the memory lab's reduce2 to reduce5, for any n). Each kernel is
// one pass: its blocks reduce their part of the input to one value each, and the given
// reduce_in_passes() runs the pass again over those values until one is left.
#include "course/error.hpp"
#include "reduction_device.cuh"
#include "reduction_rungs.cuh"

namespace course::lesson05 {

namespace {

//! [interleaved_strided_kernel]
// reduce2. The same tree as reduce1, but thread t now works on index 2 s t: the working threads
// are the first blockDim / (2 s), packed into as few warps as possible, so whole warps skip the
// branch instead of running it with lanes masked off. The price: thread t touches data[2 s t],
// so at s = 1 a warp's addresses are 2 words apart (2-way bank conflict), at s = 2 4 apart
// (4-way), and so on: the wider the stride, the fewer banks share the work.
template <class T, class Op>
__global__ void interleaved_strided_kernel(const T* __restrict__ in, T* __restrict__ out,
                                           std::size_t n, Op op) {
  __shared__ T data[kMaxBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  data[tid] = i < n ? in[i] : Op::identity();
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < blockDim.x)
      data[index] = op(data[index], data[index + s]);
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = data[0];
}
//! [interleaved_strided_kernel]

//! [sequential_kernel]
// reduce3. Combine elements half a block apart, then a quarter, ...: thread t reads data[t] and
// data[t + s], so a warp reads 32 consecutive words (32 banks, no conflict) and the working
// threads are still packed at the front. What is left: in the very first step half of the
// threads only load and then wait.
template <class T, class Op>
__global__ void sequential_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n,
                                  Op op) {
  __shared__ T data[kMaxBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  data[tid] = i < n ? in[i] : Op::identity();
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      data[tid] = op(data[tid], data[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = data[0];
}
//! [sequential_kernel]

//! [first_add_on_load_kernel]
// reduce4. Half as many blocks, each covering 2 blockDim elements: every thread loads two
// elements blockDim apart (both loads coalesced) and combines them before the tree, so no thread
// is idle in the first step and the grid is half the size.
template <class T, class Op>
__global__ void first_add_on_load_kernel(const T* __restrict__ in, T* __restrict__ out,
                                         std::size_t n, Op op) {
  __shared__ T data[kMaxBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = 2 * static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  const T first = i < n ? in[i] : Op::identity();
  const T second = i + blockDim.x < n ? in[i + blockDim.x] : Op::identity();
  data[tid] = op(first, second);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      data[tid] = op(data[tid], data[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = data[0];
}
//! [first_add_on_load_kernel]

//! [unrolled_warp_kernel]
// reduce5, made correct. Once s <= 32 only warp 0 works, and a block-wide __syncthreads() per step
// is wasted: the last six steps run inside one warp. The memory lab simply dropped the barriers
// there. That relied on the 32 threads of a warp running in lockstep, which Volta's independent
// thread scheduling no longer promises, and on every access going to memory, which the compiler
// does not promise either: without `volatile` it keeps data[tid] in a register and reads its
// neighbours' stale values. Here each step reads into a register, waits at __syncwarp() until every
// lane has read, writes, and waits again until every lane has written: __syncwarp() is the barrier
// and the memory fence of one warp.
template <class T, class Op>
__global__ void unrolled_warp_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n,
                                     Op op) {
  __shared__ T data[kMaxBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = 2 * static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  const T first = i < n ? in[i] : Op::identity();
  const T second = i + blockDim.x < n ? in[i + blockDim.x] : Op::identity();
  data[tid] = op(first, second);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      data[tid] = op(data[tid], data[tid + s]);
    __syncthreads();
  }
  if (tid < 32) {
    T v = data[tid];
#pragma unroll
    for (unsigned s = 32; s > 0; s >>= 1) {
      v = op(v, data[tid + s]);
      __syncwarp();  // every lane has read data[tid + s] before any lane overwrites it
      data[tid] = v;
      __syncwarp();  // every lane's write is visible before the next step reads it
    }
    if (tid == 0)
      out[blockIdx.x] = v;
  }
}
//! [unrolled_warp_kernel]

}  // namespace

template <class T>
void pass_interleaved_strided(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                              cudaStream_t stream) {
  with_op<T>(op, [&](auto functor) {
    interleaved_strided_kernel<<<blocks_for(n, block), block, 0, stream>>>(d_in, d_out, n, functor);
  });
  CUDA_CHECK_LAST();
}

template <class T>
void pass_sequential(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                     cudaStream_t stream) {
  with_op<T>(op, [&](auto functor) {
    sequential_kernel<<<blocks_for(n, block), block, 0, stream>>>(d_in, d_out, n, functor);
  });
  CUDA_CHECK_LAST();
}

template <class T>
void pass_first_add_on_load(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                            cudaStream_t stream) {
  with_op<T>(op, [&](auto functor) {
    first_add_on_load_kernel<<<blocks_for(n, 2 * block), block, 0, stream>>>(d_in, d_out, n,
                                                                             functor);
  });
  CUDA_CHECK_LAST();
}

template <class T>
void pass_unrolled_warp(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                        cudaStream_t stream) {
  with_op<T>(op, [&](auto functor) {
    unrolled_warp_kernel<<<blocks_for(n, 2 * block), block, 0, stream>>>(d_in, d_out, n, functor);
  });
  CUDA_CHECK_LAST();
}

#define COURSE_LESSON05_INSTANTIATE(T)                                                         \
  template void pass_interleaved_strided<T>(Op, const T*, T*, std::size_t, int, cudaStream_t); \
  template void pass_sequential<T>(Op, const T*, T*, std::size_t, int, cudaStream_t);          \
  template void pass_first_add_on_load<T>(Op, const T*, T*, std::size_t, int, cudaStream_t);   \
  template void pass_unrolled_warp<T>(Op, const T*, T*, std::size_t, int, cudaStream_t);
COURSE_LESSON05_INSTANTIATE(int)
COURSE_LESSON05_INSTANTIATE(float)
#undef COURSE_LESSON05_INSTANTIATE

}  // namespace course::lesson05
