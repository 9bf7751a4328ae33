// Lesson 05, the given code: the first rung (the memory lab's reduce1), the driver that finishes
// every tree rung on the GPU, the identity fill, the workspace, and the global-memory row
// reductions.
#include <mutex>

#include "course/buffer.hpp"
#include "course/error.hpp"
#include "reduction_device.cuh"
#include "reduction_rungs.cuh"

namespace course::lesson05 {

namespace {

//! [interleaved_divergent_kernel]
// reduce1. Each thread loads one element into shared memory, then the block combines neighbours
// at distance s = 1, 2, 4, ...: at step s the threads whose index is a multiple of 2 s work. The
// working threads are scattered over every warp (at s = 1 every other thread works), so every
// warp runs the branch with most of its lanes masked off: divergence. And `%` is slow.
template <class T, class Op>
__global__ void interleaved_divergent_kernel(const T* __restrict__ in, T* __restrict__ out,
                                             std::size_t n, Op op) {
  __shared__ T data[kMaxBlock];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  // Past the end of the input a thread holds the identity, so the tree needs no bounds checks.
  data[tid] = i < n ? in[i] : Op::identity();
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      data[tid] = op(data[tid], data[tid + s]);
    // Step s + 1 reads what other threads wrote in step s.
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = data[0];
}
//! [interleaved_divergent_kernel]

template <class T, class Op>
__global__ void fill_identity_kernel(T* out) {
  *out = Op::identity();
}

//! [row_global_kernel]
// The global-memory row reductions: one thread per row. Thread r walks along row r, so the 32
// threads of a warp read addresses `cols` floats apart: each load instruction touches 32
// different 128-byte lines, and only the L1 cache keeps the next 31 columns from costing the same.
template <RowOp kOp>
__global__ void row_global_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ out, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const RowCombine<kOp> combine;
  float acc = RowCombine<kOp>::identity();
  const std::size_t start = static_cast<std::size_t>(r) * cols;
  for (int c = 0; c < cols; ++c)
    acc = combine(acc, row_element<kOp>(a, b, start + c));
  out[r] = row_finish<kOp>(acc, cols);
}
//! [row_global_kernel]

// One thread per column, walking down it: a warp reads 32 consecutive floats of one row, a
// coalesced load, at every step.
__global__ void column_mean_global_kernel(const float* __restrict__ a, float* __restrict__ out,
                                          int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols)
    return;
  float acc = 0.0f;
  for (int r = 0; r < rows; ++r)
    acc += a[static_cast<std::size_t>(r) * cols + c];
  out[c] = acc / static_cast<float>(rows);
}

constexpr int kGlobalThreads = 128;

// The scratch memory of all rungs, kept between calls so that no timed call allocates.
std::mutex workspace_mutex;
DeviceBuffer<unsigned char>& workspace_buffer() {
  static DeviceBuffer<unsigned char> buffer;
  return buffer;
}

}  // namespace

template <class T>
T* workspace(std::size_t count) {
  const std::lock_guard lock(workspace_mutex);
  auto& buffer = workspace_buffer();
  if (buffer.size() < count * sizeof(T))
    buffer = DeviceBuffer<unsigned char>(count * sizeof(T));
  return reinterpret_cast<T*>(buffer.data());
}

unsigned* arrival_counter() {
  static DeviceBuffer<unsigned> counter = [] {
    DeviceBuffer<unsigned> zero(1);
    zero.fill_bytes(0);
    CUDA_CHECK(cudaDeviceSynchronize());
    return zero;
  }();
  return counter.data();
}

template <class T>
void fill_identity(Op op, T* d_out, cudaStream_t stream) {
  with_op<T>(op, [&](auto functor) {
    fill_identity_kernel<T, decltype(functor)><<<1, 1, 0, stream>>>(d_out);
  });
  CUDA_CHECK_LAST();
}

//! [reduce_in_passes]
// Pass 1 reduces n elements to one value per block; pass 2 reduces those, and so on, until a pass
// runs a single block, which writes the result. With 256 threads and one element each, 2^26
// elements take four passes: 2^26 -> 262144 -> 1024 -> 4 -> 1. Two scratch arrays take turns as
// input and output; the first pass reads d_in, the last writes d_out.
template <class T>
void reduce_in_passes(PassLauncher<T> pass, int per_thread, Op op, const T* d_in, T* d_out,
                      std::size_t n, int block, cudaStream_t stream) {
  const std::size_t per_block = static_cast<std::size_t>(block) * per_thread;
  const std::size_t first = blocks_for(n, per_block);
  const std::size_t second = blocks_for(first, per_block);
  T* scratch = first > 1 ? workspace<T>(first + second) : nullptr;
  T* const buffers[2] = {scratch, first > 1 ? scratch + first : nullptr};
  const T* src = d_in;
  std::size_t count = n;
  for (int next = 0;; next ^= 1) {
    const std::size_t blocks = blocks_for(count, per_block);
    T* dst = blocks == 1 ? d_out : buffers[next];
    pass(op, src, dst, count, block, stream);
    if (blocks == 1)
      return;
    src = dst;
    count = blocks;
  }
}
//! [reduce_in_passes]

template <class T>
void pass_interleaved_divergent(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                                cudaStream_t stream) {
  with_op<T>(op, [&](auto functor) {
    interleaved_divergent_kernel<<<blocks_for(n, block), block, 0, stream>>>(d_in, d_out, n,
                                                                             functor);
  });
  CUDA_CHECK_LAST();
}

void row_reduce_global(RowOp op, const float* d_a, const float* d_b, float* d_out, int rows,
                       int cols, cudaStream_t stream) {
  if (op == RowOp::ColumnMean) {
    column_mean_global_kernel<<<blocks_for(cols, kGlobalThreads), kGlobalThreads, 0, stream>>>(
        d_a, d_out, rows, cols);
  } else {
    with_row_op(op, [&](auto k) {
      row_global_kernel<decltype(k)::value>
          <<<blocks_for(rows, kGlobalThreads), kGlobalThreads, 0, stream>>>(d_a, d_b, d_out, rows,
                                                                            cols);
    });
  }
  CUDA_CHECK_LAST();
}

#define COURSE_LESSON05_INSTANTIATE(T)                                                        \
  template T* workspace<T>(std::size_t);                                                      \
  template void fill_identity<T>(Op, T*, cudaStream_t);                                       \
  template void reduce_in_passes<T>(PassLauncher<T>, int, Op, const T*, T*, std::size_t, int, \
                                    cudaStream_t);                                            \
  template void pass_interleaved_divergent<T>(Op, const T*, T*, std::size_t, int, cudaStream_t);
COURSE_LESSON05_INSTANTIATE(int)
COURSE_LESSON05_INSTANTIATE(float)
#undef COURSE_LESSON05_INSTANTIATE

}  // namespace course::lesson05
