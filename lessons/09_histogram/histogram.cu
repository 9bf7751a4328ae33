// Lesson 09, the exercises: privatization, coarsening and aggregation (PMPP ch. 9). Write each
// kernel, launch it in its launch_ function, and delete the `throw`. Start from
// atomic_global_kernel in histogram_given.cu: each rung changes one thing in the rung before it.
// Every launcher is called with d_bins already zero: add the counts into it.
#include <algorithm>

#include "course/error.hpp"
#include "histogram_rungs.cuh"

namespace course::lesson09 {

namespace {
constexpr const char* kHere = "lessons/09_histogram/histogram.cu";
}  // namespace

//! [privatized_global_exercise]
// TODO(student): rung "privatized_global". Give each block its own copy of the 7 bins in global
// memory, so that the atomics of different blocks no longer queue at the same 7 counters:
//   1. In the launcher: blocks = blocks_for(n, block), and
//      std::uint32_t* copies = workspace(blocks * kLetterBins) (given; it holds whatever the
//      last call left there). Pass copies and d_bins to the kernel.
//   2. In the kernel: mine = copies + blockIdx.x * kLetterBins (in std::size_t). Threads
//      threadIdx.x < kLetterBins set mine[threadIdx.x] = 0; then __syncthreads().
//   3. As atomic_global_kernel, but atomicAdd(&mine[bin], 1u).
//   4. __syncthreads() (every count of the block is in), then threads < kLetterBins add
//      mine[threadIdx.x] to d_bins[threadIdx.x] with one atomicAdd (skip zero counts).
void launch_privatized_global(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                              int block, cudaStream_t stream) {
  throw NotImplemented("privatized_global", kHere);
}
//! [privatized_global_exercise]

//! [privatized_shared_exercise]
// TODO(student): rung "privatized_shared". privatized_global, with the block's copy declared
// `__shared__ std::uint32_t bins_s[kLetterBins];` instead of a slice of the workspace (no
// workspace any more). Zero it first: shared memory is not cleared between blocks, a block
// finds there whatever the previous block on its SM left. The additions into bins_s still need
// atomicAdd: the threads of a block run at the same time, and `++bins_s[bin]` from two of them
// can lose one of the two. Launch blocks_for(n, block) blocks of `block` threads.
void launch_privatized_shared(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                              int block, cudaStream_t stream) {
  throw NotImplemented("privatized_shared", kHere);
}
//! [privatized_shared_exercise]

//! [coarsened_contiguous_exercise]
// TODO(student): rung "coarsened_contiguous". privatized_shared with far fewer threads, each
// counting many bytes. Launch only the blocks the GPU holds at once:
//   blocks = std::min(resident_blocks(your_kernel, block), blocks_for(n, block))
// (resident_blocks is given). In the kernel, thread = blockIdx.x * blockDim.x + threadIdx.x and
// threads = gridDim.x * blockDim.x (in std::size_t); chunk = ceil(n / threads); thread t counts
// bytes [t * chunk, min(n, (t + 1) * chunk)), one after the other. Zero the shared bins before,
// add them to d_bins after, as in privatized_shared.
void launch_coarsened_contiguous(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                                 int block, cudaStream_t stream) {
  throw NotImplemented("coarsened_contiguous", kHere);
}
//! [coarsened_contiguous_exercise]

//! [coarsened_interleaved_exercise]
// TODO(student): rung "coarsened_interleaved". coarsened_contiguous with interleaved
// partitioning: `for (std::size_t i = thread; i < n; i += threads)`. At each step the 32 threads
// of a warp now read 32 consecutive bytes (one memory transaction) instead of 32 bytes `chunk`
// apart. Same launch as coarsened_contiguous. Mind the last, partial sweep: n need not be a
// multiple of threads.
void launch_coarsened_interleaved(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                                  int block, cudaStream_t stream) {
  throw NotImplemented("coarsened_interleaved", kHere);
}
//! [coarsened_interleaved_exercise]

//! [aggregated_exercise]
// TODO(student): rung "aggregated". coarsened_interleaved, but keep the current run in two
// registers: int run_bin = -1 (no run yet) and std::uint32_t run = 0. For each letter of bin b:
// if b == run_bin, ++run; otherwise add the finished run with
// atomicAdd(&bins_s[run_bin], run) (only if run > 0), then run_bin = b, run = 1. Non-letters
// are skipped and do not end a run. After the loop, the last run is still open: add it too.
// Same launch as coarsened_interleaved.
void launch_aggregated(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins, int block,
                       cudaStream_t stream) {
  throw NotImplemented("aggregated", kHere);
}
//! [aggregated_exercise]

}  // namespace course::lesson09
