/// @file
/// @brief What a lesson's doctest file needs: doctest, the harness, and a few checks that print
/// what went wrong in the lesson's terms.
///
/// A lesson's test file is compiled with COURSE_LESSON_README naming the lesson's README, whose
/// grading table holds the thresholds. The helpers every lesson's tests share are beside this
/// header and included by it: course/testing_speed.hpp (a speed row's sample) and
/// course/testing_buffers.hpp (guards, misaligned pointers, inputs changed in place). The
/// matrix-product lessons add course/testing_matrix.hpp, the reduction and scan lessons
/// course/testing_inputs.hpp.
#pragma once

#include <doctest/doctest.h>

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "course/ceilings.hpp"
#include "course/compare.hpp"
#include "course/data.hpp"
#include "course/error.hpp"
#include "course/gpu.hpp"
#include "course/grading.hpp"
#include "course/product_check.hpp"
#include "course/stream.hpp"
#include "course/testing_buffers.hpp"
#include "course/testing_speed.hpp"
#include "course/timer.hpp"
#include "course/variants.hpp"

/// The threshold of @p test, read from this lesson's README grading table.
#define COURSE_THRESHOLD(test) ::course::threshold(COURSE_LESSON_README, test)

/// Checks a course::Comparison; on failure prints @p context (input, size, seed) and the report.
#define COURSE_CHECK_MATCH(comparison, context)                                   \
  do {                                                                            \
    const ::course::Comparison& course_cmp_ = (comparison);                       \
    CHECK_MESSAGE(course_cmp_.ok, (context) << ": " << course_cmp_.report());     \
  } while (0)

/// Checks that the launcher left an input it may only read unchanged: @p device (device memory,
/// or host memory for a trip that starts there) must still hold the bytes of @p host (a
/// std::vector or span of the values uploaded). On failure prints @p context and the first
/// element that changed. Every correctness check calls it for every input the interface declares
/// const, after every call of the launcher.
#define COURSE_CHECK_UNCHANGED(device, host, name, context)                        \
  do {                                                                             \
    const std::string course_changed_ =                                            \
        ::course::changed_input((device), std::span(std::as_const(host)), (name)); \
    CHECK_MESSAGE(course_changed_.empty(), (context) << ": " << course_changed_);  \
  } while (0)

/// Grades one speed test: measures (re-measuring up to three times) and checks the graded ratio
/// against the README's threshold for @p test, after checking that the measurement stands (every
/// timed output right, nothing outside the timed stream, a share under the README's plausible
/// bound). @p measure builds its samples with course::measure() (course/bench.hpp).
#define COURSE_CHECK_SPEED(test, graded, measure)                                              \
  do {                                                                                         \
    const double course_need_ = COURSE_THRESHOLD(test);                                        \
    const double course_bound_ = ::course::plausible_bound(COURSE_LESSON_README, test);        \
    const ::course::SpeedSample course_best_ =                                                 \
        ::course::measure_speed(test, graded, course_need_, course_bound_, measure);           \
    REQUIRE_MESSAGE(course_best_.failure.empty(), course_best_.failure);                       \
    CHECK_MESSAGE(course_best_.value(graded) >= course_need_,                                  \
                  ::course::describe(test, course_best_) << " is below the threshold "         \
                                                         << course_need_);                     \
  } while (0)

/// Defines the correctness row @p test: a TEST_CASE of that name whose body is the statement after
/// @p test, e.g. `COURSE_CORRECT_TEST("tiled.correct", check_correct(Variant::Tiled));`. With
/// COURSE_SPEED_TEST, a lesson's rows read one a line, in the order of the README's grading
/// table: a rung's correctness row, then its speed rows, then the next rung, as a student's
/// scoreboard lists them. A row whose body does more writes its TEST_CASE out.
#define COURSE_CORRECT_TEST(test, ...) \
  TEST_CASE(test) {                    \
    __VA_ARGS__;                       \
  }                                    \
  static_assert(true, "COURSE_CORRECT_TEST(...) is used as a declaration")

/// Defines the speed row @p test: a TEST_CASE of that name that grades with COURSE_CHECK_SPEED
/// the sample the expression after @p graded returns, evaluated afresh for every attempt, e.g.
/// `COURSE_SPEED_TEST("tiled.speed", Graded::Share, sample_of(Variant::Tiled));`. The row's name
/// is written once, so the test case and the README row whose threshold and bound it checks
/// cannot disagree. A row whose body does more (a rung that may be SKIPPED first) writes its
/// TEST_CASE out and calls COURSE_CHECK_SPEED itself.
#define COURSE_SPEED_TEST(test, graded, ...)                      \
  TEST_CASE(test) {                                               \
    COURSE_CHECK_SPEED(test, graded, [] { return __VA_ARGS__; }); \
  }                                                               \
  static_assert(true, "COURSE_SPEED_TEST(...) is used as a declaration")

/// COURSE_SPEED_TEST for a rung this GPU or build may not run: SKIPPED with the reason
/// @p unsupported (a std::optional<std::string>, e.g. a lesson's unsupported(variant)) holds,
/// else graded as COURSE_SPEED_TEST grades it.
#define COURSE_SPEED_TEST_UNLESS(unsupported, test, graded, ...)  \
  TEST_CASE(test) {                                               \
    COURSE_SKIP_IF(unsupported);                                  \
    COURSE_CHECK_SPEED(test, graded, [] { return __VA_ARGS__; }); \
  }                                                               \
  static_assert(true, "COURSE_SPEED_TEST_UNLESS(...) is used as a declaration")

/// Ends the current test case as SKIPPED when @p reason (a std::optional<std::string>, e.g. a
/// lesson's unsupported(variant)) holds one: for a rung this GPU or build cannot run. See
/// course::skip_test().
#define COURSE_SKIP_IF(reason)                            \
  do {                                                    \
    if (const auto course_why_ = (reason); course_why_) { \
      ::course::skip_test(*course_why_);                  \
      return;                                             \
    }                                                     \
  } while (0)

namespace course {

/// Records that the current test case cannot run here and prints "[course] SKIPPED: <reason>";
/// the caller returns from the test case at once (COURSE_SKIP_IF does both). When every test
/// case a process ran was skipped and none failed, the process exits with 77, which CTest reports
/// as SKIPPED; a process whose other test cases ran reports them as usual. A skipped row earns
/// no points: it is for hardware the rung cannot run on, never for a student's choice.
void skip_test(const std::string& reason);

/// The cases a test checks: @p all, or @p few under compute-sanitizer (sanitize_mode()). The
/// sanitizers find an access past the end or a race at any size that takes the kernel through
/// the same paths (several blocks, a ragged edge, a misaligned pointer), and each of their runs
/// is a hundred times slower, so @p few keeps one case of each path and drops the repetitions.
template <class T>
[[nodiscard]] std::vector<T> fewer_under_sanitizer(std::vector<T> all, std::vector<T> few) {
  return sanitize_mode() ? std::move(few) : std::move(all);
}

/// @p cases, or none in a racecheck run (sanitize_tool()), for cases that move global-memory
/// accesses only, such as pointers placed off a 16-byte boundary: racecheck checks shared memory,
/// which they leave as it is, so its slow runs would find nothing new in them.
template <class T>
[[nodiscard]] std::vector<T> none_under_racecheck(std::vector<T> cases) {
  if (sanitize_tool() == "racecheck")
    cases.clear();
  return cases;
}

/// "seed 1234 / stream 5" style context for messages.
inline std::string seed_text(std::uint64_t seed) { return "seed " + std::to_string(seed); }

}  // namespace course
