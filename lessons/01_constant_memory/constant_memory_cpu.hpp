/// @file
/// @brief Lesson 01's CPU reference, in double precision: the specification.
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "course/parallel.hpp"

namespace course::lesson01 {

/// sin(sqrt(x)) in double for the same float x = float(i) * step that the kernel computes, so
/// that the only differences left are sqrtf's and sinf's rounding.
inline std::vector<double> sin_sqrt_reference(std::size_t n, float step) {
  std::vector<double> y(n);
  parallel_for(n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const float x = static_cast<float>(static_cast<unsigned>(i)) * step;
      y[i] = std::sin(std::sqrt(static_cast<double>(x)));
    }
  });
  return y;
}

/// p_s(x[i]) in double by Horner's rule, with s = i mod sets and set s at
/// coefficients[s * (degree + 1)].
inline std::vector<double> poly_reference(std::span<const float> coefficients, int degree, int sets,
                                          std::span<const float> x) {
  std::vector<double> y(x.size());
  parallel_for(x.size(), [&](std::size_t begin, std::size_t end) {  // points are independent
    for (std::size_t i = begin; i < end; ++i) {
      const float* c = coefficients.data() + (i % sets) * static_cast<std::size_t>(degree + 1);
      double value = c[degree];
      for (int k = degree - 1; k >= 0; --k)
        value = value * x[i] + c[k];
      y[i] = value;
    }
  });
  return y;
}

/// The largest sum of |c_k| over the sets: Horner's rounding error in float is at most about
/// 2 * degree * 2^-24 times this sum for |x| <= 1, which sets the tests' absolute tolerance.
inline double coefficient_bound(std::span<const float> coefficients, int degree, int sets) {
  double bound = 0.0;
  for (int s = 0; s < sets; ++s) {
    double sum = 0.0;
    for (int k = 0; k <= degree; ++k)
      sum += std::fabs(coefficients[s * (degree + 1) + k]);
    bound = std::max(bound, sum);
  }
  return bound;
}

}  // namespace course::lesson01
