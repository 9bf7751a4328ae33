#include "course/stream.hpp"

#include "course/error.hpp"

namespace course {

Stream::Stream() {
  CUDA_CHECK(cudaStreamCreateWithFlags(stream_.out(), cudaStreamNonBlocking));
}

void Stream::synchronize() const {
  CUDA_CHECK(cudaStreamSynchronize(get()));
}

void Stream::wait(cudaEvent_t event) const {
  CUDA_CHECK(cudaStreamWaitEvent(get(), event, 0));
}

Event::Event() {
  CUDA_CHECK(cudaEventCreateWithFlags(event_.out(), cudaEventDisableTiming));
}

void Event::record(cudaStream_t stream) const {
  CUDA_CHECK(cudaEventRecord(get(), stream));
}

}  // namespace course
