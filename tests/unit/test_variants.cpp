// The lookups of course/variants.hpp, over the three kinds of table the lessons' interfaces
// declare. Checked at compile time: a wrong lookup does not build.
#include <array>
#include <string_view>
#include <utility>

#include "course/testing.hpp"
#include "course/variants.hpp"

namespace {

enum class Rung { Naive, Tiled, Missing };
enum class Op { Sum, Max, Missing };

constexpr std::array<course::RungInfo<Rung>, 2> kRungs{{
    {Rung::Naive, "naive", "given"},
    {Rung::Tiled, "tiled", "exercise"},
}};

constexpr std::array<std::pair<Op, std::string_view>, 2> kOps{{{Op::Sum, "sum"}, {Op::Max, "max"}}};

struct InputInfo {
  int input;
  std::string_view name;
};
constexpr std::array<InputInfo, 2> kInputs{{{7, "seven"}, {9, "nine"}}};

static_assert(course::name_in(kRungs, Rung::Tiled) == "tiled");
static_assert(course::name_in(kRungs, Rung::Missing) == "?");
static_assert(course::name_in(kOps, Op::Max) == "max");
static_assert(course::name_in(kOps, Op::Missing) == "?");
static_assert(course::name_in(kInputs, 9, &InputInfo::input) == "nine");
static_assert(course::name_in(kInputs, 8, &InputInfo::input) == "?");
static_assert(course::variant_named(kRungs, "naive") == Rung::Naive);
static_assert(!course::variant_named(kRungs, "vectorized").has_value());
static_assert(course::value_named(kOps, "max") == Op::Max);
static_assert(!course::value_named(kOps, "product").has_value());
static_assert(course::value_named(kInputs, "nine", &InputInfo::input) == 9);
static_assert(!course::value_named(kInputs, "eight", &InputInfo::input).has_value());

}  // namespace

TEST_SUITE("cpu") {
  TEST_CASE("variants: a name for every value a table lists, and ? for one it does not") {
    CHECK(course::name_in(kRungs, Rung::Naive) == "naive");
    CHECK(course::name_in(kOps, Op::Sum) == "sum");
    CHECK(course::name_in(kInputs, 7, &InputInfo::input) == "seven");
  }
}
