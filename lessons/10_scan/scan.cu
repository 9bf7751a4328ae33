// Lesson 10, the section scans and the hierarchical scan. Write each kernel, launch it in its
// launcher, and delete the `throw`. Start from kogge_stone_kernel in scan_given.cu: each rung
// changes one thing in the rung before it. Every section kernel has the same contract
// (SectionLauncher in scan_rungs.cuh): scan the block's section, inclusive or exclusive, write
// only the elements < n, and, when section_sums is not null, write the section's total to
// section_sums[blockIdx.x]. In place (out == in) must work: read the whole section before
// writing any of it.
#include "course/error.hpp"
#include "scan_rungs.cuh"

namespace course::lesson10 {

namespace {
constexpr const char* kHere = "lessons/10_scan/scan.cu";
}  // namespace

//! [kogge_stone_double_buffer_exercise]
// TODO(student): rung "kogge_stone_double_buffer". Copy kogge_stone_kernel and replace the
// temporary and the second barrier by two shared arrays, `__shared__ T buffers[2][kMaxBlock];`.
// Keep pointers src = buffers[0], dst = buffers[1]; load into src. Each step: __syncthreads(),
// then dst[t] = t >= stride ? src[t] + src[t - stride] : src[t] (every element must reach dst,
// updated or not), then swap src and dst. After the loop one more __syncthreads(), and the
// result is in src. Why is the one barrier per step still needed? Launch it like
// launch_kogge_stone (scan_given.cu): blocks_for(n, block) blocks of block threads.
template <class T>
void launch_kogge_stone_double_buffer(const T* d_in, T* d_out, T* d_section_sums, std::size_t n,
                                      ScanKind kind, int block, cudaStream_t stream) {
  throw NotImplemented("kogge_stone_double_buffer", kHere);
}
//! [kogge_stone_double_buffer_exercise]

//! [brent_kung_exercise]
// TODO(student): rung "brent_kung". A section of 2 * blockDim.x elements in
// `__shared__ T xy[2 * kMaxBlock];`, loaded by thread t at t and t + blockDim.x (coalesced; 0
// past n). Up-sweep: for stride = 1, 2, ..., blockDim.x: __syncthreads(); index =
// (t + 1) * 2 * stride - 1; if index < section, xy[index] += xy[index - stride]. Down-sweep: for
// stride = section / 4 down to 1 (halving): __syncthreads(); the same index; if index + stride <
// section, xy[index + stride] += xy[index]. Then __syncthreads() and store both elements (the
// exclusive scan shifts by one, as in kogge_stone). The section total is xy[section - 1].
// Launch blocks_for(n, 2 * block) blocks of block threads.
template <class T>
void launch_brent_kung(const T* d_in, T* d_out, T* d_section_sums, std::size_t n, ScanKind kind,
                       int block, cudaStream_t stream) {
  throw NotImplemented("brent_kung", kHere);
}
//! [brent_kung_exercise]

//! [three_phase_exercise]
// TODO(student): rung "three_phase". A section of C = kThreePhaseCoarsening elements per thread
// in `__shared__ T xy[kThreePhaseCoarsening * kMaxBlock];`, loaded coalesced (thread t takes
// t, t + blockDim.x, ...), then __syncthreads(). Phase 1: thread t scans xy[t * C .. t * C + C - 1]
// sequentially, keeping the running sum in a register. Phase 2: scan the blockDim.x subsection
// ends (the running sums) with your double-buffered Kogge-Stone in `__shared__ T
// ends[2][kMaxBlock];`. Phase 3: __syncthreads(), then thread t > 0 adds ends[t - 1] (the scanned
// ends, in whichever buffer holds the result) to its C elements. __syncthreads(), store coalesced
// as you loaded, exclusive shifted by one. Launch blocks_for(n, C * block) blocks of block threads.
// The two arrays take (C + 2) * kMaxBlock * 4 bytes: 40 KB at C = 8, within the 48 KB a kernel may
// declare statically (a larger C needs dynamic shared memory: README, Tasks).
template <class T>
void launch_three_phase(const T* d_in, T* d_out, T* d_section_sums, std::size_t n, ScanKind kind,
                        int block, cudaStream_t stream) {
  throw NotImplemented("three_phase", kHere);
}
//! [three_phase_exercise]

//! [hierarchical_exercise]
// TODO(student): rung "hierarchical": a scan of the whole input for any n.
//   1. s = section_length(Variant::ThreePhase, block); m = ceil(n / s) sections. If m == 1,
//      launch_three_phase(d_in, d_out, nullptr, ...) is the whole answer.
//   2. Otherwise launch_three_phase with d_section_sums = an array of m elements: each section
//      scanned on its own, and its total saved.
//   3. Scan those m totals, inclusive, in place, with this same procedure (recursion: they may
//      be more than one section too). Now sums[b] = everything up to the end of section b.
//   4. A small kernel adds sums[b - 1] to every element of section b, for b = 1 .. m - 1. One
//      block of `block` threads per section, C elements per thread, is a good shape.
// The exclusive scan needs nothing else: its sections are exclusive and the offsets are the same.
// Scratch: workspace<T>(count) (scan_rungs.cuh). Ask for the totals of *all* levels with one call
// (m + ceil(m / s) + ... while > 1): a second call may move the memory the first returned.
template <class T>
void run_hierarchical(const T* d_in, T* d_out, std::size_t n, ScanKind kind, int block,
                      cudaStream_t stream) {
  throw NotImplemented("hierarchical", kHere);
}
//! [hierarchical_exercise]

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
