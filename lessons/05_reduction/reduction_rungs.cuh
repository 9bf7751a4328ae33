/// @file
/// @brief Lesson 05's rungs, one launcher each, called by reduce() and row_reduce() after they
/// have checked the arguments. Host declarations only (included by the .cpp dispatcher too); the
/// device helpers the kernels share are in reduction_device.cuh.
///
/// Tree rungs (1 to 5) are written as one *pass*: each block reduces its part of the input to one
/// value. The given reduce_in_passes() runs a pass over the input, then over the block results,
/// until one value is left. The single-pass rungs (6 to 8) finish the reduction themselves.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "reduction.cuh"

namespace course::lesson05 {

/// One pass of a tree rung: reduces in[0, n) with @p op to out[0, blocks), one value per block of
/// @p block threads, where blocks = ceil(n / (block * elements per thread)).
template <class T>
using PassLauncher = void (*)(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                              cudaStream_t stream);

/// Given: runs @p pass over d_in, then over its block results, and so on, until one block is
/// left, whose result goes to *d_out. @p per_thread is how many elements each thread of the pass
/// starts with (1 for rungs 1 to 3, 2 for rungs 4 and 5). The block results live in a workspace
/// this lesson keeps between calls.
template <class T>
void reduce_in_passes(PassLauncher<T> pass, int per_thread, Op op, const T* d_in, T* d_out,
                      std::size_t n, int block, cudaStream_t stream);

/// Given: writes the identity of @p op to *d_out with a one-thread kernel (stream-ordered).
template <class T>
void fill_identity(Op op, T* d_out, cudaStream_t stream);

/// Given: @p count elements of device scratch memory, kept by the lesson between calls and
/// grown when a call needs more. Calls on different streams at once would share it: the lesson's
/// launchers are meant for one stream at a time.
template <class T>
T* workspace(std::size_t count);

/// Given: one unsigned counter in device memory, zero before every call of a launcher. A kernel
/// that counts on it (each block adds 1 as it finishes; the block that sees the count reach
/// gridDim.x - 1 knows it is the last) must set it back to 0 before it ends. Shared like
/// workspace().
unsigned* arrival_counter();

// The passes of the tree rungs (n > 0, block a power of two in [64, 1024]).
template <class T>
void pass_interleaved_divergent(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                                cudaStream_t stream);
template <class T>
void pass_interleaved_strided(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                              cudaStream_t stream);
template <class T>
void pass_sequential(Op op, const T* d_in, T* d_out, std::size_t n, int block, cudaStream_t stream);
template <class T>
void pass_first_add_on_load(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                            cudaStream_t stream);
template <class T>
void pass_unrolled_warp(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                        cudaStream_t stream);

// The single-pass rungs: the whole reduction of d_in[0, n) into *d_out (n > 0).
template <class T>
void run_coarsened_atomic(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                          cudaStream_t stream);
template <class T>
void run_warp_shuffle(Op op, const T* d_in, T* d_out, std::size_t n, int block,
                      cudaStream_t stream);
template <class T>
void run_vectorized(Op op, const T* d_in, T* d_out, std::size_t n, cudaStream_t stream);

// The row reductions (rows, cols > 0, buffers checked).
void row_reduce_global(RowOp op, const float* d_a, const float* d_b, float* d_out, int rows,
                       int cols, cudaStream_t stream);
void row_reduce_shared(RowOp op, const float* d_a, const float* d_b, float* d_out, int rows,
                       int cols, cudaStream_t stream);
void row_reduce_shared_padded(RowOp op, const float* d_a, const float* d_b, float* d_out, int rows,
                              int cols, cudaStream_t stream);

}  // namespace course::lesson05
