// The measuring procedure's arithmetic (course/bench.hpp), without a GPU: which timed repeats are
// poisoned, the inputs' seeds, the median, the cross-check's batch and verdict, plausibility, and
// what measure_speed makes of a failed or implausible sample.
#include <algorithm>
#include <set>

#include "course/testing.hpp"

using course::bench::Prepare;

TEST_SUITE("cpu") {
  TEST_CASE(
      "every timed repeat is poisoned or left stale, both kinds occur, the first is poisoned") {
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
      for (int repeats : {1, 2, 3, 15, 40}) {
        const auto schedule = course::bench::prepare_schedule(seed, repeats);
        REQUIRE(schedule.size() == static_cast<std::size_t>(repeats));
        CHECK(schedule[0] == Prepare::Poison);
        if (repeats >= 2)
          CHECK(std::count(schedule.begin(), schedule.end(), Prepare::Decoy) >= 1);
        if (repeats >= 3)
          CHECK(std::count(schedule.begin() + 1, schedule.end(), Prepare::Poison) >= 1);
      }
    }
    // The schedule depends on the seed: a launcher cannot learn it from one run.
    std::set<std::vector<Prepare>> seen;
    for (std::uint64_t seed = 0; seed < 50; ++seed)
      seen.insert(course::bench::prepare_schedule(seed, 15));
    CHECK(seen.size() > 40);
    CHECK(course::bench::prepare_schedule(7, 15) == course::bench::prepare_schedule(7, 15));
    CHECK(course::bench::prepare_schedule(7, 0).empty());
  }

  TEST_CASE("every launch gets inputs of its own seed") {
    std::set<std::uint64_t> seeds;
    for (int i = 0; i < 1000; ++i)
      seeds.insert(course::bench::launch_seed(42, i));
    CHECK(seeds.size() == 1000);
    CHECK(course::bench::launch_seed(42, 3) != course::bench::launch_seed(43, 3));
  }

  TEST_CASE("the median, minimum and maximum of the timed repeats") {
    auto odd = course::bench::summarize({5.0, 1.0, 3.0});
    CHECK(odd.median_ms == 3.0);
    CHECK(odd.min_ms == 1.0);
    CHECK(odd.max_ms == 5.0);
    CHECK(odd.repeats == 3);
    CHECK(course::bench::summarize({4.0, 1.0, 2.0, 3.0}).median_ms == 2.5);
    CHECK(course::bench::summarize({}).repeats == 0);
  }

  TEST_CASE("the cross-check batch lasts about 10 ms, within 4 to 400 launches") {
    CHECK(course::bench::batch_launches(1.0) == 10);
    CHECK(course::bench::batch_launches(0.1) == 100);
    CHECK(course::bench::batch_launches(100.0) == 4);
    CHECK(course::bench::batch_launches(0.0001) == 400);
    CHECK(course::bench::batch_launches(0.0) == 400);
  }

  TEST_CASE("the host clock may exceed the events by latency, never by the work") {
    using course::bench::clocks_disagree;
    CHECK_FALSE(clocks_disagree(10.4, 10.0, 10));   // wake-up latency
    CHECK_FALSE(clocks_disagree(1.05, 0.05, 200));  // tiny launches: the fixed slack
    CHECK_FALSE(clocks_disagree(19.0, 10.0, 10));   // a busy host or a shared GPU: the ratio
    // A side stream: the events saw the enqueueing, the host waited for the work.
    const auto escaped = clocks_disagree(10.0, 0.4, 100);
    REQUIRE(escaped.has_value());
    CHECK(escaped->find("escaped the timed stream") != std::string::npos);
    CHECK(clocks_disagree(40.0, 10.0, 4).has_value());
    // The boundary, as documented: ratio times the events plus the slack.
    const double events = 10.0;
    const double edge = course::bench::kClockRatio * events + course::bench::kClockSlackMs;
    CHECK_FALSE(clocks_disagree(edge, events, 4));
    CHECK(clocks_disagree(edge + 0.01, events, 4).has_value());
  }

  TEST_CASE("once the harness's stream is done, the device must be idle") {
    using course::bench::busy_after_stream;
    CHECK_FALSE(busy_after_stream(0.02));  // the synchronization's own latency
    CHECK_FALSE(busy_after_stream(course::bench::kClockSlackMs));
    const auto escaped = busy_after_stream(course::bench::kClockSlackMs + 0.01);
    REQUIRE(escaped.has_value());
    CHECK(escaped->find("escaped the timed stream") != std::string::npos);
    CHECK(busy_after_stream(17.0).has_value());  // 400 copies still queued on a side stream
  }

  TEST_CASE("a share above the README's bound, zero or not finite cannot be right") {
    CHECK_FALSE(course::check_plausible(0.9, 1.15, "device copy"));
    CHECK_FALSE(course::check_plausible(1.15, 1.15, "device copy"));
    const auto fast = course::check_plausible(133.66, 1.5, "cuBLAS SGEMM");
    REQUIRE(fast.has_value());
    CHECK(fast->find("cannot be right") != std::string::npos);
    CHECK(fast->find("cuBLAS SGEMM") != std::string::npos);
    CHECK(course::check_plausible(0.0, 1.0, "x").has_value());
    CHECK(course::check_plausible(-1.0, 1.0, "x").has_value());
    CHECK(course::check_plausible(1.0 / 0.0, 1.0, "x").has_value());
  }

  TEST_CASE("a failed or implausible sample ends the measuring and carries its reason") {
    int calls = 0;
    // A measurement that always returns the sample with these fields, counting its calls.
    auto always = [&](double time_ms, double share, const char* ceiling, const char* failure) {
      return [&calls, time_ms, share, ceiling, failure] {
        ++calls;
        course::SpeedSample sample;
        sample.time_ms = time_ms;
        sample.share = share;
        sample.ceiling = ceiling;
        sample.failure = failure;
        return sample;
      };
    };
    auto failing = always(1.0, 0.9, "device copy",
                          "tiled: timed launch 3 of 15: 12 of 100 elements of out differ");
    auto best = course::measure_speed("x.speed", course::Graded::Share, 0.5, 2.0, failing);
    CHECK(calls == 1);
    CHECK(best.failure.find("differ") != std::string::npos);

    calls = 0;
    auto too_fast = always(0.001, 292.0, "cuBLAS SGEMM", "");
    best = course::measure_speed("poly.speed", course::Graded::Share, 0.5, 1.5, too_fast);
    CHECK(calls == 1);
    CHECK(best.failure.find("poly.speed: the timing cannot be right") == 0);
  }
}
