/// @file
/// @brief Lesson 05's device helpers, shared by the given code, the skeleton and the solution:
/// the operators as functors, an atomic for each of them, and the row operations' pieces.
/// Included by .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "reduction.cuh"

namespace course::lesson05 {

/// a + b, identity 0.
template <class T>
struct Sum {
  /// The identity: reducing an empty range gives it.
  __host__ __device__ static constexpr T identity() { return lesson05::identity<T>(Op::Sum); }
  /// Combines two values.
  __host__ __device__ T operator()(T a, T b) const { return a + b; }
};

/// The larger of a and b, identity -inf (INT_MIN for int).
template <class T>
struct Max {
  /// The identity: reducing an empty range gives it.
  __host__ __device__ static constexpr T identity() { return lesson05::identity<T>(Op::Max); }
  /// Combines two values.
  __host__ __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};

/// The smaller of a and b, identity +inf (INT_MAX for int).
template <class T>
struct Min {
  /// The identity: reducing an empty range gives it.
  __host__ __device__ static constexpr T identity() { return lesson05::identity<T>(Op::Min); }
  /// Combines two values.
  __host__ __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};

/// Calls @p f with the functor of @p op for element type T: f(Sum<T>{}), f(Max<T>{}) or
/// f(Min<T>{}). Lets a launcher instantiate its kernel for the operator chosen at run time.
template <class T, class F>
void with_op(Op op, F&& f) {
  switch (op) {
    case Op::Sum:
      return f(Sum<T>{});
    case Op::Max:
      return f(Max<T>{});
    case Op::Min:
      return f(Min<T>{});
  }
}

/// Blocks needed to give every element of @p n one of @p per_block slots.
inline unsigned blocks_for(std::size_t n, std::size_t per_block) {
  return static_cast<unsigned>((n + per_block - 1) / per_block);
}

// Combines v into *out atomically, one overload per operator. int has atomicAdd/Max/Min; float
// has atomicAdd only. For float max and min we use the bit patterns: for floats with the sign
// bit clear, the IEEE order is the order of their bits read as signed ints; for floats with the
// sign bit set, it is the *reverse* order of their bits read as unsigned ints (and any such
// pattern is larger, unsigned, than every pattern with the sign bit clear). So for max a
// non-negative v competes with atomicMax on ints, a negative v with atomicMin on unsigned ints,
// and the two never disagree about which value is larger; for min it is the other way round,
// atomicMin on ints and atomicMax on unsigned ints. The identities -inf and +inf are ordinary
// values here. NaN inputs are outside the contract.

/// atomicAdd on an int.
__device__ inline void atomic_combine(Sum<int>, int* out, int v) {
  atomicAdd(out, v);
}
/// atomicMax on an int.
__device__ inline void atomic_combine(Max<int>, int* out, int v) {
  atomicMax(out, v);
}
/// atomicMin on an int.
__device__ inline void atomic_combine(Min<int>, int* out, int v) {
  atomicMin(out, v);
}
/// atomicAdd on a float (the order of the additions, and so the last bits, vary run to run).
__device__ inline void atomic_combine(Sum<float>, float* out, float v) {
  atomicAdd(out, v);
}
/// Float max through integer atomics on the bit pattern (see above).
__device__ inline void atomic_combine(Max<float>, float* out, float v) {
  if (__float_as_int(v) >= 0)
    atomicMax(reinterpret_cast<int*>(out), __float_as_int(v));
  else
    atomicMin(reinterpret_cast<unsigned*>(out), __float_as_uint(v));
}
/// Float min through integer atomics on the bit pattern (see above).
__device__ inline void atomic_combine(Min<float>, float* out, float v) {
  if (__float_as_int(v) >= 0)
    atomicMin(reinterpret_cast<int*>(out), __float_as_int(v));
  else
    atomicMax(reinterpret_cast<unsigned*>(out), __float_as_uint(v));
}

// ---------------------------------------------------------------------------------------------
// Row reductions: each operation is an element (a, a*b or a*a), an operator (sum, max, min) and
// a finish (divide by the count for the means).

/// The tile edge of the shared versions: one warp wide.
inline constexpr int kRowTile = 32;
/// Rows of threads in a shared version's block (kRowTile x kRowThreadRows threads).
inline constexpr int kRowThreadRows = 8;

/// The element that row operation @p kOp reduces at index i.
template <RowOp kOp>
__device__ inline float row_element(const float* a, const float* b, std::size_t i) {
  if constexpr (kOp == RowOp::DotProduct)
    return a[i] * b[i];
  else if constexpr (kOp == RowOp::RowSumOfSquares)
    return a[i] * a[i];
  else
    return a[i];
}

/// The operator of row operation @p kOp, as a functor.
template <RowOp kOp>
using RowCombine =
    std::conditional_t<kOp == RowOp::RowMax, Max<float>,
                       std::conditional_t<kOp == RowOp::RowMin, Min<float>, Sum<float>>>;

/// The final value of row operation @p kOp from its reduction @p acc over @p count elements.
template <RowOp kOp>
__device__ inline float row_finish(float acc, int count) {
  if constexpr (kOp == RowOp::RowMean || kOp == RowOp::ColumnMean)
    return acc / static_cast<float>(count);
  else
    return acc;
}

/// Calls @p f with std::integral_constant<RowOp, op>{}, so that a launcher can instantiate its
/// kernel template for the operation chosen at run time: with_row_op(op, [&](auto k) {
/// kernel<decltype(k)::value><<<...>>>(...); }).
template <class F>
void with_row_op(RowOp op, F&& f) {
  switch (op) {
    case RowOp::DotProduct:
      return f(std::integral_constant<RowOp, RowOp::DotProduct>{});
    case RowOp::RowSum:
      return f(std::integral_constant<RowOp, RowOp::RowSum>{});
    case RowOp::RowMean:
      return f(std::integral_constant<RowOp, RowOp::RowMean>{});
    case RowOp::ColumnMean:
      return f(std::integral_constant<RowOp, RowOp::ColumnMean>{});
    case RowOp::RowMax:
      return f(std::integral_constant<RowOp, RowOp::RowMax>{});
    case RowOp::RowSumOfSquares:
      return f(std::integral_constant<RowOp, RowOp::RowSumOfSquares>{});
    case RowOp::RowMin:
      return f(std::integral_constant<RowOp, RowOp::RowMin>{});
  }
}

}  // namespace course::lesson05
