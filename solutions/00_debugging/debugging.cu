// Lesson 00, the debugging lab fixed. Each kernel is the skeleton's with its one bug mended; the
// comment above it says what went wrong, which tool shows it, and why the fix is right.
#include <cstdint>

#include "course/error.hpp"
#include "debugging.cuh"
#include "debugging_rungs.cuh"

namespace course::lesson00 {

//! [count_kernel]
// Each block counts its positive elements in one shared counter, then adds that to the total.
// The skeleton's `block_count += 1` is three steps: load, add, store. The threads of a warp that
// run it together all load the same old value and all store old + 1, so all their increments
// but one are lost, and threads of other warps interleave theirs anywhere (racecheck: a hazard
// on block_count between threads of different warps). atomicAdd makes the three steps one
// indivisible operation: every increment lands, in whatever order. (A warp could also count its
// positives with __ballot_sync and __popc and add them once: fewer atomics, same result.)
__global__ void count_kernel(const float* __restrict__ in, std::int32_t* __restrict__ count,
                             int n) {
  __shared__ std::int32_t block_count;
  if (threadIdx.x == 0)
    block_count = 0;
  __syncthreads();  // the counter is zero before any thread adds to it
  const int i = blockIdx.x * kBlock + threadIdx.x;
  if (i < n && in[i] > 0.0f)
    atomicAdd(&block_count, 1);
  __syncthreads();  // every increment has landed before thread 0 reads the counter
  if (threadIdx.x == 0)
    atomicAdd(count, block_count);  // blocks add into one total: atomic again
}
//! [count_kernel]

void launch_count(const float* d_in, std::int32_t* d_count, int n, cudaStream_t stream) {
  // The blocks add into *d_count, so it starts at zero, on the same stream.
  CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(std::int32_t), stream));
  count_kernel<<<blocks_for(n), kBlock, 0, stream>>>(d_in, d_count, n);
  CUDA_CHECK_LAST();
}

//! [downsample_kernel]
// One thread per output: thread j averages the pair that starts at element 2j. When n is odd the
// last pair is cut short, and its second element would be in[n], one past the end. The
// skeleton's test `first + 1 <= n` holds for that pair too, so its thread read in[n]: memcheck
// reports the read (an address past the end of the input's allocation), and in the tests the
// poisoned elements after the input turn that output into NaN. A pair is whole exactly when its
// second element is an element of the array: first + 1 < n.
__global__ void downsample_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int j = blockIdx.x * kBlock + threadIdx.x;
  const int first = 2 * j;
  if (first >= n)
    return;
  if (first + 1 < n)
    out[j] = 0.5f * (in[first] + in[first + 1]);
  else
    out[j] = in[first];  // n is odd: the last element has no partner and is its own mean
}
//! [downsample_kernel]

void launch_downsample(const float* d_in, float* d_out, int n, cudaStream_t stream) {
  downsample_kernel<<<blocks_for((n + 1) / 2), kBlock, 0, stream>>>(d_in, d_out, n);
  CUDA_CHECK_LAST();
}

//! [reverse_kernel]
// Block b reverses the kBlock elements that start at base = b * kBlock, both global accesses
// coalesced: thread t reads in[base + t] into tile[t], then writes output element
// n - base - kBlock + t, which is input element base + kBlock - 1 - t, from the other end of the
// tile. That slot was written by thread kBlock - 1 - t, in another warp. Without the barrier
// (the skeleton's bug) a warp may read it before that warp has written it: racecheck reports the
// read-after-write hazard, and the tests, which fill shared memory with NaN first, see NaN. The
// barrier stands where every thread of the block reaches it: inside `if (i < n)` the threads
// past the end of the array would skip it and read early, undefined behaviour that synccheck
// does not report on recent GPUs, though racecheck sees the race it leaves.
__global__ void reverse_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kBlock];
  const int base = blockIdx.x * kBlock;
  const int i = base + threadIdx.x;
  if (i < n)
    tile[threadIdx.x] = in[i];
  __syncthreads();  // the whole tile is in place before any thread reads another thread's slot
  const int mirror = kBlock - 1 - threadIdx.x;  // the slot this thread writes out
  const int from = base + mirror;               // and the input element it holds
  if (from < n)
    out[n - 1 - from] = tile[mirror];
}
//! [reverse_kernel]

void launch_reverse(const float* d_in, float* d_out, int n, cudaStream_t stream) {
  reverse_kernel<<<blocks_for(n), kBlock, 0, stream>>>(d_in, d_out, n);
  CUDA_CHECK_LAST();
}

//! [smooth_kernel]
// Block b loads its kBlock elements into tile[1 .. kBlock] and one neighbour on each side into
// the halo, tile[0] and tile[kBlock + 1]; thread t then averages tile[t], tile[t + 1] and
// tile[t + 2]. Past either end of the array the neighbour is zero. The skeleton guarded the
// halo's global reads (rightly: in[-1] and in[n] are not elements) but then wrote nothing into
// the halo there, so the first block's tile[0], and the last block's tile[kBlock + 1] when n is
// a multiple of kBlock, kept whatever shared memory held before the kernel: often a zero, which
// hides the bug, and NaN in the tests, which fill shared memory with NaN before every run. No
// sanitizer tool reports it: initcheck tracks global memory only. Every slot a thread reads
// must be written, here with the zero that stands for the missing neighbour.
__global__ void smooth_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kBlock + 2];
  const int base = blockIdx.x * kBlock;
  const int i = base + threadIdx.x;
  tile[threadIdx.x + 1] = i < n ? in[i] : 0.0f;  // past the end: zero, the right neighbour of n - 1
  if (threadIdx.x == 0)
    tile[0] = base > 0 ? in[base - 1] : 0.0f;
  if (threadIdx.x == kBlock - 1)
    tile[kBlock + 1] = base + kBlock < n ? in[base + kBlock] : 0.0f;
  __syncthreads();  // the tile and both halo slots are written before any thread reads them
  if (i < n)
    out[i] = (tile[threadIdx.x] + tile[threadIdx.x + 1] + tile[threadIdx.x + 2]) * kThird;
}
//! [smooth_kernel]

void launch_smooth(const float* d_in, float* d_out, int n, cudaStream_t stream) {
  smooth_kernel<<<blocks_for(n), kBlock, 0, stream>>>(d_in, d_out, n);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson00
