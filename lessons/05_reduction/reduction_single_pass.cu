// Lesson 05, the single-pass rungs: each finishes the whole reduction itself. Write each kernel,
// launch it, and delete the `throw`.
#include "course/error.hpp"
#include "reduction_device.cuh"
#include "reduction_rungs.cuh"

namespace course::lesson05 {

namespace {
constexpr const char* kHere = "lessons/05_reduction/reduction_single_pass.cu";
}  // namespace

//! [coarsened_atomic_exercise]
// TODO(student): rung "coarsened_atomic" (PMPP ch. 10, coarsened segmented reduction). Use
// constexpr int kCoarseFactor = 8: block b owns the segment starting at
// 2 * kCoarseFactor * blockDim.x * b. Each thread folds the 2 * kCoarseFactor elements
// segment + k * blockDim.x + tid (k = 0, 1, ...; skip those >= n) into a register starting at
// Op::identity() (Op: the functor type with_op() hands the kernel, as in the given kernels): a
// warp's loads are coalesced and all independent. Store the register in data[tid] of a
// `__shared__ T data[kMaxBlock];` (kMaxBlock: reduction.cuh) and reduce data[] with the same tree
// as your unrolled_warp kernel. That kernel is in reduction.cu, another file, and a kernel cannot
// call another kernel's loop: write the tree again here (block-wide rounds while s > 32, then the
// six rounds with __syncwarp()). Thread 0 then calls atomic_combine(op, out, v) (given,
// reduction_device.cuh: read how it does float max and min). In the launcher, call
// fill_identity(op, d_out, stream) first (the atomics need a starting value), then launch
// blocks_for(n, 2 * kCoarseFactor * block) blocks.
template <class T>
void run_coarsened_atomic(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                          cudaStream_t stream) {
  throw NotImplemented("coarsened_atomic", kHere);
}
//! [coarsened_atomic_exercise]

// TODO(student): rung "warp_shuffle". Keep coarsened_atomic's loads; replace the shared-memory
// tree. Write warp_reduce(v, op): for offset = 16, 8, 4, 2, 1:
// v = op(v, __shfl_down_sync(0xffffffffu, v, offset)); lane 0 ends with the warp's value. Then
// block_reduce(v, op): each warp reduces, lane 0 stores its value in __shared__ T warp_results[32],
// __syncthreads(), and warp 0 reduces warp_results[lane] (the identity for lane >= number of
// warps). Thread 0 calls atomic_combine. Same launch as coarsened_atomic.
template <class T>
void run_warp_shuffle(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                      cudaStream_t stream) {
  throw NotImplemented("warp_shuffle", kHere);
}

// TODO(student), stretch: rung "vectorized". Reach for CUB DeviceReduce (the demo prints your
// share of it). Ideas, each worth measuring: load float4 / int4 (16 bytes per instruction; the
// first elements up to a 16-byte boundary and the last few are read one by one, since d_in may
// start anywhere); launch a grid the GPU holds at once (two blocks of 512 threads per SM, at most
// cudaOccupancyMaxActiveBlocksPerMultiprocessor of them, times gpu_info().sm_count, asked once)
// and let each thread stride over the vectors with four loads in flight into four independent
// accumulators; finish in the same launch: block_reduce, thread 0 stores the block's value in
// workspace<T>(blocks)[blockIdx.x], calls __threadfence(), then atomicAdd(arrival_counter(), 1u)
// (given, reduction_rungs.cuh); the block that gets gridDim.x - 1 back is the last: it reduces
// the partials (read them with __ldcg), writes *d_out and sets the counter back to 0. One
// launch, no identity fill, no atomics on the result.
template <class T>
void run_vectorized(Op op, const T* d_in, T* d_out, std::size_t n, cudaStream_t stream) {
  throw NotImplemented("vectorized", kHere);
}

#define COURSE_LESSON05_INSTANTIATE(T)                                                     \
  template void run_coarsened_atomic<T>(Op, const T*, T*, std::size_t, int, cudaStream_t); \
  template void run_warp_shuffle<T>(Op, const T*, T*, std::size_t, int, cudaStream_t);     \
  template void run_vectorized<T>(Op, const T*, T*, std::size_t, cudaStream_t);
COURSE_LESSON05_INSTANTIATE(int)
COURSE_LESSON05_INSTANTIATE(float)
#undef COURSE_LESSON05_INSTANTIATE

}  // namespace course::lesson05
