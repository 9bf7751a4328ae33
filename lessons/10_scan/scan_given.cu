// Lesson 10, the given code: the first rung (PMPP's Kogge-Stone section scan) and the scratch
// memory that hierarchical and single_pass need.
#include <mutex>

#include "course/buffer.hpp"
#include "course/error.hpp"
#include "scan_rungs.cuh"

namespace course::lesson10 {

namespace {

//! [kogge_stone_kernel]
// Kogge-Stone over one section of blockDim.x elements, one per thread. After the step with
// stride s, xy[t] holds the sum of the (up to) 2 s inputs ending at t, so log2(blockDim.x) steps
// leave the inclusive scan of the section. Every thread does an addition at every step (those
// with t < s excepted): about blockDim.x log2(blockDim.x) additions, where a sequential scan needs
// blockDim.x - 1.
//
// The race: in one step, thread t reads xy[t - s] while thread t - s updates it. A thread must
// not overwrite its element before every reader has read it, so each step reads into a temporary,
// waits at a barrier, and only then writes; the barrier at the top of the next step makes the
// writes visible before anyone reads them. Two barriers per step.
template <class T>
__global__ void kogge_stone_kernel(const T* in, T* out, T* section_sums, std::size_t n,
                                   bool exclusive) {
  __shared__ T xy[kMaxBlock];
  const unsigned t = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + t;
  // Past the end of the input a thread holds 0, so the steps need no bounds checks.
  xy[t] = i < n ? in[i] : T{0};
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    __syncthreads();  // the writes of the step before are visible
    T temp{};
    if (t >= stride)
      temp = xy[t] + xy[t - stride];
    __syncthreads();  // every thread has read xy[t - stride] before it is overwritten
    if (t >= stride)
      xy[t] = temp;
  }
  __syncthreads();  // the exclusive scan reads the neighbour's element
  // The exclusive scan is the inclusive one shifted right by one, with 0 in front.
  if (i < n)
    out[i] = exclusive ? (t == 0 ? T{0} : xy[t - 1]) : xy[t];
  if (section_sums != nullptr && t == blockDim.x - 1)
    section_sums[blockIdx.x] = xy[t];
}
//! [kogge_stone_kernel]

// The scratch memory of hierarchical and single_pass, kept between calls so that no timed call
// allocates.
std::mutex workspace_mutex;
DeviceBuffer<unsigned char>& workspace_buffer() {
  static DeviceBuffer<unsigned char> buffer;
  return buffer;
}

}  // namespace

void* workspace_bytes(std::size_t bytes) {
  const std::lock_guard lock(workspace_mutex);
  auto& buffer = workspace_buffer();
  if (buffer.size() < bytes)
    buffer = DeviceBuffer<unsigned char>(bytes);
  return buffer.data();
}

template <class T>
void launch_kogge_stone(const T* d_in, T* d_out, T* d_section_sums, std::size_t n, ScanKind kind,
                        int block, cudaStream_t stream) {
  kogge_stone_kernel<T><<<blocks_for(n, block), block, 0, stream>>>(d_in, d_out, d_section_sums, n,
                                                                    kind == ScanKind::Exclusive);
  CUDA_CHECK_LAST();
}

#define COURSE_LESSON10_INSTANTIATE(T) \
  template void launch_kogge_stone<T>(const T*, T*, T*, std::size_t, ScanKind, int, cudaStream_t);
COURSE_LESSON10_INSTANTIATE(int)
COURSE_LESSON10_INSTANTIATE(float)
#undef COURSE_LESSON10_INSTANTIATE

}  // namespace course::lesson10
