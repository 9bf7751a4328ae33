// Lesson 10, the section scans and the hierarchical scan, solved. Each section rung changes one
// thing in the rung before it: kogge_stone (given) -> two buffers instead of the second barrier
// -> a work-efficient tree -> coarsening; hierarchical then turns three_phase into a scan of the
// whole input.
#include "course/error.hpp"
#include "scan_rungs.cuh"

namespace course::lesson10 {

namespace {

//! [kogge_stone_double_buffer_kernel]
// kogge_stone with two shared arrays that take turns: each step reads one and writes the other,
// so no thread ever overwrites what another thread of the same step still has to read, and the
// temporary and the second barrier go. One barrier per step is still needed: it separates the
// writes of one step from the reads of the next (the same array), and the reads of one step from
// the writes of the next (the other array). A thread with t < stride copies its element across:
// the array it writes must hold every element, not only the updated ones.
template <class T>
__global__ void kogge_stone_double_buffer_kernel(const T* in, T* out, T* section_sums,
                                                 std::size_t n, bool exclusive) {
  __shared__ T buffers[2][kMaxBlock];
  const unsigned t = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + t;
  T* src = buffers[0];
  T* dst = buffers[1];
  src[t] = i < n ? in[i] : T{0};
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    __syncthreads();  // src is complete, and nobody reads dst any more
    dst[t] = t >= stride ? src[t] + src[t - stride] : src[t];
    T* const written = dst;
    dst = src;
    src = written;
  }
  __syncthreads();  // the exclusive scan reads the neighbour's element
  if (i < n)
    out[i] = exclusive ? (t == 0 ? T{0} : src[t - 1]) : src[t];
  if (section_sums != nullptr && t == blockDim.x - 1)
    section_sums[blockIdx.x] = src[t];
}
//! [kogge_stone_double_buffer_kernel]

//! [brent_kung_kernel]
// Brent-Kung over a section of 2 blockDim.x elements, two per thread. The up-sweep is a
// reduction tree: at stride s the element at every index 2 s k - 1 adds the one s below it,
// leaving partial sums at the tree's nodes and the section's total in its last element. The
// down-sweep pushes those sums back down: at stride s the element s above each node adds the
// node's value. About 2 (2 blockDim.x) additions per section instead of Kogge-Stone's
// s log2 s, but twice the steps, and the active threads halve at each step of the up-sweep.
// Within a step the written indices (2 s k - 1, or 2 s k - 1 + s) and the read ones never
// coincide, so one barrier per step suffices.
template <class T>
__global__ void brent_kung_kernel(const T* in, T* out, T* section_sums, std::size_t n,
                                  bool exclusive) {
  __shared__ T xy[2 * kMaxBlock];
  const unsigned t = threadIdx.x;
  const unsigned section = 2 * blockDim.x;
  const std::size_t start = static_cast<std::size_t>(blockIdx.x) * section;
  // Two coalesced loads per thread, blockDim.x apart.
  for (unsigned k = t; k < section; k += blockDim.x)
    xy[k] = start + k < n ? in[start + k] : T{0};
  for (unsigned stride = 1; stride < section; stride *= 2) {
    __syncthreads();
    const unsigned index = (t + 1) * 2 * stride - 1;
    if (index < section)
      xy[index] += xy[index - stride];
  }
  for (unsigned stride = section / 4; stride > 0; stride /= 2) {
    __syncthreads();
    const unsigned index = (t + 1) * 2 * stride - 1;
    if (index + stride < section)
      xy[index + stride] += xy[index];
  }
  __syncthreads();
  for (unsigned k = t; k < section; k += blockDim.x)
    if (start + k < n)
      out[start + k] = exclusive ? (k == 0 ? T{0} : xy[k - 1]) : xy[k];
  if (section_sums != nullptr && t == 0)
    section_sums[blockIdx.x] = xy[section - 1];
}
//! [brent_kung_kernel]

//! [three_phase_kernel]
// Coarsening: a section of kThreePhaseCoarsening (C) elements per thread. The block loads the
// section into shared memory with coalesced loads (thread t takes elements t, t + blockDim.x,
// ...). Phase 1: thread t scans its own C consecutive elements sequentially (C - 1 additions, no
// barrier). Phase 2: the block scans the blockDim.x subsection ends with the double-buffered
// Kogge-Stone. Phase 3: thread t adds the end of subsection t - 1 to its elements. The parallel
// scan now runs once per C elements, so barriers and the Kogge-Stone's extra additions are spread
// over C times as much data. (Phase 1 reads words C apart: a C-way bank conflict that padding
// would remove; see the README's questions.)
template <class T>
__global__ void three_phase_kernel(const T* in, T* out, T* section_sums, std::size_t n,
                                   bool exclusive) {
  constexpr unsigned kC = kThreePhaseCoarsening;
  __shared__ T xy[kC * kMaxBlock];
  __shared__ T ends[2][kMaxBlock];
  const unsigned t = threadIdx.x;
  const unsigned section = kC * blockDim.x;
  const std::size_t start = static_cast<std::size_t>(blockIdx.x) * section;
  for (unsigned k = t; k < section; k += blockDim.x)
    xy[k] = start + k < n ? in[start + k] : T{0};
  __syncthreads();
  // Phase 1: the sequential scan of this thread's subsection.
  T* const mine = xy + t * kC;
  T running = mine[0];
#pragma unroll
  for (unsigned k = 1; k < kC; ++k) {
    running += mine[k];
    mine[k] = running;
  }
  // Phase 2: Kogge-Stone over the subsection ends, double-buffered.
  T* src = ends[0];
  T* dst = ends[1];
  src[t] = running;
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    __syncthreads();
    dst[t] = t >= stride ? src[t] + src[t - stride] : src[t];
    T* const written = dst;
    dst = src;
    src = written;
  }
  __syncthreads();
  // Phase 3: add everything before this subsection.
  if (t > 0) {
    const T before = src[t - 1];
#pragma unroll
    for (unsigned k = 0; k < kC; ++k)
      mine[k] += before;
  }
  __syncthreads();  // the stores read other threads' subsections
  for (unsigned k = t; k < section; k += blockDim.x)
    if (start + k < n)
      out[start + k] = exclusive ? (k == 0 ? T{0} : xy[k - 1]) : xy[k];
  if (section_sums != nullptr && t == blockDim.x - 1)
    section_sums[blockIdx.x] = src[t];
}
//! [three_phase_kernel]

//! [hierarchical_kernel]
// Phase 3 of the hierarchical scan: section b + 1 adds the inclusive scan of the section totals
// up to section b, i.e. everything before it. One block per section (the first needs nothing),
// each thread adding to the C elements it would have loaded in three_phase: coalesced, and the
// one offset is read once per thread.
template <class T>
__global__ void add_section_offsets_kernel(T* out, const T* scanned_sums, std::size_t n) {
  constexpr unsigned kC = kThreePhaseCoarsening;
  const std::size_t section = static_cast<std::size_t>(kC) * blockDim.x;
  const std::size_t start = (static_cast<std::size_t>(blockIdx.x) + 1) * section;
  const T offset = scanned_sums[blockIdx.x];
#pragma unroll
  for (unsigned k = 0; k < kC; ++k) {
    const std::size_t i = start + static_cast<std::size_t>(k) * blockDim.x + threadIdx.x;
    if (i < n)
      out[i] += offset;
  }
}

// Sections of three_phase at each level of the hierarchy, until one section holds everything:
// 2^26 elements with block 512 (sections of 4096) need 16384 + 4 totals.
std::size_t hierarchy_scratch(std::size_t n, std::size_t section) {
  std::size_t total = 0;
  for (std::size_t m = (n + section - 1) / section; m > 1; m = (m + section - 1) / section)
    total += m;
  return total;
}

// One level: scan the sections of in, scan their totals (recursively, in place, inclusive), add
// them back. scratch holds hierarchy_scratch(n, section) elements.
template <class T>
void hierarchical_level(const T* in, T* out, std::size_t n, ScanKind kind, int block, T* scratch,
                        cudaStream_t stream) {
  const std::size_t section = section_length(Variant::ThreePhase, block);
  const std::size_t sections = (n + section - 1) / section;
  if (sections == 1)
    return launch_three_phase<T>(in, out, nullptr, n, kind, block, stream);
  T* const sums = scratch;
  launch_three_phase<T>(in, out, sums, n, kind, block, stream);
  hierarchical_level<T>(sums, sums, sections, ScanKind::Inclusive, block, scratch + sections,
                        stream);
  add_section_offsets_kernel<T>
      <<<static_cast<unsigned>(sections - 1), block, 0, stream>>>(out, sums, n);
  CUDA_CHECK_LAST();
}
//! [hierarchical_kernel]

}  // namespace

template <class T>
void launch_kogge_stone_double_buffer(const T* d_in, T* d_out, T* d_section_sums, std::size_t n,
                                      ScanKind kind, int block, cudaStream_t stream) {
  kogge_stone_double_buffer_kernel<T><<<blocks_for(n, block), block, 0, stream>>>(
      d_in, d_out, d_section_sums, n, kind == ScanKind::Exclusive);
  CUDA_CHECK_LAST();
}

template <class T>
void launch_brent_kung(const T* d_in, T* d_out, T* d_section_sums, std::size_t n, ScanKind kind,
                       int block, cudaStream_t stream) {
  brent_kung_kernel<T><<<blocks_for(n, 2 * block), block, 0, stream>>>(
      d_in, d_out, d_section_sums, n, kind == ScanKind::Exclusive);
  CUDA_CHECK_LAST();
}

template <class T>
void launch_three_phase(const T* d_in, T* d_out, T* d_section_sums, std::size_t n, ScanKind kind,
                        int block, cudaStream_t stream) {
  three_phase_kernel<T><<<blocks_for(n, kThreePhaseCoarsening * block), block, 0, stream>>>(
      d_in, d_out, d_section_sums, n, kind == ScanKind::Exclusive);
  CUDA_CHECK_LAST();
}

template <class T>
void run_hierarchical(const T* d_in, T* d_out, std::size_t n, ScanKind kind, int block,
                      cudaStream_t stream) {
  // All levels' totals in one piece of scratch, asked for once (asking again could move it).
  const std::size_t scratch = hierarchy_scratch(n, section_length(Variant::ThreePhase, block));
  T* const sums = scratch > 0 ? workspace<T>(scratch) : nullptr;
  hierarchical_level<T>(d_in, d_out, n, kind, block, sums, stream);
}

#define COURSE_LESSON10_INSTANTIATE(T)                                                             \
  template void launch_kogge_stone_double_buffer<T>(const T*, T*, T*, std::size_t, ScanKind, int,  \
                                                    cudaStream_t);                                 \
  template void launch_brent_kung<T>(const T*, T*, T*, std::size_t, ScanKind, int, cudaStream_t);  \
  template void launch_three_phase<T>(const T*, T*, T*, std::size_t, ScanKind, int, cudaStream_t); \
  template void run_hierarchical<T>(const T*, T*, std::size_t, ScanKind, int, cudaStream_t);
COURSE_LESSON10_INSTANTIATE(int)
COURSE_LESSON10_INSTANTIATE(float)
#undef COURSE_LESSON10_INSTANTIATE

}  // namespace course::lesson10
