/// @file
/// @brief The inputs that the reduction and scan tests (lessons 05 and 10) both check their rungs
/// on, for int (bit-exact) and float: uniform values, and outside the quick runs a few patterns
/// that break a rung in their own ways. Each lesson adds its own inputs after these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "course/data.hpp"
#include "course/gpu.hpp"

namespace course {

/// Inputs of one size, each with the words that name it in a message (e.g. "all-equal").
template <class T>
using NamedInputs = std::vector<std::pair<std::string, std::vector<T>>>;

/// @p n uniform values of either type: ints in [-1000, 1000], small enough that no sum of up to
/// 2^21 of them leaves int32; floats in [-1, 1).
template <class T>
[[nodiscard]] std::vector<T> uniform_input(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, int>)
    return uniform_ints(n, seed, -1000, 1000);
  else
    return pattern_floats(Pattern::Uniform, n, seed);
}

/// The int inputs every size is checked on: uniform in [-1000, 1000]; outside the quick runs also
/// every element equal (7) and only negative values in [-1000, -1] (from seed + 1). The lesson
/// adds its own after them, outside the quick runs.
[[nodiscard]] inline NamedInputs<int> basic_int_inputs(std::size_t n, std::uint64_t seed) {
  NamedInputs<int> inputs;
  inputs.emplace_back("uniform [-1000, 1000]", uniform_ints(n, seed, -1000, 1000));
  if (quick_mode())
    return inputs;
  inputs.emplace_back("all-equal", std::vector<int>(n, 7));
  inputs.emplace_back("negative [-1000, -1]", uniform_ints(n, seed + 1, -1000, -1));
  return inputs;
}

/// The float inputs every size is checked on: uniform in [-1, 1); outside the quick runs also the
/// all-equal and large-magnitude patterns (course/data.hpp). The lesson adds its own after them,
/// outside the quick runs.
[[nodiscard]] inline NamedInputs<float> basic_float_inputs(std::size_t n, std::uint64_t seed) {
  NamedInputs<float> inputs;
  inputs.emplace_back("uniform", pattern_floats(Pattern::Uniform, n, seed));
  if (quick_mode())
    return inputs;
  inputs.emplace_back("all-equal", pattern_floats(Pattern::AllEqual, n, seed));
  inputs.emplace_back("large-magnitude", pattern_floats(Pattern::LargeMagnitude, n, seed));
  return inputs;
}

}  // namespace course
