/// @file
/// @brief Grading: the lesson README's table (test names, thresholds, points) and speed checks
/// that measure ratios in one run and re-measure before they fail.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace course {

/// One row of a lesson README's grading table (between <!-- grading:begin --> and
/// <!-- grading:end -->): | `test` | kind | what it checks | threshold | points |
struct GradingRow {
  std::string test;                 ///< e.g. "tiled.speed"
  std::string kind;                 ///< given, exercise or stretch
  std::string checks;               ///< what the test checks, in words
  std::optional<double> threshold;  ///< the first number of the threshold cell, if any
  /// The number after "≤" in the threshold cell, if any: the largest share of the ceiling the
  /// rung can plausibly reach (a speed row must have one).
  std::optional<double> bound;
  int points = 0;  ///< points the test is worth
};

/// Reads the grading table of the README at @p readme_path. Throws std::runtime_error naming the
/// file and line when the table is missing or malformed.
[[nodiscard]] std::vector<GradingRow> read_grading_table(const std::string& readme_path);

/// The threshold of @p test in the README at @p readme_path: the one place it is written.
/// Throws std::runtime_error when the row or its threshold is missing.
[[nodiscard]] double threshold(const std::string& readme_path, std::string_view test);

/// The plausibility bound of @p test in the README at @p readme_path (the "≤ x" of its threshold
/// cell). Throws std::runtime_error when the row or its bound is missing.
[[nodiscard]] double plausible_bound(const std::string& readme_path, std::string_view test);

/// Which ratio a speed test grades.
enum class Graded {
  Speedup,  ///< time of the baseline rung / time of this rung
  Share,    ///< achieved metric / the ceiling measured in the same run
};

/// One measurement of a rung's speed.
struct SpeedSample {
  double time_ms = 0.0;  ///< median time of the rung
  double speedup = 0.0;  ///< over the baseline (0 if not measured)
  std::string baseline;  ///< the baseline rung's name
  double share = 0.0;    ///< of the ceiling (0 if not measured)
  std::string ceiling;   ///< the ceiling's name
  /// Empty when the measurement stands; otherwise why it cannot be graded (a wrong timed
  /// output, work that escaped the timed stream, a figure above the plausible bound).
  std::string failure;
  /// The graded ratio.
  [[nodiscard]] double value(Graded graded) const {
    return graded == Graded::Speedup ? speedup : share;
  }
};

/// A measurement below this fraction of its threshold is final: no further attempt is made.
inline constexpr double kFinalMissFraction = 0.85;

/// Measures with @p measure until the graded ratio reaches @p threshold, at most @p attempts
/// times (a busy GPU can make one measurement slow; one below kFinalMissFraction of the
/// threshold ends the measuring, as no bad luck explains it), printing every measurement as
/// "[course] measure: ..." and the best as "[course] result: ...". Returns the best sample; a
/// sample that failed (SpeedSample::failure), or whose share is above @p bound, ends the
/// measuring and is returned with its failure: no grade is taken from it.
SpeedSample measure_speed(std::string_view test, Graded graded, double threshold, double bound,
                          const std::function<SpeedSample()>& measure, int attempts = 3);

/// A speedup over a baseline rung the student also wrote, with the baseline measured where the
/// student's code cannot tell that it is a baseline: in a process of its own, which runs the
/// baseline's own speed row @p baseline_row (e.g. "tiled.speed") exactly as CTest runs it, and
/// reports that row's first measured time back to this one. Code that slows a rung only when it
/// serves as a baseline would slow the baseline's own row too. @p rung is this row's sample
/// (measured here, its speedup not set); the result carries the speedup over @p baseline (timed
/// once per row, however many attempts the row makes), or why the baseline could not be measured.
[[nodiscard]] SpeedSample speedup_over_row_apart(SpeedSample rung, std::string_view baseline_row,
                                                 std::string_view baseline);

/// True in a process that times a baseline for another row (speedup_over_row_apart): there only
/// the row's own time is reported, so its sample need not measure the row's own baseline.
[[nodiscard]] bool in_baseline_process();

/// @p baseline, or none in a baseline's process (in_baseline_process()): what a speed row that
/// serves as another row's baseline passes for its own baseline rung. Nothing the student's
/// code sees before the process ends differs: the time is reported, and the process exits,
/// right after the rung's own measurement.
template <class Rung>
[[nodiscard]] std::optional<Rung> unless_in_baseline_process(Rung baseline) {
  return in_baseline_process() ? std::nullopt : std::optional<Rung>(baseline);
}

/// The "[course] result: ..." line for @p sample, as measure_speed prints it.
[[nodiscard]] std::string describe(std::string_view test, const SpeedSample& sample);

}  // namespace course
