// Lesson 11, the sorting networks: write the kernels, launch them, and delete the `throw` in each
// launcher. Bitonic first; the odd-even merge sort reuses its structure with other comparators.
// README.md, "Background", explains the networks; sorting_rungs.cuh has next_pow2() and
// log2_pow2(); the tests and the demo tell you when a rung is right.
#include "course/error.hpp"
#include "sorting_rungs.cuh"

namespace course::lesson11 {

namespace {
constexpr const char* kHere = "lessons/11_sorting/networks.cu";
}  // namespace

//! [bitonic_exercise]
// TODO(student): rung "bitonic". Sort problem.batch arrays of problem.length keys (and values,
// when problem.values is not null), in place, with problem.threads threads per block.
//   Any length: sort each array as if padded to P = next_pow2(length) with keys larger than
//   any key. With the smaller key always at the LOWER position, a comparator whose upper
//   position is >= length moves nothing: skip it, and never load or store the missing keys.
//   Array a occupies virtual positions [a P, a P + P).
//   The network, every comparator ascending: for size = 2, 4, ..., P; for stride = size/2,
//   size/4, ..., 1: comparator c joins lo = 2c - (c & (stride - 1)) with hi = lo ^ (size - 1)
//   (its mirror in the block) when stride == size/2, else lo + stride. Swap if key[lo] > key[hi].
//   1. A tile kernel: a block of T threads loads a tile of 4T consecutive virtual positions
//      into dynamic shared memory (the largest key, 0xFFFFFFFF, where a key is missing), runs
//      steps with one __syncthreads() after each, and stores the real keys back. Launch it once
//      for all sizes up to min(P, 4T).
//   2. For size = 8T ... P, the strides >= 4T in global memory, two steps (s, s/2) per launch:
//      a thread loads the four keys both steps join among themselves (x, x + s/2 and their
//      partners at stride s, or mirrors), swaps them in registers, stores them; a lone last
//      stride is one comparator per thread. Then one tile launch does the strides < 4T.
//   Values move with their keys: template the kernels on `bool kPairs`.
void launch_bitonic(const Problem& problem, Workspace& workspace, cudaStream_t stream) {
  throw NotImplemented("bitonic", kHere);
}
//! [bitonic_exercise]

//! [odd_even_merge_exercise]
// TODO(student): rung "odd_even_merge". Batcher's odd-even merge sort with the same structure:
// only the comparators change. With pos = 2c - (c & (stride - 1)):
//   stride == size/2:            join pos and pos + stride;
//   otherwise, if (c & (size/2 - 1)) >= stride: join pos - stride and pos; else idle.
// Careful: at a stride below the tile, the pair (pos - stride, pos) can straddle two tiles when
// the merge is larger than a tile. Which steps can the tile kernel still do, then?
void launch_odd_even_merge(const Problem& problem, Workspace& workspace, cudaStream_t stream) {
  throw NotImplemented("odd_even_merge", kHere);
}
//! [odd_even_merge_exercise]

}  // namespace course::lesson11
