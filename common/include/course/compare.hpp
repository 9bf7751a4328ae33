/// @file
/// @brief Comparing a GPU result with the CPU reference: exact for integers, tolerance for floats,
/// with the coordinates of the first mismatches and the worst error in the report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace course {

/// The shape of a result, for naming an element: x varies fastest (columns), then y (rows),
/// then z (planes). A vector is {n}; a rows x cols matrix is {cols, rows}.
struct Extent {
  std::size_t x = 1;  ///< columns (fastest)
  std::size_t y = 1;  ///< rows
  std::size_t z = 1;  ///< planes
  /// Elements in the shape.
  [[nodiscard]] std::size_t count() const noexcept { return x * y * z; }
};

/// "[i]" for a vector, "(row r, col c)" for a matrix, "(x, y, z)" for a grid.
[[nodiscard]] std::string describe_index(std::size_t index, Extent extent);

/// Float tolerance: element i passes when |got - ref| <= atol + rtol * |ref|.
struct Tolerance {
  double atol = 0.0;  ///< absolute part
  double rtol = 0.0;  ///< relative part
};

/// The outcome of a comparison. Converts to bool; report() says what went wrong and where.
struct Comparison {
  bool ok = true;               ///< every element within tolerance (and no NaN where ref is finite)
  std::size_t checked = 0;      ///< elements compared
  std::size_t mismatches = 0;   ///< elements out of tolerance
  double max_abs_error = 0.0;   ///< worst |got - ref|
  std::size_t worst_index = 0;  ///< where it is
  double rel_l2_error = 0.0;    ///< ||got - ref|| / ||ref|| (floats)
  std::string details;          ///< the first mismatches, one per line
  /// True when every element matched.
  [[nodiscard]] explicit operator bool() const noexcept { return ok; }
  /// One paragraph: "3 of 1000 elements differ; first at (row 3, col 17): expected 1.5, got nan…"
  [[nodiscard]] std::string report() const;
};

/// Exact comparison (integers, or floats that must be bit-identical such as a transpose).
/// Floats compare by bit pattern, so a NaN never equals anything the reference holds.
template <class T>
[[nodiscard]] Comparison compare_exact(std::span<const T> got, std::span<const T> expected,
                                       Extent extent);
/// Float comparison within @p tolerance against a double reference.
[[nodiscard]] Comparison compare_close(std::span<const float> got,
                                       std::span<const double> expected, Tolerance tolerance,
                                       Extent extent);
/// Float comparison within @p tolerance against a float reference.
[[nodiscard]] Comparison compare_close(std::span<const float> got,
                                       std::span<const float> expected, Tolerance tolerance,
                                       Extent extent);

/// Float comparison where element i may differ from @p expected[i] by at most @p bound[i]: for
/// results whose error bound depends on the element (a dot product's bound grows with the sum of
/// the magnitudes of its terms, not with its value, which may cancel to zero).
[[nodiscard]] Comparison compare_bounded(std::span<const float> got,
                                         std::span<const double> expected,
                                         std::span<const double> bound, Extent extent);

/// @cond
extern template Comparison compare_exact<float>(std::span<const float>, std::span<const float>,
                                                Extent);
extern template Comparison compare_exact<std::int32_t>(std::span<const std::int32_t>,
                                                       std::span<const std::int32_t>, Extent);
extern template Comparison compare_exact<std::uint32_t>(std::span<const std::uint32_t>,
                                                        std::span<const std::uint32_t>, Extent);
extern template Comparison compare_exact<std::uint8_t>(std::span<const std::uint8_t>,
                                                       std::span<const std::uint8_t>, Extent);
/// @endcond

/// What COURSE_CHECK_UNCHANGED reports: empty when the @p bytes at @p device (device or host
/// memory) equal those at @p host, else which element of the input @p name changed first, of
/// how many (elements of @p element_bytes bytes).
[[nodiscard]] std::string changed_input_bytes(const void* device, const void* host,
                                              std::size_t bytes, std::size_t element_bytes,
                                              std::string_view name);

/// COURSE_CHECK_UNCHANGED's typed form.
template <class T>
[[nodiscard]] std::string changed_input(const T* device, std::span<const T> host,
                                        std::string_view name) {
  return changed_input_bytes(device, host.data(), host.size_bytes(), sizeof(T), name);
}

}  // namespace course
