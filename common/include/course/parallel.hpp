/// @file
/// @brief parallel_for(): the CPU side of a test (inputs, references) on several cores.
///
/// A grading run keeps up to eight test processes on the GPU at once, and most of them spend
/// their time on the CPU: generating inputs of 2^26 elements and more, and computing the
/// double-precision references they are checked against. Each element of those is independent of
/// the others, so the work splits into chunks that threads compute side by side; the results are
/// the same, element for element, whatever the number of threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace course {

/// Calls @p body(begin, end) on disjoint chunks that together cover [0, @p count), from up to 8
/// threads (fewer on a machine with fewer cores, one below 2 @p grain elements), and returns when
/// every chunk is done. @p body must only write what its own chunk owns, and must not use doctest's
/// assertions (they are not thread-safe): compute here, check afterwards. An exception thrown by a
/// chunk is thrown again here, after every thread has ended.
template <class Body>
void parallel_for(std::size_t count, Body&& body, std::size_t grain = std::size_t{1} << 16) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads =
      std::min({std::size_t{8}, cores, std::max<std::size_t>(1, count / grain)});
  if (threads <= 1) {
    body(std::size_t{0}, count);
    return;
  }
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  const auto run = [&](std::size_t t) {
    try {
      body(count * t / threads, count * (t + 1) / threads);
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  for (std::size_t t = 1; t < threads; ++t)
    pool.emplace_back(run, t);
  run(0);
  for (std::thread& thread : pool)
    thread.join();
  for (const std::exception_ptr& error : errors)
    if (error)
      std::rethrow_exception(error);
}

}  // namespace course
