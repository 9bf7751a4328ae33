// Lesson 00, the debugging lab: four kernels that compile, run, and give wrong answers. Each holds
// one bug of a kind the course's tests and tools are built to catch. For each: run its test, read
// the failure, run the tool its TODO names, find the line, fix it (a line or two), grade again
// (README.md, "How to work on this lab"). The commands below use
//   T=build/student/lessons/00_debugging/lesson00_test_student
// COURSE_SANITIZE=1 gives a test the small cases and exact-size buffers that the tools need.
#include <cstdint>

#include "course/error.hpp"
#include "debugging.cuh"
#include "debugging_rungs.cuh"

namespace course::lesson00 {

//! [count_exercise]
// TODO(student): rung "count" — this kernel has a bug. It counts the positive elements of the
// input in one shared counter per block, then adds each block's count to the total. The total
// comes out too small, by an amount that depends on the input. The bug is a race: two threads
// update the same shared address with nothing to order them. racecheck reports each such pair
// of accesses, with the source line of both:
//   COURSE_SANITIZE=1 compute-sanitizer --tool racecheck $T --test-case=count.correct
// Then ask what one line of C++ becomes when the 32 threads of a warp run it at the same time.
__global__ void count_kernel(const float* __restrict__ in, std::int32_t* __restrict__ count,
                             int n) {
  __shared__ std::int32_t block_count;
  if (threadIdx.x == 0)
    block_count = 0;
  __syncthreads();  // the counter is zero before any thread adds to it
  const int i = blockIdx.x * kBlock + threadIdx.x;
  if (i < n && in[i] > 0.0f)
    block_count += 1;
  __syncthreads();  // every increment has landed before thread 0 reads the counter
  if (threadIdx.x == 0)
    atomicAdd(count, block_count);  // blocks add into one total
}
//! [count_exercise]

void launch_count(const float* d_in, std::int32_t* d_count, int n, cudaStream_t stream) {
  // The blocks add into *d_count, so it starts at zero, on the same stream.
  CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(std::int32_t), stream));
  count_kernel<<<blocks_for(n), kBlock, 0, stream>>>(d_in, d_count, n);
  CUDA_CHECK_LAST();
}

//! [downsample_exercise]
// TODO(student): rung "downsample" — this kernel has a bug. Thread j averages the pair of
// elements that starts at 2j; when n is odd the last element has no partner and is its own
// mean. For even n the output is right; for odd n its last element is wrong (NaN in the tests,
// which put poisoned values after the input). The bug is a read past the end of the input.
// memcheck reports every access outside an allocation: the kernel, the line, the thread and
// block, and how many bytes past the end the address is:
//   COURSE_SANITIZE=1 compute-sanitizer --tool memcheck $T --test-case=downsample.correct
// Then make the thread memcheck names print what it reads: printf from one thread only
// (README.md, "printf in a kernel"). Which branch does that thread take, and which should it?
__global__ void downsample_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int j = blockIdx.x * kBlock + threadIdx.x;
  const int first = 2 * j;
  if (first >= n)
    return;
  if (first + 1 <= n)
    out[j] = 0.5f * (in[first] + in[first + 1]);
  else
    out[j] = in[first];  // n is odd: the last element has no partner and is its own mean
}
//! [downsample_exercise]

void launch_downsample(const float* d_in, float* d_out, int n, cudaStream_t stream) {
  downsample_kernel<<<blocks_for((n + 1) / 2), kBlock, 0, stream>>>(d_in, d_out, n);
  CUDA_CHECK_LAST();
}

//! [reverse_exercise]
// TODO(student): rung "reverse" — this kernel has a bug. Each block reverses kBlock elements
// through a shared tile, so that its global read and its global write are both coalesced:
// thread t loads element base + t into tile[t], then writes out the slot at the other end of
// the tile. Some outputs are wrong, and which ones changes from run to run (NaN in the tests,
// which fill shared memory with NaN before each run). A thread reads a slot of the tile that
// another warp writes; racecheck shows which access can come first:
//   COURSE_SANITIZE=1 compute-sanitizer --tool racecheck $T --test-case=reverse.correct
// Make sure every thread of the block reaches your fix, the threads past the end of the array
// included: a barrier that only some threads reach is undefined behaviour, and on recent GPUs
// no tool names it (synccheck does not), though racecheck still sees the race it leaves.
__global__ void reverse_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kBlock];
  const int base = blockIdx.x * kBlock;
  const int i = base + threadIdx.x;
  if (i < n)
    tile[threadIdx.x] = in[i];
  const int mirror = kBlock - 1 - threadIdx.x;  // the slot this thread writes out
  const int from = base + mirror;               // and the input element it holds
  if (from < n)
    out[n - 1 - from] = tile[mirror];
}
//! [reverse_exercise]

void launch_reverse(const float* d_in, float* d_out, int n, cudaStream_t stream) {
  reverse_kernel<<<blocks_for(n), kBlock, 0, stream>>>(d_in, d_out, n);
  CUDA_CHECK_LAST();
}

//! [smooth_exercise]
// TODO(student): rung "smooth" — this kernel has a bug. Each block loads its kBlock elements
// into tile[1 .. kBlock] and one neighbour on each side into the halo, tile[0] and
// tile[kBlock + 1]; thread t averages tile[t .. t + 2]; past either end of the array a
// neighbour counts as zero. In the tests the first output is NaN (and the last when n is a
// multiple of kBlock). No sanitizer tool reports it: the kernel reads shared memory that
// nothing wrote, which the tests fill with NaN before each run. In cuda-gdb, step thread 0 of
// block 0 through the lines that fill the tile (README.md, "cuda-gdb"): which does it skip?
// Which thread should have written the slot it reads, and what?
__global__ void smooth_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kBlock + 2];
  const int base = blockIdx.x * kBlock;
  const int i = base + threadIdx.x;
  tile[threadIdx.x + 1] = i < n ? in[i] : 0.0f;  // past the end: zero, the right neighbour of n - 1
  if (threadIdx.x == 0 && base > 0)
    tile[0] = in[base - 1];
  if (threadIdx.x == kBlock - 1 && base + kBlock < n)
    tile[kBlock + 1] = in[base + kBlock];
  __syncthreads();  // the tile and both halo slots are written before any thread reads them
  if (i < n)
    out[i] = (tile[threadIdx.x] + tile[threadIdx.x + 1] + tile[threadIdx.x + 2]) * kThird;
}
//! [smooth_exercise]

void launch_smooth(const float* d_in, float* d_out, int n, cudaStream_t stream) {
  smooth_kernel<<<blocks_for(n), kBlock, 0, stream>>>(d_in, d_out, n);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson00
