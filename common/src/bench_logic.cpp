// The arithmetic of the measuring procedure (course/bench.hpp): which repeats are poisoned,
// the seeds of the inputs, the median, the size of the cross-check batch, and when the host's
// clock and the events disagree. No CUDA here, so the unit tests run it without a GPU.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "course/bench.hpp"
#include "course/data.hpp"

namespace course {
namespace bench {

std::vector<Prepare> prepare_schedule(std::uint64_t seed, int repeats) {
  std::vector<Prepare> schedule(static_cast<std::size_t>(std::max(repeats, 0)), Prepare::Poison);
  for (int i = 1; i < repeats; ++i)
    schedule[i] = (hash64(seed, 0xDEC0ULL + i) & 1) != 0 ? Prepare::Decoy : Prepare::Poison;
  // Both kinds whenever there are two repeats: a launcher must never be able to bet on one.
  if (repeats >= 2 && std::count(schedule.begin(), schedule.end(), Prepare::Decoy) == 0)
    schedule[1 + hash64(seed, 0xDEC1ULL) % (repeats - 1)] = Prepare::Decoy;
  if (repeats >= 3 && std::count(schedule.begin() + 1, schedule.end(), Prepare::Poison) == 0)
    schedule[1 + hash64(seed, 0xDEC2ULL) % (repeats - 1)] = Prepare::Poison;
  return schedule;
}

std::uint64_t launch_seed(std::uint64_t seed, int index) noexcept {
  return hash64(seed ^ 0xB3EC0000ULL, static_cast<std::uint64_t>(index));
}

Timing summarize(std::vector<double> ms) {
  Timing timing;
  if (ms.empty())
    return timing;
  std::sort(ms.begin(), ms.end());
  timing.repeats = static_cast<int>(ms.size());
  timing.min_ms = ms.front();
  timing.max_ms = ms.back();
  const std::size_t mid = ms.size() / 2;
  timing.median_ms = ms.size() % 2 == 1 ? ms[mid] : 0.5 * (ms[mid - 1] + ms[mid]);
  return timing;
}

int batch_launches(double median_ms) noexcept {
  if (!(median_ms > 0.0))
    return 400;
  const double wanted = std::ceil(10.0 / median_ms);
  return static_cast<int>(std::clamp(wanted, 4.0, 400.0));
}

constexpr const char* kOnThatStream =
    "; every launch, copy and wait must be ordered on that stream";

std::optional<std::string> clocks_disagree(double host_ms, double event_ms, int launches) {
  if (host_ms <= kClockRatio * event_ms + kClockSlackMs)
    return std::nullopt;
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(3);
  out << "work escaped the timed stream: " << launches << " launches took " << host_ms
      << " ms on the host clock (synchronized) but " << event_ms
      << " ms between the events on the stream the harness gave the launcher" << kOnThatStream;
  return out.str();
}

std::optional<std::string> busy_after_stream(double after_ms) {
  if (!(after_ms > kClockSlackMs))
    return std::nullopt;
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(3);
  out << "work escaped the timed stream: the device was still busy for " << after_ms
      << " ms after the stream the harness gave the launcher had finished" << kOnThatStream;
  return out.str();
}

}  // namespace bench

std::optional<std::string> check_plausible(double share, double bound, const std::string& ceiling) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(2);
  if (!(share > 0.0) || !std::isfinite(share)) {
    out << "the timing cannot be right: the share of " << ceiling << " is " << share;
    return out.str();
  }
  if (share <= bound)
    return std::nullopt;
  out << "the timing cannot be right: a share of " << share << " of " << ceiling << " is above the "
      << bound
      << " this GPU can plausibly reach (the README's bound for this rung); work skipped, "
         "replayed or hidden from the timer looks like this";
  return out.str();
}

}  // namespace course
