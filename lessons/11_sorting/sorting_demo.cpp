// Lesson 11's demo: the ladder at 2^24 and 2^20 keys (or --size), as tables of time, Mkeys/s,
// speedup over thrust and share of CUB's radix sort; --pairs sorts key-value pairs, --type float
// float keys; --sweep size and --sweep block reproduce the data-parallelism report's scalability
// study of the networks (array length with batches, threads per block). See README.md.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <bit>
#include <optional>
#include <string>
#include <vector>

#include "course/bench.hpp"
#include "course/demo.hpp"
#include "sorting.cuh"
#include "sorting_bench.hpp"

namespace {

using namespace course;
using namespace course::lesson11;

// This lesson's own options.
struct SortOptions {
  bool pairs = false;         ///< --pairs: sort key-value pairs
  std::string type = "uint";  ///< --type: uint or float keys
  std::string sweep;          ///< --sweep: empty, size or block
};

constexpr const char* kRooflineNote =
    "Roofline (key/B, of roof): keys sorted per byte moved through global memory: the timed copy "
    "into place, then every pass of the rung's algorithm reading and writing the keys (and "
    "values) it moves: radix 8 passes, radix_wide 4 and one read for the digit totals, the "
    "networks one per launch (bitonic two global steps a launch). Keys only: no compute roof. "
    "thrust is not counted (the library's passes). Keys that fit in L2 (2^20) may make most passes "
    "there, not in DRAM.";

std::string power_text(std::size_t n) {
  for (int p = 0; p < 40; ++p)
    if (n == (std::size_t{1} << p))
      return "2^" + std::to_string(p);
  return std::to_string(n);
}

// Passes over the keys that a network's launches make for arrays of @p length keys at @p threads
// threads per block (README.md, "Tiles and launches"), each reading and writing the keys its
// comparators join, counted in units of all the keys: one tile launch for every merge up to the
// tile of 4 x threads keys; then for each larger merge, bitonic makes one pass per two global
// steps (stride >= tile; one for a last single step) and one tile launch to finish the merge,
// while odd-even merge makes a launch of every step, each step after the first joining only
// 1 - 2 stride / size of the keys (its other comparators idle). Pads are never loaded, so the
// count is exact for power-of-two lengths and an upper bound for the others.
double network_passes(Variant variant, std::size_t length, int threads) {
  const double padded = static_cast<double>(std::bit_ceil(length));
  const double tile = 4.0 * (threads != 0 ? threads : kDefaultNetworkThreads);
  if (padded < 2)
    return 0.0;
  double passes = 1.0;  // the tile launch of every merge up to the tile
  for (double size = 2 * tile; size <= padded; size *= 2) {
    if (variant == Variant::Bitonic) {
      double stride = size / 2;
      while (stride >= tile) {
        stride /= stride / 2 >= tile ? 4 : 2;  // two steps in one pass where two remain
        passes += 1;
      }
      passes += 1;  // the strides below the tile: one tile launch
    } else {
      passes += 1;  // stride size / 2: every key
      for (double stride = size / 4; stride >= 1; stride /= 2)
        passes += 1 - 2 * stride / size;
    }
  }
  return passes;
}

// What one timed sort of @p shape with @p variant must move, as the roofline counts it (README.md,
// "Roofline"): the keys sorted (ops, in keys) and the bytes through global memory: the copy of the
// keys (and values) into place that the timing holds; the flip and unflip of float keys; and each
// pass of the rung's algorithm reading and writing every key (and value) it moves. radix: 8 passes
// of 4-bit digits, each reading the keys twice (histogram, scatter) and writing them once, and
// moving 16 counts per tile of 4096 keys four times (written, scanned in place, read); radix_wide:
// one read of the keys for all digit totals, then 4 passes of 8-bit digits that read and write
// the keys once each, and move 256 look-back words per tile of 6144 keys three times (the tile's
// count, its prefix, and a read by the tile after it). thrust is left out: the library chooses
// its own passes.
Work work_of(Variant variant, const SortShape& shape) {
  if (variant == Variant::Thrust)
    return {};
  constexpr double kKey = sizeof(std::uint32_t);
  const double moved = shape.pairs ? 2 * kKey : kKey;  // a key, and its value
  double per_key = 2 * moved;                          // the copy into place
  if (shape.floats)
    per_key += 2 * 2 * kKey;  // flip before the sort, unflip after it
  const auto counts = [&](double digits) { return 4 * kKey * digits / 4096; };
  switch (variant) {
    case Variant::Bitonic:
    case Variant::OddEvenMerge:
      per_key += 2 * moved * network_passes(variant, shape.length, shape.threads);
      break;
    case Variant::Radix:
      per_key += 8 * (kKey + 2 * moved + counts(16));
      break;
    case Variant::RadixWide:
      per_key += kKey + 4 * (2 * moved + 3 * kKey * 256 / 6144);
      break;
    case Variant::Thrust:
      break;
  }
  const auto keys = static_cast<double>(shape.count());
  return {keys, keys * per_key};
}

// Times @p variant on @p shape with course::measure(), as the speed tests do (fresh keys before
// every sort, each timed sort checked against CUB's: sorting_bench.hpp), and makes its row: the
// median of the timed sorts, or "WRONG" with the reason as the note when the timing does not
// stand.
LadderRow sort_row(Variant variant, const SortShape& shape, const DemoOptions& options) {
  const auto& info = info_of(variant);
  return measured_row(
      info.name, info.kind,
      [&] {
        SortBench bench(shape);
        return measure(bench.trial(variant), options.measuring());
      },
      [&](LadderRow& row) {
        if (!row.ran())
          return;
        row.work = work_of(variant, shape);
        row.metric = static_cast<double>(shape.count()) / (row.timing.median_ms * 1e3);  // Mkeys/s
      });
}

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
  const bool floats = extra.type == "float";
  LadderReport report("Lesson 11, sorting " + power_text(n) + " " + what(extra), "Mkeys/s",
                      "thrust", cub_ceiling(n));
  report.ops_unit = "key";
  report.extra_columns = {"threads/block"};
  for (const auto& info : kVariants) {
    if (!options.wants(info.name))
      continue;
    // Float keys are sorted as one array at the networks' default threads per block.
    const int threads = info.network && !floats ? options.block : 0;
    auto row = sort_row(info.variant, {1, n, floats, extra.pairs, threads}, options);
    row.extra = {info.network ? std::to_string(threads != 0 ? threads : kDefaultNetworkThreads)
                              : "-"};
    report.rows.push_back(row);
  }
  report.notes = {
      "Every timed run sorts fresh keys, copied into place inside the timing as in the "
      "ceiling (CUB DeviceRadixSort::SortKeys on uint32 keys of the same count, measured in "
      "this run), and is checked against CUB's sort of the same keys.",
      kRooflineNote};
  return report;
}

// The data-parallelism report's study: the networks on batches of arrays (total keys fixed), or at
// each threads per block. Thrust sorting all keys as one array is the reference row.
LadderReport sweep(std::size_t total, const DemoOptions& options, const SortOptions& extra) {
  const bool by_size = extra.sweep == "size";
  SortOptions uint_keys = extra;
  uint_keys.type = "uint";  // batches are uint32 keys
  LadderReport report(
      "Lesson 11, the data-parallelism report's study: " + power_text(total) + " " +
          what(uint_keys) +
          (by_size ? " in arrays of each length" : ", the networks at each threads per block"),
      "Mkeys/s", "thrust", cub_ceiling(total));
  report.ops_unit = "key";
  report.extra_columns = {"array length", "arrays", "threads/block"};
  auto thrust_row = sort_row(Variant::Thrust, {1, total, false, extra.pairs, 0}, options);
  thrust_row.extra = {std::to_string(total), "1", "-"};
  report.rows.push_back(thrust_row);

  std::vector<std::size_t> lengths;
  std::vector<int> threads_list;
  if (by_size) {
    for (const int p : {6, 9, 10, 12, 14, 16, 18, 20, 22, 24})
      if ((std::size_t{1} << p) <= total)
        lengths.push_back(std::size_t{1} << p);
    threads_list = {options.block_or(kDefaultNetworkThreads)};
  } else {
    lengths = {total};
    threads_list.assign(kNetworkThreads.begin(), kNetworkThreads.end());
  }
  for (const auto& info : kVariants) {
    if (!info.network || !options.wants(info.name))
      continue;
    for (const std::size_t length : lengths) {
      const std::size_t batch = total / length;
      for (const int threads : threads_list) {
        auto row = sort_row(info.variant, {batch, length, false, extra.pairs, threads}, options);
        row.extra = {std::to_string(length), std::to_string(batch), std::to_string(threads)};
        report.rows.push_back(row);
      }
    }
  }
  report.notes = {
      "Mkeys/s counts all keys of the batch; the networks sort each array on its "
      "own, thrust (the first row) sorts all keys as one array. Every timed run is checked "
      "against CUB's sort of the same keys (segmented for batches).",
      kRooflineNote};
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
  DemoSpec spec("11_sorting",
                "Lesson 11: sorting networks and radix sort, against CUB's radix sort.",
                "keys to sort, e.g. 1000, 64k or 2^20 (default: tables at 2^24 and 2^20; "
                "--sweep: 2^24 for size, 2^20 for block)",
                kVariants);
  spec.block_help =
      "the networks' threads, one of 64, 128, 256, 512, 1024 (default: each in turn; " +
      std::to_string(kDefaultNetworkThreads) + " in a sweep); the radix rungs' are fixed";
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
      return "--size takes a count of keys from 1 to 2^24, e.g. 1000, 64k or 2^20";
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
