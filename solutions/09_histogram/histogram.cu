// Lesson 09, the exercises solved: privatization in global and in shared memory, coarsening with
// contiguous and with interleaved partitioning, and aggregation of runs (PMPP ch. 9).
#include <algorithm>

#include "course/error.hpp"
#include "histogram_rungs.cuh"

namespace course::lesson09 {

namespace {

//! [privatized_global_kernel]
// Each block counts into its own copy of the bins, copies[7 blockIdx.x ...], so the atomics of
// different blocks no longer meet: a bin's queue is now only the block's own threads, and the
// copies of different blocks are spread over the whole L2. The copy holds the last call's
// counts, so the block first zeroes it; the barrier makes the zeros visible to every thread of
// the block before any of them adds. After the second barrier every count of the block is in
// the copy, and 7 threads add it to the result: 7 atomics per block instead of one per letter.
__global__ void privatized_global_kernel(const unsigned char* __restrict__ text, std::size_t n,
                                         std::uint32_t* __restrict__ copies,
                                         std::uint32_t* __restrict__ bins) {
  std::uint32_t* mine = copies + static_cast<std::size_t>(blockIdx.x) * kLetterBins;
  for (unsigned bin = threadIdx.x; bin < kLetterBins; bin += blockDim.x)
    mine[bin] = 0;
  __syncthreads();
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const int bin = letter_bin(text[i]);
    if (bin >= 0)
      atomicAdd(&mine[bin], 1u);
  }
  __syncthreads();
  for (unsigned bin = threadIdx.x; bin < kLetterBins; bin += blockDim.x) {
    const std::uint32_t count = mine[bin];
    if (count > 0)
      atomicAdd(&bins[bin], count);
  }
}
//! [privatized_global_kernel]

//! [privatized_shared_kernel]
// privatized_global with the block's copy in shared memory: an atomic there is done by the SM
// itself, with a latency of tens of cycles instead of a round trip to L2. Shared memory is not
// cleared between blocks (a block finds what the last block on its SM left there), so the
// zeroing is still needed.
__global__ void privatized_shared_kernel(const unsigned char* __restrict__ text, std::size_t n,
                                         std::uint32_t* __restrict__ bins) {
  __shared__ std::uint32_t bins_s[kLetterBins];
  for (unsigned bin = threadIdx.x; bin < kLetterBins; bin += blockDim.x)
    bins_s[bin] = 0;
  __syncthreads();
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const int bin = letter_bin(text[i]);
    if (bin >= 0)
      atomicAdd(&bins_s[bin], 1u);
  }
  __syncthreads();
  for (unsigned bin = threadIdx.x; bin < kLetterBins; bin += blockDim.x) {
    const std::uint32_t count = bins_s[bin];
    if (count > 0)
      atomicAdd(&bins[bin], count);
  }
}
//! [privatized_shared_kernel]

//! [coarsened_contiguous_kernel]
// Coarsening: only as many blocks as the GPU holds at once, each thread counting many bytes, so
// the zeroing and the 7 global atomics of a block are paid once per block-full of the GPU, not
// once per 256 bytes. Here thread t takes the contiguous chunk [t chunk, (t + 1) chunk), as a CPU
// thread would. But at each step the 32 threads of a warp read 32 bytes `chunk` apart: 32
// different memory sectors per load instruction instead of one.
__global__ void coarsened_contiguous_kernel(const unsigned char* __restrict__ text, std::size_t n,
                                            std::uint32_t* __restrict__ bins) {
  __shared__ std::uint32_t bins_s[kLetterBins];
  for (unsigned bin = threadIdx.x; bin < kLetterBins; bin += blockDim.x)
    bins_s[bin] = 0;
  __syncthreads();
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t chunk = (n + threads - 1) / threads;
  const std::size_t end = std::min(n, (thread + 1) * chunk);
  for (std::size_t i = thread * chunk; i < end; ++i) {
    const int bin = letter_bin(text[i]);
    if (bin >= 0)
      atomicAdd(&bins_s[bin], 1u);
  }
  __syncthreads();
  for (unsigned bin = threadIdx.x; bin < kLetterBins; bin += blockDim.x) {
    const std::uint32_t count = bins_s[bin];
    if (count > 0)
      atomicAdd(&bins[bin], count);
  }
}
//! [coarsened_contiguous_kernel]

//! [coarsened_interleaved_kernel]
// The same coarsening with interleaved partitioning: thread t takes bytes t, t + threads,
// t + 2 threads, ... (a grid-stride loop). At each step a warp reads 32 consecutive bytes: one
// sector, a coalesced load.
__global__ void coarsened_interleaved_kernel(const unsigned char* __restrict__ text, std::size_t n,
                                             std::uint32_t* __restrict__ bins) {
  __shared__ std::uint32_t bins_s[kLetterBins];
  for (unsigned bin = threadIdx.x; bin < kLetterBins; bin += blockDim.x)
    bins_s[bin] = 0;
  __syncthreads();
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = thread; i < n; i += threads) {
    const int bin = letter_bin(text[i]);
    if (bin >= 0)
      atomicAdd(&bins_s[bin], 1u);
  }
  __syncthreads();
  for (unsigned bin = threadIdx.x; bin < kLetterBins; bin += blockDim.x) {
    const std::uint32_t count = bins_s[bin];
    if (count > 0)
      atomicAdd(&bins[bin], count);
  }
}
//! [coarsened_interleaved_kernel]

//! [aggregated_kernel]
// coarsened_interleaved, but a thread that meets the same bin again and again (a long run in the
// input: a region of sky in an image, a run of one letter here) counts the run in a register and
// adds it with one atomic when the bin changes. Fewer atomics, and above all fewer threads
// queueing at the same shared counter. Whatever run is still open when the loop ends must be
// added too.
__global__ void aggregated_kernel(const unsigned char* __restrict__ text, std::size_t n,
                                  std::uint32_t* __restrict__ bins) {
  __shared__ std::uint32_t bins_s[kLetterBins];
  for (unsigned bin = threadIdx.x; bin < kLetterBins; bin += blockDim.x)
    bins_s[bin] = 0;
  __syncthreads();
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  int run_bin = -1;       // the bin of the open run (-1: none yet)
  std::uint32_t run = 0;  // its length so far
  for (std::size_t i = thread; i < n; i += threads) {
    const int bin = letter_bin(text[i]);
    if (bin < 0)
      continue;  // an ignored byte does not end a run
    if (bin == run_bin) {
      ++run;
    } else {
      if (run > 0)
        atomicAdd(&bins_s[run_bin], run);
      run_bin = bin;
      run = 1;
    }
  }
  if (run > 0)
    atomicAdd(&bins_s[run_bin], run);
  __syncthreads();
  for (unsigned bin = threadIdx.x; bin < kLetterBins; bin += blockDim.x) {
    const std::uint32_t count = bins_s[bin];
    if (count > 0)
      atomicAdd(&bins[bin], count);
  }
}
//! [aggregated_kernel]

// The grid of the coarsened rungs: as many blocks as the GPU holds at once, fewer when n is so
// small that some would have nothing to do.
template <class Kernel>
unsigned coarsened_grid(Kernel* kernel, std::size_t n, int block) {
  return std::min(resident_blocks(kernel, block), blocks_for(n, block));
}

}  // namespace

void launch_privatized_global(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                              int block, cudaStream_t stream) {
  const unsigned blocks = blocks_for(n, block);
  std::uint32_t* copies = workspace(static_cast<std::size_t>(blocks) * kLetterBins);
  privatized_global_kernel<<<blocks, block, 0, stream>>>(d_text, n, copies, d_bins);
  CUDA_CHECK_LAST();
}

void launch_privatized_shared(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                              int block, cudaStream_t stream) {
  privatized_shared_kernel<<<blocks_for(n, block), block, 0, stream>>>(d_text, n, d_bins);
  CUDA_CHECK_LAST();
}

void launch_coarsened_contiguous(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                                 int block, cudaStream_t stream) {
  const unsigned blocks = coarsened_grid(coarsened_contiguous_kernel, n, block);
  coarsened_contiguous_kernel<<<blocks, block, 0, stream>>>(d_text, n, d_bins);
  CUDA_CHECK_LAST();
}

void launch_coarsened_interleaved(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins,
                                  int block, cudaStream_t stream) {
  const unsigned blocks = coarsened_grid(coarsened_interleaved_kernel, n, block);
  coarsened_interleaved_kernel<<<blocks, block, 0, stream>>>(d_text, n, d_bins);
  CUDA_CHECK_LAST();
}

void launch_aggregated(const unsigned char* d_text, std::size_t n, std::uint32_t* d_bins, int block,
                       cudaStream_t stream) {
  const unsigned blocks = coarsened_grid(aggregated_kernel, n, block);
  aggregated_kernel<<<blocks, block, 0, stream>>>(d_text, n, d_bins);
  CUDA_CHECK_LAST();
}

}  // namespace course::lesson09
