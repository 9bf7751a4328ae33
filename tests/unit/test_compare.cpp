#include <cmath>
#include <limits>
#include <vector>

#include "course/testing.hpp"

TEST_SUITE("cpu") {
  TEST_CASE("exact comparison names the first mismatch by row and column") {
    std::vector<int> expected(12), got(12);
    for (int i = 0; i < 12; ++i) expected[i] = got[i] = i;
    got[7] = -1;
    const auto result = course::compare_exact<int>(got, expected, {4, 3});
    CHECK_FALSE(result.ok);
    CHECK(result.mismatches == 1);
    CHECK(result.report().find("(row 1, col 3): expected 7, got -1") != std::string::npos);
  }

  TEST_CASE("a NaN left by poison never passes, exact or close") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> expected{1.0f, 2.0f}, got{1.0f, nan};
    CHECK_FALSE(course::compare_exact<float>(got, expected, {2}).ok);
    CHECK_FALSE(course::compare_close(got, expected, {1e3, 1e3}, {2}).ok);
    const std::vector<double> exact{1.0, 2.0};
    CHECK_FALSE(course::compare_close(got, exact, {1e3, 1e3}, {2}).ok);
  }

  TEST_CASE("close comparison applies atol + rtol * |ref|") {
    const std::vector<double> expected{100.0, 0.0};
    CHECK(course::compare_close(std::vector<float>{100.05f, 0.0f}, expected, {0.0, 1e-3}, {2}).ok);
    CHECK_FALSE(course::compare_close(std::vector<float>{100.2f, 0.0f}, expected, {0.0, 1e-3}, {2}).ok);
    CHECK(course::compare_close(std::vector<float>{100.0f, 1e-7f}, expected, {1e-6, 0.0}, {2}).ok);
    const auto result = course::compare_close(std::vector<float>{101.0f, 0.0f}, expected, {0, 0}, {2});
    CHECK(result.max_abs_error == doctest::Approx(1.0));
    CHECK(result.rel_l2_error == doctest::Approx(0.01));
  }

  TEST_CASE("sizes that differ are a mismatch, not a crash") {
    const auto result = course::compare_exact<int>(std::vector<int>{1}, std::vector<int>{1, 2}, {2});
    CHECK_FALSE(result.ok);
    CHECK(result.report().find("sizes differ") != std::string::npos);
  }

  TEST_CASE("indices are described in the shape's terms") {
    CHECK(course::describe_index(5, {10}) == "[5]");
    CHECK(course::describe_index(5, {4, 3}) == "(row 1, col 1)");
    CHECK(course::describe_index(29, {4, 3, 5}) == "(x 1, y 1, z 2)");
  }
}
