/// @file
/// @brief What the tests of the matrix-product lessons share (03 matmul, 12 tensor cores, and
/// lesson 04's C = A·Aᵀ where its shape allows): the shape of a product, the shapes every
/// product rung is checked on, its operands placed off a 16-byte boundary, the guards around C,
/// and the launcher's refusal of bad shapes and pointers, which both launchers document alike.
#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "course/gpu.hpp"
#include "course/testing_buffers.hpp"

namespace course {

/// The shape of a matrix product C = A B: A is M x K, B is K x N, C is M x N.
struct ProductShape {
  int m;  ///< rows of A and C
  int n;  ///< columns of B and C
  int k;  ///< columns of A, rows of B: the length of each dot product
};

/// "MxNxK", for messages.
[[nodiscard]] inline std::string to_string(ProductShape shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
}

/// M N K, the multiply-adds of a product: what decides how long its check takes.
[[nodiscard]] inline double multiply_adds(ProductShape shape) {
  return double(shape.m) * shape.n * shape.k;
}

/// The shapes a product rung's correctness row runs: @p shapes (the lesson's edges, ragged tiles
/// and rectangles), then, outside the quick runs, 1000^3 and the demo's 4096^3. Under the
/// sanitizers, whose racecheck tracks every shared-memory access, only those of at most 300k
/// multiply-adds, which keep every kind of edge, and @p sanitizer_stand_in, a ragged multi-tile
/// shape that stands in for the larger ones.
[[nodiscard]] inline std::vector<ProductShape> product_correctness_shapes(
    std::vector<ProductShape> shapes, ProductShape sanitizer_stand_in) {
  if (!quick_mode()) {
    shapes.push_back({1000, 1000, 1000});
    shapes.push_back({4096, 4096, 4096});
  }
  if (sanitize_mode()) {
    std::erase_if(shapes, [](ProductShape shape) { return multiply_adds(shape) > 3e5; });
    shapes.push_back(sanitizer_stand_in);
  }
  return shapes;
}

/// Whether a product's second input (besides the uniform one) runs on @p shape: on every shape
/// but the largest, where one input is enough, and not under the sanitizers, where the values
/// move no access.
[[nodiscard]] inline bool second_input_on(ProductShape shape) {
  return multiply_adds(shape) <= 1e9 + 1 && !sanitize_mode();
}

/// The poisoned elements after each of A, B and C (none under the sanitizers, guard_elements()):
/// a read past A or B computes with NaN, a write past C is caught.
[[nodiscard]] inline std::size_t product_guard() {
  return guard_elements(64);
}

/// Where A, B and C start, in elements past a 256-byte boundary: 1 puts one element past a
/// 16-byte boundary, where no 16-byte access is possible.
struct ProductOffsets {
  std::size_t a = 0;  ///< of A
  std::size_t b = 0;  ///< of B
  std::size_t c = 0;  ///< of C
};

/// A, B and C each one element past a 16-byte boundary alone, then all three together: no rung
/// may assume cudaMalloc's alignment of any of them.
inline constexpr ProductOffsets kMisalignedOperands[] = {
    {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};

/// The words for @p offsets in a message: "" when all are 0, else e.g. ", A, C one @p element past
/// a 16-byte boundary".
[[nodiscard]] inline std::string to_string(ProductOffsets offsets, std::string_view element) {
  return misaligned_text({{"A", offsets.a}, {"B", offsets.b}, {"C", offsets.c}},
                         "one " + std::string(element) + " past a 16-byte boundary");
}

/// Checks the guards around C: in @p all, C's whole buffer downloaded (poisoned before the
/// launch, C at [@p at, @p at + @p count)), the @p after elements past C's end and the @p at
/// elements before its start must still hold the poison. A kernel that writes outside C fails
/// here even where C itself is right.
inline void check_guards_of_c(std::span<const float> all, std::size_t at, std::size_t count,
                              std::size_t after, const std::string& where) {
  CHECK_MESSAGE(still_poisoned(all.subspan(at + count, after)),
                where << ": the kernel wrote past the end of C");
  CHECK_MESSAGE(still_poisoned(all.first(at)), where << ": the kernel wrote before the start of C");
}

/// Checks, without a GPU, that a product launcher refuses what lessons 03 and 12 document alike:
/// a negative extent, M or N above @p max_extent, A, B or C of more than 2^26 elements (8192 x
/// 8192, one element more in each, and 2^32 where each extent fits), and null pointers, before
/// it touches the device. @p multiply(a, b, c, m, n, k) calls the launcher under test; @p a, @p b
/// and @p c are addresses it never dereferences. The lesson checks overlaps itself (its operands'
/// sizes differ), then check_empty_products().
template <class A, class B, class Multiply>
void check_product_refusals(const Multiply& multiply, const A* a, const B* b, float* c,
                            int max_extent) {
  const A* no_a = nullptr;
  const B* no_b = nullptr;
  float* no_c = nullptr;
  CHECK_THROWS_WITH_AS(multiply(a, b, c, -1, 10, 10), doctest::Contains("non-negative"),
                       std::invalid_argument);
  CHECK_THROWS_AS(multiply(a, b, c, 10, -1, 10), std::invalid_argument);
  CHECK_THROWS_AS(multiply(a, b, c, 10, 10, -1), std::invalid_argument);
  CHECK_THROWS_WITH_AS(multiply(a, b, c, max_extent + 1, 1, 1), doctest::Contains("at most"),
                       std::invalid_argument);
  CHECK_THROWS_AS(multiply(a, b, c, 1, max_extent + 1, 1), std::invalid_argument);
  // Each dimension fits, but A (65536 x 65536) has 2^32 elements.
  CHECK_THROWS_WITH_AS(multiply(a, b, c, 65536, 1, 65536), doctest::Contains("2^26"),
                       std::invalid_argument);
  // One element more than kMaxElements (8192 x 8192) in A, in B, in C.
  CHECK_THROWS_WITH_AS(multiply(a, b, c, 8193, 1, 8192), doctest::Contains("2^26"),
                       std::invalid_argument);
  CHECK_THROWS_AS(multiply(a, b, c, 1, 8192, 8193), std::invalid_argument);
  CHECK_THROWS_AS(multiply(a, b, c, 8192, 8193, 1), std::invalid_argument);
  CHECK_THROWS_AS(multiply(a, b, c, 1, 1, (1 << 26) + 1), std::invalid_argument);
  CHECK_THROWS_AS(multiply(a, b, c, 1, 65536, 65536), std::invalid_argument);
  CHECK_THROWS_AS(multiply(a, b, c, 65536, 65536, 1), std::invalid_argument);
  CHECK_THROWS_WITH_AS(multiply(no_a, b, c, 10, 10, 10), doctest::Contains("device pointers"),
                       std::invalid_argument);
  CHECK_THROWS_AS(multiply(a, no_b, c, 10, 10, 10), std::invalid_argument);
  CHECK_THROWS_AS(multiply(a, b, no_c, 10, 10, 10), std::invalid_argument);
  CHECK_THROWS_AS(multiply(no_a, no_b, c, 10, 10, 0), std::invalid_argument);
}

/// Checks, without a GPU, that a product launcher treats an empty C as a no-op, even with null
/// pointers. @p multiply as for check_product_refusals().
template <class A, class B, class Multiply>
void check_empty_products(const Multiply& multiply) {
  const A* no_a = nullptr;
  const B* no_b = nullptr;
  float* no_c = nullptr;
  CHECK_NOTHROW(multiply(no_a, no_b, no_c, 0, 10, 10));
  CHECK_NOTHROW(multiply(no_a, no_b, no_c, 10, 0, 10));
  CHECK_NOTHROW(multiply(no_a, no_b, no_c, 0, 0, 0));
}

}  // namespace course
