// Lesson 06, the exercises solved: a shared-memory blur, a sliding window, and every way of
// getting the vector to the GPU and back.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "box_blur_rungs.cuh"
#include "course/error.hpp"
#include "course/stream.hpp"

namespace course::lesson06 {

namespace {

// The inputs a range may read: [begin - R, end + R) clipped to [0, n).
__host__ __device__ inline long long halo_low(Range range, int radius) {
  return range.begin > static_cast<std::size_t>(radius)
             ? static_cast<long long>(range.begin) - radius
             : 0;
}
__host__ __device__ inline long long halo_high(Range range, int radius, std::size_t n) {
  return static_cast<long long>(range.end + radius < n ? range.end + radius : n);
}

//! [shared_halo_kernel]
// The block first copies the inputs all its threads need into shared memory: its own blockDim.x
// elements and a halo of R on each side, 2R + blockDim.x in all, read once and coalesced. After
// the barrier each thread sums its 2R + 1 neighbours from shared memory. Loads outside the
// vector (or outside the chunk's halo) are never made: the ends of the vector read nothing past
// its edges; the box-blur article's version did.
__global__ void shared_halo_kernel(const float* __restrict__ in, float* __restrict__ out,
                                   std::size_t n, int radius, Range range) {
  extern __shared__ float tile[];  // blockDim.x + 2 * radius floats
  const std::size_t block_first = range.begin + blockIdx.x * static_cast<std::size_t>(blockDim.x);
  const long long low = halo_low(range, radius), high = halo_high(range, radius, n);
  for (int t = threadIdx.x; t < static_cast<int>(blockDim.x) + 2 * radius; t += blockDim.x) {
    const long long g = static_cast<long long>(block_first) - radius + t;
    tile[t] = g >= low && g < high ? in[g] : 0.0f;
  }
  // Every thread reads neighbours that other threads loaded.
  __syncthreads();
  const std::size_t i = block_first + threadIdx.x;
  if (i >= range.end)
    return;
  const int c = threadIdx.x + radius;
  const std::size_t r = static_cast<std::size_t>(radius);
  if (i < r || i + r >= n) {
    out[i] = tile[c];
    return;
  }
  float sum = 0.0f;
  for (int j = -radius; j <= radius; ++j)
    sum += tile[c + j];
  out[i] = sum / static_cast<float>(2 * radius + 1);
}
//! [shared_halo_kernel]

//! [sliding_window_kernel]
// Each thread computes kOutputsPerThread consecutive outputs. It sums its first window once,
// then slides it: add the element that enters, subtract the one that leaves. Two additions per
// output whatever R is, instead of 2R + 1. Thread t starts at tile[9 t], and 9 is odd, so the
// 32 threads of a warp read 32 different banks at every step. The outputs wait in registers
// until every thread has read its window, go back into the tile, and leave it in coalesced
// stores: written straight from the registers, a warp's stores would be 9 floats apart, nine
// times the memory transactions.
constexpr int kOutputsPerThread = 9;

// Whether a block's tile lies inside the vector and inside the range's halo, and its outputs
// start on a 16-byte boundary in both vectors: then the tile's body moves as float4s. With
// aligned vectors that is every block but the first and the last.
__device__ inline bool moves_float4(const float* in, const float* out, std::size_t n, int radius,
                                    Range range, std::size_t block_first, int outputs) {
  return block_first >= static_cast<std::size_t>(radius) && block_first + outputs + radius <= n &&
         block_first + outputs <= range.end &&
         reinterpret_cast<std::uintptr_t>(in + block_first) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(out + block_first) % 16 == 0;
}

__global__ void sliding_window_kernel(const float* __restrict__ in, float* __restrict__ out,
                                      std::size_t n, int radius, Range range) {
  // blockDim.x * kOutputsPerThread + 2 * radius floats, after up to 3 floats of padding that put
  // the tile's body (its outputs' own inputs) on a 16-byte boundary.
  extern __shared__ float4 tile_storage[];
  float* const tile = reinterpret_cast<float*>(tile_storage) + ((radius + 3) / 4 * 4 - radius);
  const int outputs = static_cast<int>(blockDim.x) * kOutputsPerThread;  // a multiple of 4
  const std::size_t block_first = range.begin + blockIdx.x * static_cast<std::size_t>(outputs);
  const long long origin = static_cast<long long>(block_first) - radius;  // global index of tile[0]
  const int width = outputs + 2 * radius;
  // Block-relative bounds, in 32 bits: which outputs are copies.
  const long long interior_begin = radius, interior_end = static_cast<long long>(n) - radius;
  const int copy_below =
      static_cast<int>(min(max(interior_begin - origin, 0LL), static_cast<long long>(width)));
  const int copy_from =
      static_cast<int>(min(max(interior_end - origin, 0LL), static_cast<long long>(width)));
  const bool vectors = moves_float4(in, out, n, radius, range, block_first, outputs);
  float4* const body = reinterpret_cast<float4*>(tile + radius);

  // Every load of a thread is issued before the first is stored: with a plain loop each load
  // would wait for the one before (its value is needed by the store), one in flight at a time.
  // A float4 load asks for four times the bytes of a float load: the body's 9 floats per thread
  // take 2.25 instructions instead of 9, so the same bytes in flight need a quarter of the load
  // requests the SM can keep outstanding, and the H200 keeps its DRAM busy (see README).
  if (vectors) {
    constexpr int kVectorsPerThread = (kOutputsPerThread + 3) / 4;
    const float4* const in4 = reinterpret_cast<const float4*>(in + block_first);
    float4 v[kVectorsPerThread];
#pragma unroll
    for (int k = 0; k < kVectorsPerThread; ++k) {
      const int q = threadIdx.x + k * blockDim.x;
      if (q < outputs / 4)
        v[k] = in4[q];
    }
    // The halos: R elements on each side (blockDim.x >= 64 >= 2R threads).
    const bool loads_halo = threadIdx.x < 2 * radius;
    const int h = threadIdx.x < radius ? threadIdx.x : outputs + threadIdx.x;
    const float halo = loads_halo ? in[origin + h] : 0.0f;
#pragma unroll
    for (int k = 0; k < kVectorsPerThread; ++k) {
      const int q = threadIdx.x + k * blockDim.x;
      if (q < outputs / 4)
        body[q] = v[k];
    }
    if (loads_halo)
      tile[h] = halo;
  } else {
    // The vector's ends, a chunk's ends, misaligned vectors: float by float, inside the range's
    // halo only, zeros elsewhere.
    const long long low = halo_low(range, radius), high = halo_high(range, radius, n);
    const int load_begin = static_cast<int>(max(low - origin, 0LL));
    const int load_end = static_cast<int>(min(high - origin, static_cast<long long>(width)));
    float v[kOutputsPerThread];
#pragma unroll
    for (int k = 0; k < kOutputsPerThread; ++k) {
      const int t = threadIdx.x + k * blockDim.x;
      v[k] = t >= load_begin && t < load_end ? in[origin + t] : 0.0f;
    }
    const int tail = outputs + threadIdx.x;  // the last 2R elements
    const bool loads_tail = threadIdx.x < 2 * radius;
    const float tail_value =
        loads_tail && tail >= load_begin && tail < load_end ? in[origin + tail] : 0.0f;
#pragma unroll
    for (int k = 0; k < kOutputsPerThread; ++k)
      tile[threadIdx.x + k * blockDim.x] = v[k];
    if (loads_tail)
      tile[tail] = tail_value;
  }
  __syncthreads();

  //! [sliding_window_slide]
  // Slide through this thread's outputs (tile positions base .. base + 8), keeping them in
  // registers until every thread has read its inputs.
  const int base = threadIdx.x * kOutputsPerThread + radius;
  const float scale = 1.0f / static_cast<float>(2 * radius + 1);
  float result[kOutputsPerThread];
  float sum = 0.0f;
  for (int j = -radius; j <= radius; ++j)
    sum += tile[base + j];
#pragma unroll
  for (int k = 0; k < kOutputsPerThread; ++k) {
    const int p = base + k;
    // The R elements at each end of the vector are copies; so are positions outside it, which
    // are never stored.
    result[k] = p < copy_below || p >= copy_from ? tile[p] : sum * scale;
    if (k + 1 < kOutputsPerThread)
      sum += tile[p + radius + 1] - tile[p - radius];
  }
  __syncthreads();  // every thread has read its window: the tile can take the outputs
#pragma unroll
  for (int k = 0; k < kOutputsPerThread; ++k)
    tile[base + k] = result[k];
  __syncthreads();
  //! [sliding_window_slide]
  // Stores of whole float4s from the aligned body: each warp writes four whole 128-byte lines.
  // Float by float, they would start R floats before a line's boundary.
  if (vectors) {
    float4* const out4 = reinterpret_cast<float4*>(out + block_first);
    for (int q = threadIdx.x; q < outputs / 4; q += blockDim.x)
      out4[q] = body[q];
  } else {
    const int valid = static_cast<int>(
        min(static_cast<long long>(range.end) - origin, static_cast<long long>(outputs + radius)));
    for (int t = radius + threadIdx.x; t < valid; t += blockDim.x)
      out[origin + t] = tile[t];
  }
}
//! [sliding_window_kernel]

unsigned blocks_for(Range range, std::size_t per_block) {
  return static_cast<unsigned>((range.end - range.begin + per_block - 1) / per_block);
}

}  // namespace

void launch_shared_halo(const float* d_in, float* d_out, std::size_t n, int radius, Range range,
                        int block, cudaStream_t stream) {
  const std::size_t shared = (block + 2 * radius) * sizeof(float);
  shared_halo_kernel<<<blocks_for(range, block), block, shared, stream>>>(d_in, d_out, n, radius,
                                                                          range);
  CUDA_CHECK_LAST();
}

void launch_sliding_window(const float* d_in, float* d_out, std::size_t n, int radius, Range range,
                           int block, cudaStream_t stream) {
  const std::size_t shared = (block * kOutputsPerThread + 2 * radius + 3) * sizeof(float);
  sliding_window_kernel<<<blocks_for(range, std::size_t(block) * kOutputsPerThread), block, shared,
                          stream>>>(d_in, d_out, n, radius, range);
  CUDA_CHECK_LAST();
}

//! [trip_pinned]
// Page-locked memory: the DMA engine reads and writes it directly, without the driver's staging
// copy, and the copies return at once. The code is the pageable trip's; the memory is not: the
// input comes from cudaHostAlloc, the output from cudaMallocHost (two calls, the same memory).
void trip_pinned(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                 const PipelineOptions& options, cudaStream_t stream) {
  serial_trip(h_in, h_out, n, device, options, stream);
}
//! [trip_pinned]

//! [trip_write_combined]
// The input in write-combined memory: the CPU only writes it, the GPU only reads it. The output
// stays in ordinary pinned memory, because the CPU reads it, and reading write-combined memory
// bypasses the CPU's caches (the demo's CPU column shows what that costs).
void trip_write_combined(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                         const PipelineOptions& options, cudaStream_t stream) {
  serial_trip(h_in, h_out, n, device, options, stream);
}
//! [trip_write_combined]

//! [trip_mapped]
// Zero-copy: both vectors stay in mapped host memory and the kernel reads and writes them
// through their device addresses, across the bus, with no copy at all. Every element crosses
// the bus once each way, as with copies, but the transfers overlap the kernel by construction.
void trip_mapped(const float* h_in, float* h_out, std::size_t n, const TripBuffers& /*device*/,
                 const PipelineOptions& options, cudaStream_t stream) {
  void* in = nullptr;
  void* out = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(&in, const_cast<float*>(h_in), 0));
  CUDA_CHECK(cudaHostGetDevicePointer(&out, h_out, 0));
  launch_blur(options.kernel, static_cast<const float*>(in), static_cast<float*>(out), n,
              options.radius, Range{0, n}, options.block, stream);
}
//! [trip_mapped]

//! [trip_streams]
// Three streams and the vector in chunks: an upload stream copies the chunks in, one after the
// other; the caller's stream blurs chunk k as soon as every chunk its halo reaches has arrived; a
// download stream copies chunk k out as soon as it is blurred. Events carry each dependency from
// one stream to the next, so chunk k + 1 travels in while chunk k is blurred and chunk k - 1
// travels out. Copies in one stream run in order: the first chunk is ready after one chunk's
// time, not after all of them. A chunk's outputs need R inputs past its end; rather than wait
// for the whole next chunk, the uploads are cut R elements later than the chunks, so upload k
// brings the rest of chunk k (its first R elements came with upload k - 1) and its right halo,
// and the blur of chunk k waits for upload k only.
void trip_streams(const float* h_in, float* h_out, std::size_t n, const TripBuffers& device,
                  const PipelineOptions& options, cudaStream_t stream) {
  const int chunks = static_cast<int>(std::min<std::size_t>(options.chunks, n));
  const std::size_t r = static_cast<std::size_t>(options.radius);
  auto chunk = [&](int k) {  // n k reaches 2^34: 64-bit arithmetic
    return Range{n * static_cast<std::size_t>(k) / chunks,
                 n * static_cast<std::size_t>(k + 1) / chunks};
  };
  auto piece = [&](int k) {  // upload k: chunk k shifted right by R, clipped to the vector
    const std::size_t begin = k == 0 ? 0 : std::min(n, chunk(k).begin + r);
    const std::size_t end = k + 1 == chunks ? n : std::min(n, chunk(k).end + r);
    return Range{begin, end};
  };
  const Stream upload, download;
  std::vector<Event> copied(chunks), blurred(chunks);

  // Fork: nothing of the trip starts before what the caller enqueued on its stream.
  const Event start;
  start.record(stream);
  upload.wait(start.get());
  download.wait(start.get());
  //! [trip_streams_chunks]
  for (int k = 0; k < chunks; ++k) {
    const Range range = piece(k);
    if (range.end > range.begin)
      CUDA_CHECK(cudaMemcpyAsync(device.d_in + range.begin, h_in + range.begin,
                                 (range.end - range.begin) * sizeof(float), cudaMemcpyHostToDevice,
                                 upload.get()));
    copied[k].record(upload.get());
  }
  for (int k = 0; k < chunks; ++k) {
    // Uploads 0..k hold every input chunk k needs: [begin - R, end + R).
    CUDA_CHECK(cudaStreamWaitEvent(stream, copied[k].get(), 0));
    launch_blur(options.kernel, device.d_in, device.d_out, n, options.radius, chunk(k),
                options.block, stream);
    blurred[k].record(stream);
  }
  for (int k = 0; k < chunks; ++k) {
    const Range range = chunk(k);
    download.wait(blurred[k].get());
    CUDA_CHECK(cudaMemcpyAsync(h_out + range.begin, device.d_out + range.begin,
                               (range.end - range.begin) * sizeof(float), cudaMemcpyDeviceToHost,
                               download.get()));
  }
  //! [trip_streams_chunks]
  // Join: the caller's stream waits for the last download (the uploads are behind it already:
  // the blurs waited for every one). The streams and events may go now; CUDA keeps what is
  // still enqueued alive until it has run.
  const Event downloaded;
  downloaded.record(download.get());
  CUDA_CHECK(cudaStreamWaitEvent(stream, downloaded.get(), 0));
}
//! [trip_streams]

}  // namespace course::lesson06
