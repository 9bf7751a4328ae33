#include <array>
#include <ranges>
#include <stdexcept>
#include <string>
#include <vector>

#include "course/data.hpp"
#include "course/demo.hpp"
#include "course/error.hpp"
#include "course/testing.hpp"

namespace {

// A lesson's table of rungs, as add_rungs() reads it.
struct Rung {
  std::string_view name;
  std::string_view kind;
  int number;
};
constexpr std::array<Rung, 4> kRungs{{{"naive", "given", 0},
                                      {"tiled", "exercise", 1},
                                      {"padded", "exercise", 2},
                                      {"warp", "stretch", 3}}};

// A row of a sweep at one size, as measured_row() makes a row that ran.
course::LadderRow timed_row(const std::string& rung, double ms) {
  course::LadderRow row;
  row.rung = rung;
  row.status = "ok";
  row.timing.median_ms = ms;
  return row;
}

}  // namespace

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

  TEST_CASE("shapes within a lesson's limits: each extent, and the elements of the whole") {
    using Two = std::pair<std::uint64_t, std::uint64_t>;
    CHECK(course::parse_shape("4097x1023", 8192, 1 << 26) == Two{4097, 1023});
    CHECK(course::parse_shape("8192", 8192, 1 << 26) == Two{8192, 8192});  // 2^26: allowed
    for (const char* bad : {"0x5", "5x0", "8193x1", "8192x8193", "12xbanana", "-3"})
      CHECK_MESSAGE(!course::parse_shape(bad, 8192, 1 << 26).has_value(), bad);
    CHECK_FALSE(course::parse_shape("8192", 8192, (1 << 26) - 1).has_value());

    using Three = std::array<std::uint64_t, 3>;
    CHECK(course::parse_shape3("257x3x5", 1 << 17, 1 << 30) == Three{257, 3, 5});
    CHECK(course::parse_shape3("1024", 1 << 17, 1 << 30) == Three{1024, 1024, 1024});  // 2^30
    for (const char* bad : {"0", "4x0x4", "131073x1x1", "2048x1024x1024", "1x2"})
      CHECK_MESSAGE(!course::parse_shape3(bad, 1 << 17, 1 << 30).has_value(), bad);
    // No limit on the elements but the extents' (a product's three matrices are checked apart).
    CHECK(course::parse_shape3("2^20", 1 << 20) == Three{1 << 20, 1 << 20, 1 << 20});
    // Extents whose product does not fit in 64 bits are refused, not wrapped around.
    CHECK_FALSE(course::parse_shape3("2^40", std::uint64_t{1} << 40, 1 << 30).has_value());
  }

  TEST_CASE("a lesson's defaults stand in for --size and --block when they are not given") {
    course::DemoOptions options;
    CHECK(options.size_or("2^26") == "2^26");
    CHECK(options.block_or(256) == 256);
    options.size = "1000";
    options.block = 64;
    CHECK(options.size_or("2^26") == "1000");
    CHECK(options.block_or(256) == 64);
  }

  TEST_CASE("--size's counts and --block's rules, in the words of the usage and its errors") {
    CHECK_FALSE(course::count_problem("--size", "2^26", 1 << 28, "2^26").has_value());
    CHECK_FALSE(course::count_problem("--size", "1", 1 << 28).has_value());
    CHECK_FALSE(course::count_problem("--size", "2^28", 1 << 28).has_value());
    for (const char* bad : {"0", "2^29", "268435457", "banana", "", "-3"})
      CHECK_MESSAGE(course::count_problem("--size", bad, 1 << 28, "2^26") ==
                        "--size takes a count in [1, 2^28], e.g. 2^26",
                    bad);
    CHECK(course::count_problem("--kernel-size", "2^27", 1 << 26) ==
          "--kernel-size takes a count in [1, 2^26]");

    const course::BlockRule warps{};
    CHECK(warps.text() == "a multiple of 32 in [32, 1024]");
    CHECK(warps.help(256) == "a multiple of 32 in [32, 1024], default 256");
    for (const int good : {0, 32, 96, 1024})  // 0: not given, the lesson's default
      CHECK_MESSAGE(!warps.problem(good).has_value(), good);
    for (const int bad : {16, 48, 1056})
      CHECK_MESSAGE(warps.problem(bad) == "--block must be a multiple of 32 in [32, 1024]", bad);
    CHECK(course::BlockRule{.min = 64}.problem(32) ==
          "--block must be a multiple of 32 in [64, 1024]");

    const course::BlockRule powers{.power_of_two = true, .min = 64};
    CHECK(powers.help(256) == "a power of two in [64, 1024], default 256");
    for (const int good : {0, 64, 128, 1024})
      CHECK_MESSAGE(!powers.problem(good).has_value(), good);
    for (const int bad : {32, 96, 2048})
      CHECK_MESSAGE(powers.problem(bad) == "--block must be a power of two in [64, 1024]", bad);
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

  TEST_CASE(
      "the roofline: the lower roof, the ridge, each row's share of what its intensity allows") {
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
    trace.spans = {{1, "memset", "", 0.0, 0.1, 1},
                   {1, "H2D", "", 0.2, 1.2, 4096},
                   {1, "memset", "", 1.3, 1.4, 1},
                   {1, "kernel", "k", 1.5, 2.0, 0},
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

  TEST_CASE("a ladder's rows: the rungs --variant wants, in order, each filled, ran or not") {
    course::DemoOptions options;
    options.variants = {"warp", "tiled", "padded"};
    course::LadderReport report;
    std::vector<int> filled;
    // Rungs that do not run never touch the GPU: a stub, a rung this GPU cannot run, a bad call.
    course::add_rungs(
        report, options, kRungs,
        [](const Rung& rung) -> course::Measurement {
          if (rung.number == 1)
            throw course::NotImplemented(std::string(rung.name), "tiled.cu");
          if (rung.number == 2)
            throw course::Unsupported(std::string(rung.name), "no wgmma");
          throw std::invalid_argument("n must be positive");
        },
        [&](course::LadderRow& row, const Rung& rung) {
          filled.push_back(rung.number);
          row.note = row.ran() ? "ran" : "did not run";
          row.metric = 1.0;  // no time, no rate: measured_row() sets it back to 0
        });
    REQUIRE(report.rows.size() == 3);
    CHECK(filled == std::vector<int>{1, 2, 3});
    CHECK(report.rows[0].rung == "tiled");
    CHECK(report.rows[0].kind == "exercise");
    CHECK(report.rows[0].status == "not implemented");
    CHECK(report.rows[1].status == "skipped");
    CHECK(report.rows[2].status == "error: n must be positive");
    CHECK(report.rows[2].kind == "stretch");
    for (const auto& row : report.rows) {
      CHECK(row.note == "did not run");
      CHECK(row.metric == 0.0);
      CHECK(row.timing.median_ms == 0.0);
    }
    CHECK(report.notes.empty());

    options.variants.clear();  // no --variant: every rung
    course::LadderReport all;
    course::add_rungs(
        all, options, std::span(kRungs).first(2),
        [](const Rung& rung) -> course::Measurement {
          throw course::NotImplemented(std::string(rung.name), "here");
        },
        [](course::LadderRow&, const Rung&) {});
    REQUIRE(all.rows.size() == 2);
    CHECK(all.rows[1].rung == "tiled");
  }

  TEST_CASE("--variant: the rungs it names, and whether a table shows any of them") {
    course::DemoOptions options;
    CHECK(options.wants("naive"));  // no --variant: every rung
    CHECK(options.wants_any(kRungs));
    options.variants = {"warp"};
    CHECK(options.wants(std::string_view("warp")));
    CHECK_FALSE(options.wants("naive"));
    CHECK(options.wants_any(kRungs));
    CHECK_FALSE(options.wants_any(std::span(kRungs).first(3)));
    auto given = kRungs | std::views::filter([](const Rung& rung) { return rung.kind == "given"; });
    CHECK_FALSE(options.wants_any(given));
  }

  TEST_CASE("a demo measures with --repeat, on inputs from the base seed or one of its streams") {
    course::DemoOptions options;
    options.repeat = 7;
    const course::MeasureOptions plain = options.measuring();
    CHECK(plain.repeats == 7);
    CHECK(plain.seed == course::base_seed());
    CHECK(plain.warmup == course::MeasureOptions{}.warmup);
    CHECK(options.measuring(1000).seed == course::derive_seed(course::base_seed(), 1000));
  }

  TEST_CASE("a sweep's rows: shares of each size's ceiling, speedups at the same size, by rung") {
    constexpr std::array<int, 2> sizes{256, 512};
    std::array<course::ceilings::Ceiling, 2> ceilings;
    ceilings[0].value = 100.0;
    ceilings[1].value = 200.0;
    ceilings[1].name = "cuBLAS at 512";
    std::vector<int> order;  // each size's ceiling before its rows
    const auto sweep = course::sweep_rows(
        sizes, "tiled",
        [&](int n) -> const course::ceilings::Ceiling& {
          order.push_back(-n);
          return ceilings[n == 256 ? 0 : 1];
        },
        [&](int n) {
          order.push_back(n);
          course::LadderRow stub = timed_row("warp", 0.0);
          stub.status = "not implemented";
          std::vector<course::LadderRow> rows{timed_row("tiled", n / 128.0),
                                              timed_row("naive", n / 64.0), stub};
          rows[0].metric = 50.0;
          return rows;
        });
    CHECK(order == std::vector<int>{-256, 256, -512, 512});
    CHECK(sweep.ceiling.name == "cuBLAS at 512");
    CHECK(sweep.ceilings == "256: 100.0, 512: 200.0");
    const auto& rows = sweep.rows;
    REQUIRE(rows.size() == 6);
    CHECK(rows[0].rung == "tiled");
    CHECK(rows[1].rung == "tiled");
    CHECK(rows[2].rung == "naive");
    CHECK(rows[0].share == doctest::Approx(0.5));   // 50 of 100
    CHECK(rows[1].share == doctest::Approx(0.25));  // 50 of 200
    CHECK(rows[0].speedup == doctest::Approx(1.0));
    CHECK(rows[3].speedup == doctest::Approx(0.5));  // naive at 512: 8 ms against tiled's 4 ms
    CHECK(rows[4].speedup == 0.0);                   // warp did not run
    CHECK(rows[4].share == 0.0);
    CHECK(course::find_row(rows, "naive") == &rows[2]);
    CHECK(course::find_row(rows, "padded") == nullptr);

    const auto no_baseline = course::sweep_rows(
        sizes, "tiled", [&](int) -> const course::ceilings::Ceiling& { return ceilings[0]; },
        [](int) { return std::vector<course::LadderRow>{timed_row("naive", 1.0)}; });
    REQUIRE(no_baseline.rows.size() == 2);
    CHECK(no_baseline.rows[0].speedup == 0.0);  // --variant left the baseline out
  }

  TEST_CASE("a ceiling as a row; a matrix product's shape") {
    course::ceilings::Ceiling ceiling;
    ceiling.name = "cuBLAS SGEMM";
    ceiling.value = 40000.0;
    ceiling.timing.median_ms = 3.5;
    const auto row = course::ceiling_row(ceiling, {.ops = 2e9, .bytes = 1e6}, "both triangles",
                                         {"100.0 %", "-"});
    CHECK(row.rung == "cuBLAS SGEMM");
    CHECK(row.kind == "ceiling");
    CHECK(row.status == "ok");
    CHECK(row.metric == 40000.0);
    CHECK(row.timing.median_ms == 3.5);
    CHECK(row.work.ops == 2e9);
    CHECK(row.note == "both triangles");
    CHECK(row.extra == std::vector<std::string>{"100.0 %", "-"});

    const auto square = course::parse_gemm_dims("4k", 8192, 1 << 26);
    REQUIRE(square.has_value());
    CHECK(course::shape_text(*square) == "4096 x 4096 x 4096");
    const auto shape = course::parse_gemm_dims("1000x2000x300", 8192, 1 << 26);
    REQUIRE(shape.has_value());
    CHECK(shape->m == 1000);
    CHECK(shape->n == 2000);
    CHECK(shape->k == 300);
    for (const std::string bad : {"0", "8193x1x1", "1x2", "banana"})
      CHECK_MESSAGE(!course::parse_gemm_dims(bad, 8192, 1 << 26).has_value(), bad);
    CHECK(course::parse_gemm_dims("8192x8192x1", 8192, 1 << 26).has_value());  // C: 2^26, allowed
    CHECK_FALSE(course::parse_gemm_dims("8192x8192x1", 8192, (1 << 26) - 1).has_value());
    CHECK_FALSE(course::parse_gemm_dims("1x8192x8192", 8192, (1 << 26) - 1).has_value());  // B
    CHECK_FALSE(course::gemm_dims_problem("4096", 262140, 1 << 26).has_value());
    CHECK(course::gemm_dims_problem("4096x0", 262140, 1 << 26) ==
          "--size takes MxNxK or N, with 1 <= M, N, K <= 262140 and at most 2^26 (8192 x 8192) "
          "elements in each of A, B and C, e.g. 4096 or 1000x1000x1000");
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("a rung that ran: its timing, WRONG with its failure in the row or under the table") {
    course::Measurement right;
    right.timing = {2.0, 1.5, 3.0, 10};
    course::Measurement wrong = right;
    wrong.failure = "out[3] = nan, expected 1";
    const std::array<Rung, 2> rungs{{{"naive", "given", 0}, {"tiled", "exercise", 1}}};
    auto measure_rung = [&](const Rung& rung) { return rung.number == 0 ? right : wrong; };
    auto fill = [](course::LadderRow& row, const Rung&) {
      row.metric = 8.0 / row.timing.median_ms;
    };

    course::LadderReport in_row;
    course::add_rungs(in_row, course::DemoOptions{}, rungs, measure_rung, fill);
    REQUIRE(in_row.rows.size() == 2);
    CHECK(in_row.rows[0].status == "ok");
    CHECK(in_row.rows[0].timing.median_ms == 2.0);
    CHECK(in_row.rows[0].metric == 4.0);
    CHECK(in_row.rows[1].status == "WRONG");
    CHECK(in_row.rows[1].ran());
    CHECK(in_row.rows[1].timing.max_ms == 3.0);
    CHECK(in_row.rows[1].note == wrong.failure);
    CHECK(in_row.notes.empty());

    course::LadderReport under_table;
    course::add_rungs(under_table, course::DemoOptions{}, rungs, measure_rung, fill,
                      course::FailureNote::UnderTable);
    CHECK(under_table.rows[1].status == "WRONG");
    CHECK(under_table.rows[1].note.empty());
    CHECK(under_table.notes == std::vector<std::string>{"WRONG: " + wrong.failure});

    course::Measurement instant = right;  // a time of 0 ms: no rate
    instant.timing.median_ms = 0.0;
    const auto row = course::measured_row(
        "naive", "given", [&] { return instant; },
        [](course::LadderRow& row) { row.metric = 1.0 / row.timing.median_ms; });
    CHECK(row.status == "ok");
    CHECK(row.metric == 0.0);
  }
}
