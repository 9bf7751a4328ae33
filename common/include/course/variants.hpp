/// @file
/// @brief Looking a rung, or another named value, up in a lesson's table, by value or by name.
///
/// Every lesson's interface lists its rungs in a `constexpr std::array` of entries that have at
/// least a `variant` (the enumerator) and a `name` (as the tests, the demo and the README spell
/// it), and its other named values (operations, inputs) in tables of the same kind. These
/// lookups serve every such table.
#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace course {

/// A rung's entry in its lesson's table, when the lesson needs nothing more than its name and
/// kind (a lesson that does declares a struct of its own that starts with the same three).
template <class Variant>
struct RungInfo {
  Variant variant;        ///< the rung
  std::string_view name;  ///< as the demo's --variant takes it
  std::string_view kind;  ///< given, exercise or stretch
};

/// The name of @p value in @p table, or "?" if the table does not list it. The tables of the
/// lessons' interfaces: rungs (entries with `variant` and `name`), and the other named values
/// (operations, inputs, kinds of scan) as `std::pair`s of value and name.
/// @param table a lesson's table of named values
/// @param value the value to name
template <class Info, std::size_t N, class Value>
[[nodiscard]] constexpr std::string_view name_in(const std::array<Info, N>& table, Value value) {
  for (const auto& info : table) {
    if constexpr (requires { info.variant; }) {
      if (info.variant == value)
        return info.name;
    } else if (info.first == value) {
      return info.second;
    }
  }
  return "?";
}

/// The name of the entry of @p table whose member @p key is @p value, or "?": for a table whose
/// entries are structs with a `name` and some other key (e.g. `&InputInfo::input`).
template <class Info, std::size_t N, class Value>
[[nodiscard]] constexpr std::string_view name_in(const std::array<Info, N>& table, Value value,
                                                 Value Info::*key) {
  for (const auto& info : table)
    if (info.*key == value)
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

/// The value of @p table called @p name, or nothing if none is: for the tables of other named
/// values, `std::pair`s of value and name (e.g. a lesson's operations).
template <class Value, std::size_t N>
[[nodiscard]] constexpr std::optional<Value> value_named(
    const std::array<std::pair<Value, std::string_view>, N>& table, std::string_view name) {
  for (const auto& [value, its_name] : table)
    if (its_name == name)
      return value;
  return std::nullopt;
}

/// The member @p key of the entry of @p table called @p name, or nothing if none is: for a table
/// whose entries are structs with a `name` and some other key (e.g. `&InputInfo::input`).
template <class Info, std::size_t N, class Value>
[[nodiscard]] constexpr std::optional<Value> value_named(const std::array<Info, N>& table,
                                                         std::string_view name, Value Info::*key) {
  for (const auto& info : table)
    if (info.name == name)
      return info.*key;
  return std::nullopt;
}

}  // namespace course
