// Lesson 05's trials (reduction_bench.hpp): fresh inputs from each launch's seed, the expected
// result from CUB (the ladder) or from the given global version (the row reductions), and the
// launcher under test on the stream the harness hands it.
#include <algorithm>
#include <cmath>
#include <cub/device/device_reduce.cuh>
#include <string>
#include <type_traits>

#include "course/data.hpp"
#include "course/error.hpp"
#include "reduction_bench.hpp"

namespace course::lesson05 {

namespace {

// CUB's DeviceReduce for @p op: the trusted reference of the ladder. With @p scratch null it only
// asks how much scratch memory it needs.
template <class T>
void cub_reduce(Op op, void* scratch, std::size_t& scratch_bytes, const T* d_in, T* d_out,
                std::size_t n, cudaStream_t stream) {
  switch (op) {
    case Op::Sum:
      CUDA_CHECK(cub::DeviceReduce::Sum(scratch, scratch_bytes, d_in, d_out, n, stream));
      return;
    case Op::Max:
      CUDA_CHECK(cub::DeviceReduce::Max(scratch, scratch_bytes, d_in, d_out, n, stream));
      return;
    case Op::Min:
      CUDA_CHECK(cub::DeviceReduce::Min(scratch, scratch_bytes, d_in, d_out, n, stream));
      return;
  }
  throw std::invalid_argument("cub_reduce: unknown op");
}

}  // namespace

template <class T>
ReductionBench<T>::ReductionBench(Op op, std::size_t n)
    : op_(op), n_(n), in_(n), out_(1), expected_(1) {
  require(n >= 1 && n <= kMaxCount, "ReductionBench: n must be in [1, kMaxCount]");
  cub_reduce<T>(op_, nullptr, scratch_bytes_, in_.data(), expected_.data(), n_, nullptr);
  scratch_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(scratch_bytes_, 1));
}

template <class T>
double ReductionBench<T>::sum_tolerance(std::size_t n) {
  const double depth = std::max(1.0, std::ceil(std::log2(static_cast<double>(n))));
  return 8.0 * depth * 0x1p-24 * static_cast<double>(n);
}

template <class T>
Trial ReductionBench<T>::trial(Variant variant, int block) {
  Trial trial;
  trial.rung = std::string(name_of(variant));
  trial.load = [this](std::uint64_t seed, cudaStream_t stream) {
    if constexpr (std::is_same_v<T, float>)
      fill_uniform_floats(in_.data(), n_, seed, -1.0f, 1.0f, stream);
    else
      fill_uniform_ints(in_.data(), n_, seed, -31, 31, stream);
  };
  trial.reference = [this](cudaStream_t stream) {
    cub_reduce<T>(op_, scratch_.data(), scratch_bytes_, in_.data(), expected_.data(), n_, stream);
  };
  trial.launch = [this, variant, block](cudaStream_t stream) {
    reduce(variant, op_, in_.data(), out_.data(), n_, stream, block);
  };
  OutputCheck check{OutputCheck::Kind::Bytes, {}};
  if (std::is_same_v<T, float> && op_ == Op::Sum)
    check = {OutputCheck::Kind::Float32, {sum_tolerance(n_), 0.0}};
  trial.outputs = {{"result", out_.data(), sizeof(T), expected_.data(), check}};
  // The input is declared const: after every launch it must still hold what load() wrote.
  trial.inputs = {{"in", in_.data(), in_.bytes()}};
  return trial;
}

template class ReductionBench<int>;
template class ReductionBench<float>;

RowBench::RowBench(RowOp op, int rows, int cols)
    : op_(op),
      rows_(rows),
      cols_(cols),
      a_(static_cast<std::size_t>(rows) * cols),
      b_(op == RowOp::DotProduct ? static_cast<std::size_t>(rows) * cols : 0),
      out_(row_output_size(op, rows, cols)),
      expected_(row_output_size(op, rows, cols)) {
  require(rows >= 1 && cols >= 1 && rows <= kMaxRowExtent && cols <= kMaxRowExtent,
          "RowBench: rows and cols must be in [1, kMaxRowExtent]");
}

double RowBench::tolerance(RowOp op, int rows, int cols) {
  const double d = op == RowOp::ColumnMean ? rows : cols;
  const bool mean = op == RowOp::RowMean || op == RowOp::ColumnMean;
  return 2.0 * (d + 2.0) * 0x1p-24 * (mean ? 1.0 : d);
}

Trial RowBench::trial(RowVersion version) {
  Trial trial;
  trial.rung = "row_" + std::string(name_of(version)) + " " + std::string(name_of(op_));
  trial.load = [this](std::uint64_t seed, cudaStream_t stream) {
    fill_uniform_floats(a_.data(), a_.size(), seed, -1.0f, 1.0f, stream);
    fill_uniform_floats(b_.data(), b_.size(), hash64(seed, 1), -1.0f, 1.0f, stream);
  };
  trial.reference = [this](cudaStream_t stream) {
    row_reduce(RowVersion::Global, op_, a_.data(), b_.data(), expected_.data(), rows_, cols_,
               stream);
  };
  trial.launch = [this, version](cudaStream_t stream) {
    row_reduce(version, op_, a_.data(), b_.data(), out_.data(), rows_, cols_, stream);
  };
  const bool exact = op_ == RowOp::RowMax || op_ == RowOp::RowMin;
  const OutputCheck check =
      exact ? OutputCheck{OutputCheck::Kind::Bytes, {}}
            : OutputCheck{OutputCheck::Kind::Float32, {tolerance(op_, rows_, cols_), 0.0}};
  trial.outputs = {{"out", out_.data(), out_.bytes(), expected_.data(), check}};
  // A (and B, which only DotProduct reads) are declared const: after every launch they must
  // still hold what load() wrote.
  trial.inputs = {{"A", a_.data(), a_.bytes()}};
  if (op_ == RowOp::DotProduct)
    trial.inputs.push_back({"B", b_.data(), b_.bytes()});
  return trial;
}

}  // namespace course::lesson05
