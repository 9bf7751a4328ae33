#include "course/compare.hpp"

#include <cmath>
#include <cstring>
#include <sstream>

namespace course {

namespace {
constexpr std::size_t kDetailLines = 5;

template <class T>
std::string show(T value) {
  std::ostringstream out;
  out.precision(9);
  if constexpr (sizeof(T) == 1) {
    out << static_cast<int>(value);
  } else {
    out << value;
  }
  return out.str();
}

// Counts a mismatch; formats it (which is slow) only for the first few.
template <class Expected, class Got>
void note_mismatch(Comparison& result, std::size_t index, Extent extent, Expected expected,
                   Got got) {
  ++result.mismatches;
  result.ok = false;
  if (result.mismatches <= kDetailLines)
    result.details += "  at " + describe_index(index, extent) + ": expected " + show(expected) +
                      ", got " + show(got) + "\n";
}

// A failed comparison when the two sides differ in length, else an empty one that passes.
Comparison sizes_differ(std::size_t got, std::size_t expected) {
  Comparison result;
  if (got != expected) {
    result.ok = false;
    result.details = "  sizes differ: got " + std::to_string(got) + " elements, expected " +
                     std::to_string(expected) + "\n";
  }
  return result;
}

// `allowed(i, r)` is the largest error element i may have, given its reference value r.
template <class Ref, class Allowed>
Comparison compare_floats(std::span<const float> got, std::span<const Ref> expected,
                          Allowed&& allowed, Extent extent) {
  Comparison result = sizes_differ(got.size(), expected.size());
  if (!result.ok)
    return result;
  double error_sq = 0.0, ref_sq = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], r = static_cast<double>(expected[i]);
    const double error = std::fabs(g - r);
    const bool within = error <= allowed(i, r);
    // NaN fails `within` by itself; a NaN expected where NaN is got also passes (IEEE inputs).
    const bool both_nan = std::isnan(g) && std::isnan(r);
    if (!within && !both_nan) note_mismatch(result, i, extent, r, got[i]);
    if (std::isfinite(error)) {
      error_sq += error * error;
      if (error > result.max_abs_error) {
        result.max_abs_error = error;
        result.worst_index = i;
      }
    } else if (!both_nan) {
      result.max_abs_error = INFINITY;
      result.worst_index = i;
    }
    if (std::isfinite(r)) ref_sq += r * r;
  }
  result.checked = got.size();
  result.rel_l2_error = ref_sq > 0.0 ? std::sqrt(error_sq / ref_sq) : std::sqrt(error_sq);
  return result;
}
}  // namespace

std::string describe_index(std::size_t index, Extent extent) {
  const std::size_t x = index % extent.x;
  const std::size_t y = (index / extent.x) % extent.y;
  const std::size_t z = index / (extent.x * extent.y);
  if (extent.y == 1 && extent.z == 1) {
    // Appended rather than concatenated: GCC 12 warns wrongly (-Wrestrict) on "[" + to_string(i).
    std::string text = "[";
    text += std::to_string(index);
    text += ']';
    return text;
  }
  if (extent.z == 1) return "(row " + std::to_string(y) + ", col " + std::to_string(x) + ")";
  return "(x " + std::to_string(x) + ", y " + std::to_string(y) + ", z " + std::to_string(z) + ")";
}

std::string Comparison::report() const {
  std::ostringstream out;
  if (ok) {
    out << "all " << checked << " elements match (max abs error " << max_abs_error
        << ", rel L2 error " << rel_l2_error << ")";
    return out.str();
  }
  if (checked == 0) return "result not comparable:\n" + details;
  out << mismatches << " of " << checked << " elements differ; first:\n"
      << details << "  max abs error " << max_abs_error << ", rel L2 error " << rel_l2_error;
  return out.str();
}

template <class T>
Comparison compare_exact(std::span<const T> got, std::span<const T> expected, Extent extent) {
  Comparison result = sizes_differ(got.size(), expected.size());
  if (!result.ok)
    return result;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0) {
      note_mismatch(result, i, extent, expected[i], got[i]);
      if (result.mismatches == 1) result.worst_index = i;
    }
  }
  result.checked = got.size();
  return result;
}

template Comparison compare_exact<float>(std::span<const float>, std::span<const float>, Extent);
template Comparison compare_exact<std::int32_t>(std::span<const std::int32_t>,
                                                std::span<const std::int32_t>, Extent);
template Comparison compare_exact<std::uint32_t>(std::span<const std::uint32_t>,
                                                 std::span<const std::uint32_t>, Extent);
template Comparison compare_exact<std::uint8_t>(std::span<const std::uint8_t>,
                                                std::span<const std::uint8_t>, Extent);

namespace {
auto within_tolerance(Tolerance tolerance) {
  return [tolerance](std::size_t, double r) { return tolerance.atol + tolerance.rtol * std::fabs(r); };
}
}  // namespace

Comparison compare_close(std::span<const float> got, std::span<const double> expected,
                         Tolerance tolerance, Extent extent) {
  return compare_floats(got, expected, within_tolerance(tolerance), extent);
}

Comparison compare_close(std::span<const float> got, std::span<const float> expected,
                         Tolerance tolerance, Extent extent) {
  return compare_floats(got, expected, within_tolerance(tolerance), extent);
}

Comparison compare_bounded(std::span<const float> got, std::span<const double> expected,
                           std::span<const double> bound, Extent extent) {
  if (bound.size() != expected.size()) {
    Comparison result;
    result.ok = false;
    result.details = "  sizes differ: " + std::to_string(bound.size()) + " bounds for " +
                     std::to_string(expected.size()) + " expected elements\n";
    return result;
  }
  return compare_floats(got, expected, [bound](std::size_t i, double) { return bound[i]; }, extent);
}

}  // namespace course
