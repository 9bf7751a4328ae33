// Lesson 05, the tree rungs: the memory lab's reduce2 to reduce5, for any n. Write each kernel,
// launch it in its pass_ function, and delete the `throw`. Each kernel is one *pass*: block b
// reduces its part of the input to one value, out[b]; the given reduce_in_passes()
// (reduction_given.cu) runs the pass again over those values until one is left. Start from
// interleaved_divergent_kernel in reduction_given.cu: each rung changes one thing in the rung
// before it.
#include "course/error.hpp"
#include "reduction_device.cuh"
#include "reduction_rungs.cuh"

namespace course::lesson05 {

namespace {
constexpr const char* kHere = "lessons/05_reduction/reduction.cu";
}  // namespace

//! [interleaved_strided_exercise]
// TODO(student): rung "interleaved_strided" (reduce2). Copy interleaved_divergent_kernel and
// change only the loop body: at step s, thread tid works on index = 2 * s * tid, combining
// data[index] and data[index + s] when index < blockDim.x. The working threads are now the first
// ones, packed into few warps. Launch one thread per element:
//   with_op<T>(op, [&](auto functor) {
//     interleaved_strided_kernel<<<blocks_for(n, block), block, 0, stream>>>(d_in, d_out, n,
//     functor);
//   });
//   CUDA_CHECK_LAST();
template <class T>
void pass_interleaved_strided(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                              cudaStream_t stream) {
  throw NotImplemented("interleaved_strided", kHere);
}
//! [interleaved_strided_exercise]

// TODO(student): rung "sequential" (reduce3). Reverse the tree: for s = blockDim.x / 2 down to 1,
// threads tid < s combine data[tid] and data[tid + s]. A warp now reads 32 consecutive words: no
// bank conflicts. One element per thread, launched like interleaved_strided.
template <class T>
void pass_sequential(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                     cudaStream_t stream) {
  throw NotImplemented("sequential", kHere);
}

// TODO(student): rung "first_add_on_load" (reduce4). sequential_kernel, but each block covers
// 2 * blockDim.x elements: thread tid loads i = 2 * blockIdx.x * blockDim.x + tid and
// i + blockDim.x (each only if < n, else Op::identity()) and stores op(first, second) into
// data[tid]. Launch blocks_for(n, 2 * block) blocks (reduce_in_passes already counts 2 per thread).
template <class T>
void pass_first_add_on_load(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                            cudaStream_t stream) {
  throw NotImplemented("first_add_on_load", kHere);
}

// TODO(student): rung "unrolled_warp" (reduce5, made correct). first_add_on_load_kernel, with the
// loop stopping at s > 32; then threads tid < 32 do the last six steps (s = 32, 16, ..., 1) without
// __syncthreads(). The memory lab did those six steps with no barrier at all, each thread adding
// data[tid + s] into data[tid] in place: since Volta that is a race (and without `volatile` the
// compiler keeps data[tid] in a register). Per step: read into a register,
// v = op(v, data[tid + s]); __syncwarp(); then data[tid] = v; __syncwarp(). Thread 0 writes v to
// out[blockIdx.x]. Needs block >= 64.
template <class T>
void pass_unrolled_warp(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                        cudaStream_t stream) {
  throw NotImplemented("unrolled_warp", kHere);
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
