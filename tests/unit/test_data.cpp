#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <vector>

#include "course/image.hpp"
#include "course/parallel.hpp"
#include "course/testing.hpp"

TEST_SUITE("cpu") {
  TEST_CASE("generators are deterministic and depend on the seed") {
    const auto a = course::uniform_floats(1000, 42);
    CHECK(a == course::uniform_floats(1000, 42));
    CHECK(a != course::uniform_floats(1000, 43));
    // Element i depends on (seed, i) only: a longer draw starts with the shorter one.
    const auto longer = course::uniform_floats(2000, 42);
    CHECK(std::equal(a.begin(), a.end(), longer.begin()));
  }

  TEST_CASE("parallel_for covers every index once, and a large draw is the small one's start") {
    for (const std::size_t count :
         {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{(1 << 20) + 7}}) {
      std::vector<int> hits(count, 0);
      course::parallel_for(
          count,
          [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i)
              ++hits[i];
          },
          1000);
      CHECK(std::count(hits.begin(), hits.end(), 1) == static_cast<std::ptrdiff_t>(count));
    }
    // Generated in chunks by threads, element for element the same as one element at a time.
    const std::size_t large = (std::size_t{1} << 22) + 3;
    const auto many = course::uniform_floats(large, 5);
    const auto few = course::uniform_floats(1000, 5);
    CHECK(std::equal(few.begin(), few.end(), many.begin()));
    const auto keys = course::uniform_keys(large, 5);
    CHECK(keys.back() == static_cast<std::uint32_t>(course::hash64(5, large - 1)));
    CHECK_THROWS_AS(course::parallel_for(
                        std::size_t{1} << 20,
                        [](std::size_t begin, std::size_t) {
                          if (begin > 0)
                            throw std::runtime_error("a chunk failed");
                        },
                        1000),
                    std::runtime_error);
  }

  TEST_CASE("uniform values stay in range and are never all zero") {
    const auto floats = course::uniform_floats(100000, 7, -2.0f, 3.0f);
    CHECK(*std::min_element(floats.begin(), floats.end()) >= -2.0f);
    CHECK(*std::max_element(floats.begin(), floats.end()) < 3.0f);
    const auto ints = course::uniform_ints(100000, 7, -5, 5);
    CHECK(*std::min_element(ints.begin(), ints.end()) == -5);
    CHECK(*std::max_element(ints.begin(), ints.end()) == 5);
    const auto keys = course::uniform_keys(1000, 1);
    CHECK(std::set<std::uint32_t>(keys.begin(), keys.end()).size() > 990);
  }

  TEST_CASE("patterns are what their names say") {
    using course::Pattern;
    const auto equal = course::pattern_floats(Pattern::AllEqual, 100, 1);
    CHECK(
        std::all_of(equal.begin(), equal.end(), [&](float v) { return v == equal[0] && v != 0; }));
    const auto up = course::pattern_floats(Pattern::Ascending, 100, 1);
    CHECK(std::is_sorted(up.begin(), up.end()));
    const auto down = course::pattern_floats(Pattern::Descending, 100, 1);
    CHECK(std::is_sorted(down.rbegin(), down.rend()));
    const auto few = course::pattern_floats(Pattern::FewDistinct, 1000, 1);
    CHECK(std::set<float>(few.begin(), few.end()).size() == 4);
    const auto index = course::pattern_floats(Pattern::Index, 100, 1);
    CHECK(index[57] == 57.0f);
  }

  TEST_CASE("text generators: letter frequencies and long runs") {
    const auto text = course::english_text(100000, 3);
    const auto e = std::count(text.begin(), text.end(), 'e');
    const auto z = std::count(text.begin(), text.end(), 'z');
    CHECK(e > 20 * z);
    const auto runs = course::text_with_runs(100000, 3, 1000);
    std::size_t changes = 0;
    for (std::size_t i = 1; i < runs.size(); ++i)
      changes += runs[i] != runs[i - 1];
    CHECK(changes < 200);
  }

  TEST_CASE("the matmul lab report's matrices follow their formulas") {
    const auto a = course::lab_report_matrix_a(4, 5);
    CHECK(a[0] == doctest::Approx(1.0));                          // (0 - 0 + 1) / 1
    CHECK(a[1 * 5 + 2] == doctest::Approx((1 - 0.2 + 1) / 4.0));  // i = 1, j = 2
    const auto b = course::lab_report_matrix_b(4, 5);
    CHECK(b[2 * 5 + 3] == doctest::Approx((3 - 0.4 + 1) * 6.0 / 14.0));  // i = 2, j = 3
  }

  TEST_CASE("the base seed comes from COURSE_SEED when set") {
    // The test process may or may not have it set; either way it is stable within the process.
    CHECK(course::base_seed() == course::base_seed());
    CHECK(course::derive_seed(1, 2) != course::derive_seed(1, 3));
  }

  TEST_CASE("a field becomes a PNG file; bad shapes are refused") {
    const auto path = std::filesystem::temp_directory_path() / "course_unit_field.png";
    std::vector<float> field(6 * 4);
    for (std::size_t i = 0; i < field.size(); ++i)
      field[i] = static_cast<float>(i);
    field[5] = NAN;
    course::write_png(path.string(), field, 6, 4, 0.0f, 23.0f);
    std::ifstream file(path, std::ios::binary);
    char signature[8] = {};
    file.read(signature, 8);
    CHECK(std::string(signature + 1, 3) == "PNG");
    std::filesystem::remove(path);
    CHECK_THROWS_AS(course::write_png(path.string(), field, 5, 4, 0.0f, 1.0f),
                    std::invalid_argument);
    CHECK_THROWS_AS(course::write_png(path.string(), field, 6, 4, 1.0f, 1.0f),
                    std::invalid_argument);
    CHECK_THROWS_AS(course::write_png("/no/such/dir/x.png", field, 6, 4, 0.0f, 1.0f),
                    std::runtime_error);
  }
}
