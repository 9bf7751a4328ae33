/// @file
/// @brief Looking a rung up in a lesson's table of rungs, by value or by name.
///
/// Every lesson's interface lists its rungs in a `constexpr std::array` of entries that have at
/// least a `variant` (the enumerator) and a `name` (as the tests, the demo and the README spell
/// it). These two lookups serve every such table.
#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace course {

/// A rung's entry in its lesson's table, when the lesson needs nothing more than its name and
/// kind (a lesson that does declares a struct of its own that starts with the same three).
template <class Variant>
struct RungInfo {
  Variant variant;        ///< the rung
  std::string_view name;  ///< as the demo's --variant takes it
  std::string_view kind;  ///< given, exercise or stretch
};

/// The name of @p variant in @p table, or "?" if the table does not list it.
/// @param table   a lesson's table of rungs (entries with `variant` and `name`)
/// @param variant the rung to name
template <class Info, std::size_t N, class Variant>
[[nodiscard]] constexpr std::string_view name_in(const std::array<Info, N>& table,
                                                 Variant variant) {
  for (const auto& info : table)
    if (info.variant == variant)
      return info.name;
  return "?";
}

/// The rung of @p table called @p name, or nothing if none is.
/// @param table a lesson's table of rungs (entries with `variant` and `name`)
/// @param name  the rung's name, as the tests, the demo and the README spell it
template <class Info, std::size_t N>
[[nodiscard]] constexpr auto variant_named(const std::array<Info, N>& table, std::string_view name)
    -> std::optional<decltype(Info::variant)> {
  for (const auto& info : table)
    if (info.name == name)
      return info.variant;
  return std::nullopt;
}

}  // namespace course
