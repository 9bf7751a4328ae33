// Lesson 11's demo: the ladder at 2^24 and 2^20 keys (or --size), as tables of time, Mkeys/s,
// speedup over thrust and share of CUB's radix sort; --pairs sorts key-value pairs, --type float
// float keys; --sweep size and --sweep block reproduce seed 004's scalability study of the
// networks (array length with batches, threads per block). See README.md.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "course/buffer.hpp"
#include "course/data.hpp"
#include "course/demo.hpp"
#include "course/error.hpp"
#include "sorting.cuh"
#include "sorting_cpu.hpp"

namespace {

using namespace course;
using namespace course::lesson11;

// This lesson's own options.
struct SortOptions {
  bool pairs = false;         ///< --pairs: sort key-value pairs
  std::string type = "uint";  ///< --type: uint or float keys
  std::string sweep;          ///< --sweep: empty, size or block
};

std::string power_text(std::size_t n) {
  for (int p = 0; p < 40; ++p)
    if (n == (std::size_t{1} << p))
      return "2^" + std::to_string(p);
  return std::to_string(n);
}

// The keys (and values) of one table on the device, a fresh copy per timed run.
struct Problem {
  std::size_t n;
  bool floats;
  bool pairs;
  std::vector<std::uint32_t> keys;      // as bit patterns
  std::vector<std::uint32_t> expected;  // sorted, as bit patterns
  DeviceBuffer<std::uint32_t> source, work, values_source, values;
  Workspace workspace;

  Problem(std::size_t count, bool use_floats, bool use_pairs)
      : n(count), floats(use_floats), pairs(use_pairs) {
    const std::uint64_t seed = base_seed();
    if (floats) {
      const auto f = uniform_floats(n, seed, -1.0e3f, 1.0e3f);
      keys.resize(n);
      std::memcpy(keys.data(), f.data(), n * sizeof(float));
      expected = sort_reference(std::span<const float>(f)).keys;
    } else {
      keys = uniform_keys(n, seed);
      expected = keys;
      std::sort(expected.begin(), expected.end());
    }
    source = DeviceBuffer<std::uint32_t>{std::span<const std::uint32_t>(keys)};
    work = DeviceBuffer<std::uint32_t>(n);
    if (pairs) {
      std::vector<std::uint32_t> index(n);
      for (std::size_t i = 0; i < n; ++i)
        index[i] = static_cast<std::uint32_t>(i);
      values_source = DeviceBuffer<std::uint32_t>{std::span<const std::uint32_t>(index)};
      values = DeviceBuffer<std::uint32_t>(n);
    }
  }

  // Copies the input into place, then sorts it with @p sort (which gets keys and values).
  void fresh(cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(work.data(), source.data(), source.bytes(), cudaMemcpyDeviceToDevice,
                               stream));
    if (pairs)
      CUDA_CHECK(cudaMemcpyAsync(values.data(), values_source.data(), values_source.bytes(),
                                 cudaMemcpyDeviceToDevice, stream));
  }

  void sort(Variant variant, cudaStream_t stream) {
    std::uint32_t* v = pairs ? values.data() : nullptr;
    if (floats) {
      auto* f = reinterpret_cast<float*>(work.data());
      if (pairs)
        sort_pairs(variant, f, v, n, workspace, stream);
      else
        sort_keys(variant, f, n, workspace, stream);
    } else {
      sort_batches(variant, work.data(), v, 1, n, 0, workspace, stream);
    }
  }

  // Runs @p launch once on a fresh copy, checks the keys (every array of the batch sorted, when
  // @p length < n) and, if it ran, times it.
  LadderRow run(const std::string& rung, std::string_view kind, std::size_t length,
                const std::function<void(cudaStream_t)>& launch, int repeat) {
    LadderRow row;
    row.rung = rung;
    row.kind = kind;
    auto timed = [&](cudaStream_t stream) {
      fresh(stream);
      launch(stream);
    };
    row.status = try_rung([&] {
      timed(nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
    });
    if (row.status != "ok")
      return row;
    const auto got = work.to_host();
    bool right = true;
    if (length == n) {
      right = got == expected;
    } else {  // batches: each array sorted, and the same keys as its input
      for (std::size_t first = 0; first + length <= n && right; first += length) {
        std::vector<std::uint32_t> want(keys.begin() + first, keys.begin() + first + length);
        std::sort(want.begin(), want.end());
        right = std::equal(want.begin(), want.end(), got.begin() + first);
      }
    }
    if (!right)
      row.status = "WRONG";
    row.timing = time_on_gpu(timed, {.warmup = 2, .repeats = repeat});
    row.metric = static_cast<double>(n) / (row.timing.median_ms * 1e3);  // Mkeys/s
    return row;
  }
};

// CUB's radix sort on n uint32 keys, in Mkeys/s so that shares come out right.
ceilings::Ceiling cub_ceiling(std::size_t n) {
  ceilings::Ceiling ceiling = ceilings::cub_radix_sort_keys(n);
  ceiling.value *= 1000.0;
  ceiling.unit = "Mkeys/s";
  return ceiling;
}

std::string what(const SortOptions& extra) {
  return std::string(extra.pairs ? "key-value pairs, " : "") +
         (extra.type == "float" ? "uniform float keys" : "uniform uint32 keys");
}

LadderReport ladder(std::size_t n, const DemoOptions& options, const SortOptions& extra) {
  Problem problem(n, extra.type == "float", extra.pairs);
  LadderReport report;
  report.title = "Lesson 11, sorting " + power_text(n) + " " + what(extra);
  report.metric_unit = "Mkeys/s";
  report.baseline = "thrust";
  report.ceiling = cub_ceiling(n);
  report.extra_columns = {"threads/block"};
  for (const auto& info : kVariants) {
    if (!options.wants(std::string(info.name)))
      continue;
    const int threads =
        info.network ? (options.block != 0 ? options.block : kDefaultNetworkThreads) : 0;
    auto row = problem.run(
        std::string(info.name), info.kind, n,
        [&, v = info.variant](cudaStream_t s) {
          if (info.network && !problem.floats)
            sort_batches(v, problem.work.data(), problem.pairs ? problem.values.data() : nullptr, 1,
                         n, threads, problem.workspace, s);
          else
            problem.sort(v, s);
        },
        options.repeat);
    row.extra = {threads != 0 ? std::to_string(threads) : "-"};
    report.rows.push_back(row);
  }
  report.notes = {
      "Every timed run sorts a fresh copy of the same keys (the copy is timed too, "
      "as in the ceiling: CUB DeviceRadixSort::SortKeys on uint32 keys of the same "
      "count, measured in this run)."};
  return report;
}

// Seed 004's study: the networks on batches of arrays (total keys fixed), or at each threads
// per block. Thrust sorting all keys as one array is the reference row.
LadderReport sweep(std::size_t total, const DemoOptions& options, const SortOptions& extra) {
  const bool by_size = extra.sweep == "size";
  SortOptions uint_keys = extra;
  uint_keys.type = "uint";  // batches are uint32 keys
  Problem problem(total, false, extra.pairs);
  LadderReport report;
  report.title = by_size ? "Lesson 11, seed 004's study: " + power_text(total) + " " +
                               what(uint_keys) + " in arrays of each length"
                         : "Lesson 11, seed 004's study: " + power_text(total) + " " +
                               what(uint_keys) + ", the networks at each threads per block";
  report.metric_unit = "Mkeys/s";
  report.baseline = "thrust";
  report.ceiling = cub_ceiling(total);
  report.extra_columns = {"array length", "arrays", "threads/block"};
  auto thrust_row = problem.run(
      "thrust", "given", total, [&](cudaStream_t s) { problem.sort(Variant::Thrust, s); },
      options.repeat);
  thrust_row.extra = {std::to_string(total), "1", "-"};
  report.rows.push_back(thrust_row);

  std::vector<std::size_t> lengths;
  std::vector<int> threads_list;
  if (by_size) {
    for (const int p : {6, 9, 10, 12, 14, 16, 18, 20, 22, 24})
      if ((std::size_t{1} << p) <= total)
        lengths.push_back(std::size_t{1} << p);
    threads_list = {options.block != 0 ? options.block : kDefaultNetworkThreads};
  } else {
    lengths = {total};
    threads_list.assign(kNetworkThreads.begin(), kNetworkThreads.end());
  }
  for (const auto& info : kVariants) {
    if (!info.network || !options.wants(std::string(info.name)))
      continue;
    for (const std::size_t length : lengths) {
      const std::size_t batch = total / length;
      for (const int threads : threads_list) {
        auto row = problem.run(
            std::string(info.name), info.kind, length,
            [&, v = info.variant](cudaStream_t s) {
              sort_batches(v, problem.work.data(), problem.pairs ? problem.values.data() : nullptr,
                           batch, length, threads, problem.workspace, s);
            },
            options.repeat);
        row.metric = static_cast<double>(batch * length) / (row.timing.median_ms * 1e3);
        row.extra = {std::to_string(length), std::to_string(batch), std::to_string(threads)};
        report.rows.push_back(row);
      }
    }
  }
  report.notes = {
      "Mkeys/s counts all keys of the batch; the networks sort each array on its "
      "own, thrust (the first row) sorts all keys as one array."};
  return report;
}

std::optional<std::size_t> parse_size(const std::string& text) {
  const auto n = parse_count(text);
  if (!n || *n < 1 || *n > kMaxKeys)
    return std::nullopt;
  return static_cast<std::size_t>(*n);
}

}  // namespace

int main(int argc, char** argv) {
  DemoSpec spec;
  spec.lesson = "11_sorting";
  spec.description = "Lesson 11: sorting networks and radix sort, against CUB's radix sort.";
  spec.size_help =
      "keys to sort, e.g. 1000, 64k or 2^20 (default: tables at 2^24 and 2^20; "
      "--sweep: 2^24 for size, 2^20 for block)";
  for (const auto& info : kVariants)
    spec.variant_names.emplace_back(info.name);
  SortOptions extra;
  spec.add_options = [&](CLI::App& app) {
    app.add_flag("--pairs", extra.pairs, "sort key-value pairs (values: uint32)");
    app.add_option("--type", extra.type, "key type: uint (uint32) or float")
        ->check(CLI::IsMember({"uint", "float"}));
    app.add_option("--sweep", extra.sweep,
                   "size: the networks on batches of arrays of 64 ... 2^24 keys; block: at each "
                   "threads per block (64 ... 1024)")
        ->check(CLI::IsMember({"size", "block"}));
  };
  spec.validate = [](const DemoOptions& options) -> std::optional<std::string> {
    if (!options.size.empty() && !parse_size(options.size))
      return "--size takes a count of keys from 1 to 2^30, e.g. 1000, 64k or 2^24";
    if (options.block != 0 && std::find(kNetworkThreads.begin(), kNetworkThreads.end(),
                                        options.block) == kNetworkThreads.end())
      return "--block: the networks' threads per block, one of 64, 128, 256, 512, 1024 "
             "(the radix rungs' blocks are fixed)";
    return std::nullopt;
  };
  spec.run = [&](const DemoOptions& options) {
    std::vector<LadderReport> reports;
    if (!extra.sweep.empty()) {
      const std::size_t fallback = std::size_t{1} << (extra.sweep == "size" ? 24 : 20);
      reports.push_back(
          sweep(options.size.empty() ? fallback : *parse_size(options.size), options, extra));
    } else if (!options.size.empty()) {
      reports.push_back(ladder(*parse_size(options.size), options, extra));
    } else {
      reports.push_back(ladder(std::size_t{1} << 24, options, extra));
      reports.push_back(ladder(std::size_t{1} << 20, options, extra));
    }
    return reports;
  };
  return run_demo(argc, argv, spec);
}
