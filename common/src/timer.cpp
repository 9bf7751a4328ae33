#include "course/timer.hpp"

#include <algorithm>
#include <vector>

#include "course/error.hpp"

namespace course {

Timing time_on_gpu(const std::function<void(cudaStream_t)>& work, TimingOptions options,
                   cudaStream_t stream) {
  for (int i = 0; i < options.warmup; ++i)
    work(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  const int repeats = std::max(options.repeats, 1);
  std::vector<double> ms(static_cast<std::size_t>(repeats));
  EventTimer timer;
  for (auto& sample : ms) {
    if (options.flush_l2)
      flush_l2(stream);
    timer.start(stream);
    work(stream);
    sample = timer.stop(stream);
  }
  std::sort(ms.begin(), ms.end());
  Timing timing;
  timing.repeats = repeats;
  timing.min_ms = ms.front();
  timing.max_ms = ms.back();
  const std::size_t mid = ms.size() / 2;
  timing.median_ms = ms.size() % 2 == 1 ? ms[mid] : 0.5 * (ms[mid - 1] + ms[mid]);
  return timing;
}

EventTimer::EventTimer() {
  CUDA_CHECK(cudaEventCreate(&start_));
  CUDA_CHECK(cudaEventCreate(&stop_));
}

EventTimer::~EventTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void EventTimer::start(cudaStream_t stream) {
  CUDA_CHECK(cudaEventRecord(start_, stream));
}

double EventTimer::stop(cudaStream_t stream) {
  record_stop(stream);
  return elapsed();
}

void EventTimer::record_stop(cudaStream_t stream) {
  CUDA_CHECK(cudaEventRecord(stop_, stream));
}

double EventTimer::elapsed() const {
  CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

}  // namespace course
