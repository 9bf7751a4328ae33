/// @file
/// @brief What a lesson's speed rows share: the options they measure with, and how a rung's
/// measurement, and its baseline's, become the course::SpeedSample that COURSE_CHECK_SPEED grades.
///
/// A speed row measures its rung with course::measure() (course/bench.hpp), then, in most lessons,
/// the baseline rung right after it, in the same process, and divides the two times. These helpers
/// do that arithmetic one way for every lesson; which rungs are measured, in what order, and which
/// ceiling the share is of, stay in the lesson's test, where a reader looks for them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "course/bench.hpp"
#include "course/ceilings.hpp"
#include "course/data.hpp"
#include "course/grading.hpp"
#include "course/timer.hpp"

namespace course {

/// The options of a speed row's measurement: the harness's warm-up, repeats and L2 flush, with
/// the inputs' seeds derived from the run's base seed and @p stream, a number each lesson picks
/// per measurement, so that a rung and its baseline (or two speed rows) never time the same
/// inputs and a run replays from its printed seed.
[[nodiscard]] inline MeasureOptions speed_options(std::uint64_t stream) {
  MeasureOptions options;
  options.seed = derive_seed(base_seed(), stream);
  return options;
}

/// speed_options(@p stream), with at least @p correctness_calls timed repeats. Every timed launch
/// is checked, so a speed row measured with these checks more launches of its rung than the
/// rung's correctness row makes (@p correctness_calls): a launcher that works only for as many
/// calls as the correctness row makes is caught.
[[nodiscard]] inline MeasureOptions speed_options_outlasting(std::uint64_t stream,
                                                             int correctness_calls) {
  MeasureOptions options = speed_options(stream);
  options.repeats = std::max(options.repeats, correctness_calls);
  return options;
}

/// The sample of a rung measured as @p rung: its median time, and why the measurement cannot be
/// graded, if it cannot (a wrong timed output, work outside the timed stream). The lesson adds
/// the speedup (add_speedup()) and the share of its ceiling.
[[nodiscard]] inline SpeedSample speed_sample(const Measurement& rung) {
  SpeedSample sample;
  sample.time_ms = rung.timing.median_ms;
  sample.failure = rung.failure;
  return sample;
}

/// Adds to @p sample (a rung's, from speed_sample()) its speedup over the baseline rung @p name,
/// measured as @p baseline in the same run: the baseline's median time over the rung's. A
/// baseline whose measurement does not stand fails the sample with the baseline's failure: a
/// speedup over a time that cannot be believed grades nothing.
inline void add_speedup(SpeedSample& sample, const Measurement& baseline, std::string_view name) {
  sample.speedup = baseline.timing.median_ms / sample.time_ms;
  sample.baseline = name;
  if (!baseline.sound())
    sample.failure = baseline.failure;
}

/// Adds to @p sample (a rung's, from speed_sample()) its share of the device-to-device copy
/// bandwidth measured in this run (ceilings::device_copy()): @p bytes, the bytes the rung must
/// move at least, over its time, against the copy's bytes read and written per second. The
/// ceiling of the rungs that only move memory: lessons 01 (the table), 02, 05 (the row
/// reductions), 06 (the kernels), 07 and 08.
inline void add_share_of_device_copy(SpeedSample& sample, double bytes) {
  const ceilings::Ceiling& copy = ceilings::device_copy();
  sample.share = gb_per_s(bytes, sample.time_ms) / copy.value;
  sample.ceiling = copy.name;
}

}  // namespace course
