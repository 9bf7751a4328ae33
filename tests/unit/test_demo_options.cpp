#include <array>

#include "course/demo.hpp"
#include "course/testing.hpp"

TEST_SUITE("cpu") {
  TEST_CASE("counts: plain, powers of two, suffixes; garbage refused") {
    CHECK(course::parse_count("1000") == 1000u);
    CHECK(course::parse_count("2^26") == (1u << 26));
    CHECK(course::parse_count("16k") == 16384u);
    CHECK(course::parse_count("64M") == (64u << 20));
    for (const char* bad : {"", "-3", "2^x", "3^4", "12q", "banana", "2^99"})
      CHECK_MESSAGE(!course::parse_count(bad).has_value(), bad);
  }

  TEST_CASE("shapes: ROWSxCOLS or N") {
    CHECK(course::parse_shape("4097x1023") == std::pair<std::uint64_t, std::uint64_t>{4097, 1023});
    CHECK(course::parse_shape("2^13") == std::pair<std::uint64_t, std::uint64_t>{8192, 8192});
    CHECK_FALSE(course::parse_shape("12x").has_value());
    CHECK_FALSE(course::parse_shape("x12").has_value());
  }

  TEST_CASE("three-dimensional shapes: AxBxC or N; fixed-point numbers") {
    using Three = std::array<std::uint64_t, 3>;
    CHECK(course::parse_shape3("512x3x2^4") == Three{512, 3, 16});
    CHECK(course::parse_shape3("4k") == Three{4096, 4096, 4096});
    for (const char* bad : {"", "12x", "x12", "1x2", "1x2x3x4", "1xx2", "2x3xbanana"})
      CHECK_MESSAGE(!course::parse_shape3(bad).has_value(), bad);
    CHECK(course::fixed(2.5, 2) == "2.50");
    CHECK(course::fixed(1234.5678, 1) == "1234.6");
  }

  TEST_CASE("a published table beside the ladder: its rows copied, the lab's columns added") {
    course::LadderReport ladder;
    ladder.metric_unit = "GFLOP/s";
    for (const char* rung : {"naive", "tiled", "register_1d"}) {
      course::LadderRow row;
      row.rung = rung;
      row.metric = 100.0;
      ladder.rows.push_back(row);
    }
    constexpr course::PublishedRow published[] = {
        {"naive", "global", 200.0}, {"tiled", "shared", 50.0}, {"warptiled", "none", 1.0}};
    const auto table = course::published_beside(ladder, published, "title", "naive", "note");
    REQUIRE(table.rows.size() == 2);  // warptiled is not in the ladder (--variant left it out)
    CHECK(table.rows[0].rung == "naive");
    CHECK(table.rows[1].rung == "tiled");
    CHECK(table.rows[1].metric == 100.0);  // the ladder's figure, not timed again
    CHECK(table.extra_columns == std::vector<std::string>{"lab kernel", "lab ms", "lab speedup"});
    CHECK(table.rows[0].extra == std::vector<std::string>{"global", "200.00", "1.00"});
    CHECK(table.rows[1].extra == std::vector<std::string>{"shared", "50.00", "4.00"});
    CHECK(table.baseline == "naive");
    CHECK(table.notes == std::vector<std::string>{"note"});
  }

  TEST_CASE("the roofline: the lower roof, the ridge, each row's share of what its intensity allows") {
    course::Roofline roofs;
    roofs.memory.value = 3000.0;    // GB/s
    roofs.compute.value = 60000.0;  // GFLOP/s
    CHECK(roofs.ridge() == doctest::Approx(20.0));
    CHECK(roofs.attainable(0.25) == doctest::Approx(750.0));     // under the memory roof
    CHECK(roofs.attainable(100.0) == doctest::Approx(60000.0));  // under the compute roof
    course::Roofline memory_only;
    memory_only.memory.value = 3000.0;
    CHECK(memory_only.ridge() == 0.0);
    CHECK(memory_only.attainable(0.125) == doctest::Approx(375.0));  // no compute roof to meet

    course::LadderReport report;
    course::LadderRow row;
    row.status = "ok";
    row.timing.median_ms = 2.0;
    row.work = {.ops = 4e9, .bytes = 8e9};
    CHECK(row.work.intensity() == doctest::Approx(0.5));
    CHECK(course::achieved(row) == doctest::Approx(2000.0));  // 4e9 / 2 ms = 2000 G ops/s
    report.rows.push_back(row);
    CHECK(report.has_work());
    report.rows.back().status = "not implemented";  // a row that did not run is not on it
    CHECK_FALSE(report.has_work());
    CHECK(course::achieved(report.rows.back()) == 0.0);
    report.rows.back().status = "ok";
    report.rows.back().work = {};
    CHECK_FALSE(report.has_work());
  }

  TEST_CASE("a traced pipeline as text: a lane per stream, the overlap summed") {
    course::Trace trace;
    // Stream 7 copies in [0, 2) then computes in [2, 4); stream 9 copies in [2, 4): 2 ms overlap.
    trace.spans = {{7, "H2D", "", 0.0, 2.0, 1e6},
                   {7, "kernel", "blur_kernel", 2.0, 4.0, 0},
                   {9, "H2D", "", 2.0, 4.0, 1e6}};
    CHECK(trace.streams() == std::vector<std::uint32_t>{7, 9});
    CHECK(trace.wall_ms() == doctest::Approx(4.0));
    CHECK(trace.busy_ms() == doctest::Approx(6.0));
    const std::string chart = course::trace_chart(trace, 8);
    CHECK(chart.find("stream 0  |HHHHKKKK|") != std::string::npos);
    CHECK(chart.find("stream 1  |....HHHH|") != std::string::npos);
    CHECK(chart.find("2.000 ms of it overlapped") != std::string::npos);
    CHECK(course::trace_chart(course::Trace{}).find("no GPU work") != std::string::npos);
    CHECK(trace.kind_ms("H2D") == doctest::Approx(4.0));
    CHECK(trace.together_ms({"H2D"}, {"kernel"}) == doctest::Approx(2.0));
    CHECK(trace.together_ms({"H2D"}, {"D2H"}) == 0.0);
    CHECK(trace.lanes() == "stream 0: 1 H2D copy, 1 kernel; stream 1: 1 H2D copy");
  }

  TEST_CASE("a trace split at its one-byte markers, each piece from 0") {
    course::Trace trace;
    trace.spans = {{1, "memset", "", 0.0, 0.1, 1},   {1, "H2D", "", 0.2, 1.2, 4096},
                   {1, "memset", "", 1.3, 1.4, 1},   {1, "kernel", "k", 1.5, 2.0, 0},
                   {1, "memset", "", 2.1, 2.2, 64}};  // not a marker: 64 bytes
    const auto pieces = trace.after_markers();
    REQUIRE(pieces.size() == 2);
    REQUIRE(pieces[0].spans.size() == 1);
    CHECK(pieces[0].spans[0].kind == "H2D");
    CHECK(pieces[0].spans[0].start_ms == doctest::Approx(0.0));
    CHECK(pieces[0].spans[0].end_ms == doctest::Approx(1.0));
    REQUIRE(pieces[1].spans.size() == 2);  // the kernel, and the 64-byte memset after it
    CHECK(pieces[1].spans[1].start_ms == doctest::Approx(0.6));
  }
}
