/// @file
/// @brief What every lesson's demo shares: the common options, running a rung safely, and the
/// ladder table as text, CSV or JSON.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "course/bench.hpp"
#include "course/ceilings.hpp"
#include "course/timer.hpp"
#include "course/trace.hpp"

namespace CLI {
class App;
}

namespace course {

/// What one launch of a rung must do, counted as the lesson's text counts it: where the rung
/// stands on the roofline. Counts of what the algorithm needs, never of what the cache did (a
/// profiler measures that: the lesson's profile target).
struct Work {
  /// Operations per launch, in LadderReport::ops_unit: FP32 FLOP (a multiply-add is 2) for the
  /// arithmetic lessons, the lesson's own unit (elements moved, keys sorted) for the others.
  double ops = 0;
  /// Bytes that must move between DRAM and the SMs per launch: each input read once, each output
  /// written once, plus what the rung's algorithm adds on purpose (e.g. a sort's passes).
  double bytes = 0;
  /// True when the lesson counted this rung's work.
  [[nodiscard]] bool counted() const noexcept { return ops > 0 && bytes > 0; }
  /// Operational intensity: ops per byte.
  [[nodiscard]] double intensity() const noexcept { return bytes > 0 ? ops / bytes : 0.0; }
};

/// The roofs a table's rungs are placed under, measured in this run (see roofline()).
struct Roofline {
  ceilings::Ceiling memory;  ///< the device copy, GB/s
  /// The FP32 FMA peak, GFLOP/s; empty (value 0) when the table does not count FLOP.
  ceilings::Ceiling compute;
  /// What a rung of intensity @p ops_per_byte can reach, in G ops/s: the lower roof.
  [[nodiscard]] double attainable(double ops_per_byte) const noexcept;
  /// The intensity where the roofs meet (ops per byte); 0 without a compute roof.
  [[nodiscard]] double ridge() const noexcept;
};

/// One rung's line in a ladder table.
struct LadderRow {
  std::string rung;                ///< the Variant's name
  std::string kind;                ///< given, exercise or stretch
  std::string status;              ///< "ok", "WRONG", "not implemented", or an error's first words
  Timing timing;                   ///< median/min/max of the timed runs
  double metric = 0.0;             ///< in LadderReport::metric_unit (GB/s, GFLOP/s, ...)
  double speedup = 0.0;            ///< over the report's baseline rung
  double share = 0.0;              ///< of the report's ceiling
  std::string note;                ///< extra, e.g. threads per block
  std::vector<std::string> extra;  ///< values of the report's extra columns, in their order
  Work work;                       ///< what one launch must do (empty: not on the roofline)
  /// True when the rung ran to the end (right or wrong), so its timing means something.
  [[nodiscard]] bool ran() const { return status == "ok" || status == "WRONG"; }
};

/// A ladder table: the rungs of one lesson at one size, against one ceiling.
struct LadderReport {
  LadderReport() = default;
  /// A table titled @p title: its rungs' metric in @p metric_unit, their speedups over the rung
  /// @p baseline, their shares of @p ceiling (measured in this run).
  LadderReport(std::string title, std::string metric_unit, std::string baseline,
               ceilings::Ceiling ceiling)
      : title(std::move(title)),
        metric_unit(std::move(metric_unit)),
        baseline(std::move(baseline)),
        ceiling(std::move(ceiling)) {}
  std::string title;                       ///< e.g. "transpose, 8192 x 8192 floats"
  std::string metric_unit;                 ///< e.g. "GB/s"
  std::string baseline;                    ///< the rung speedups are relative to
  ceilings::Ceiling ceiling;               ///< the ceiling the shares are of, measured in this run
  std::vector<LadderRow> rows;             ///< one per rung, in teaching order
  std::vector<std::string> notes;          ///< printed under the table
  std::vector<std::string> extra_columns;  ///< headers of lesson-specific columns (e.g. "H2D ms")
  /// The unit of the rows' Work::ops: "FLOP" (FP32) puts the table under the FP32 FMA peak as
  /// well as the memory roof; any other unit (e.g. "element", "key") under the memory roof only.
  std::string ops_unit = "FLOP";
  /// The compute roof when the rungs' arithmetic is not the FP32 FMA's (e.g. the tensor cores'),
  /// measured in this run; empty: the FP32 FMA peak, for a table that counts FLOP.
  std::optional<ceilings::Ceiling> compute_roof;
  /// Filled by run_demo() when a row's work is counted; empty otherwise.
  std::optional<Roofline> roofline;
  /// What ran when, for a table that shows a pipeline (course::trace_gpu()): printed as a chart
  /// under the table and written to the JSON, where the chart tool draws it.
  std::optional<Trace> timeline;
  /// Fills each row's speedup and share from its timing and metric.
  void compute_ratios();
  /// True when some row that ran has its work counted.
  [[nodiscard]] bool has_work() const;
};

/// The roofline for @p report, measured in this run: the device copy, and the report's
/// compute_roof, or else the FP32 FMA peak when the report counts FLOP. run_demo() attaches it to
/// every report with counted work.
[[nodiscard]] Roofline roofline(const LadderReport& report);

/// A row's achieved rate in G ops/s (ops / median time); 0 when it did not run or is not counted.
[[nodiscard]] double achieved(const LadderRow& row) noexcept;

/// Prints @p report as an aligned text table.
void print_text(const LadderReport& report, std::ostream& out);
/// Prints @p report as CSV (one header line, one line per rung).
void print_csv(const LadderReport& report, std::ostream& out);
/// The reports as one JSON document (for the docs and slides).
[[nodiscard]] std::string to_json(const std::vector<LadderReport>& reports,
                                  const std::string& lesson);

/// The options every demo accepts.
struct DemoOptions {
  std::string size;                   ///< --size, as typed (the lesson parses it)
  std::vector<std::string> variants;  ///< --variant (repeatable); empty: all
  int block = 0;                      ///< --block, threads per block (0: the lesson's default)
  int repeat = 20;                    ///< --repeat, timed runs per rung
  bool csv = false;                   ///< --csv
  bool json = false;                  ///< --json
  /// True when @p variant should run: no --variant was given, or it was named.
  [[nodiscard]] bool wants(std::string_view variant) const;
  /// True when some entry of @p rungs (entries with a `name`: a lesson's kVariants, or the part
  /// of it that one table shows) should run: a table none of whose rungs runs is not made.
  template <class Rungs>
  [[nodiscard]] bool wants_any(Rungs&& rungs) const {
    for (const auto& info : rungs)
      if (wants(info.name))
        return true;
    return false;
  }
  /// How the demo measures a rung with course::measure(): --repeat timed runs, on inputs seeded
  /// from course::base_seed(), or from its stream @p stream (course::derive_seed()) when given.
  [[nodiscard]] MeasureOptions measuring(std::optional<std::uint64_t> stream = {}) const;
  /// The --size text, or @p fallback (the lesson's default size) when --size was not given.
  [[nodiscard]] std::string size_or(std::string_view fallback) const;
  /// The --block threads per block, or @p fallback (the lesson's default) when --block was not
  /// given.
  [[nodiscard]] int block_or(int fallback) const noexcept;
};

/// The threads per block that --block accepts, in a lesson that lets the user choose them:
/// whole warps (a multiple of 32) or a power of two, within [min, max]. One rule gives both the
/// help (DemoSpec::block_help) and the check (DemoSpec::validate), in the same words.
struct BlockRule {
  bool power_of_two = false;  ///< true: a power of two; false: a multiple of 32
  int min = 32;               ///< the fewest threads accepted
  int max = 1024;             ///< the most threads accepted
  /// The rule in words: "a multiple of 32 in [32, 1024]" or "a power of two in [64, 1024]".
  [[nodiscard]] std::string text() const;
  /// The help of --block: text() and the lesson's default @p fallback, e.g. "a multiple of 32 in
  /// [32, 1024], default 256".
  [[nodiscard]] std::string help(int fallback) const;
  /// What is wrong with --block @p block: "--block must be " and text(); nothing when --block was
  /// not given (0) or follows the rule.
  [[nodiscard]] std::optional<std::string> problem(int block) const;
};

/// A lesson's demo, described for run_demo().
struct DemoSpec {
  DemoSpec() = default;
  /// The demo of @p lesson, described in --help by @p description and @p size_help, whose
  /// --variant takes the names of @p rungs (a lesson's kVariants: entries with a `name`).
  template <class Rungs>
  DemoSpec(std::string lesson, std::string description, std::string size_help, const Rungs& rungs)
      : lesson(std::move(lesson)),
        description(std::move(description)),
        size_help(std::move(size_help)) {
    add_variants(rungs);
  }
  /// Lets --variant take the names of @p rungs as well (a lesson's second table of rungs).
  template <class Rungs>
  void add_variants(const Rungs& rungs) {
    for (const auto& info : rungs)
      variant_names.emplace_back(info.name);
  }

  std::string lesson;                      ///< e.g. "02_transpose"
  std::string description;                 ///< one line for --help
  std::string size_help;                   ///< what --size takes, e.g. "ROWSxCOLS (8192x8192)"
  std::vector<std::string> variant_names;  ///< accepted by --variant
  /// True when the lesson lets the user choose the threads per block: --block is offered.
  /// False for a lesson whose block shapes are fixed: --block is neither shown in the usage
  /// nor accepted (it is refused as an unknown option, with the usage).
  bool takes_block = true;
  /// What --block accepts, for its help (e.g. "a power of two in [64, 1024], default 256"): the
  /// same rule as validate() applies. 0 is never accepted (it stands for "not given").
  std::string block_help;
  /// Adds lesson-specific options (may be empty).
  std::function<void(CLI::App&)> add_options;
  /// Checks the options; returns an error message, or nothing when they are fine. Runs before
  /// any GPU work, so bad options never touch the device.
  std::function<std::optional<std::string>(const DemoOptions&)> validate;
  /// Runs the ladder and returns its tables.
  std::function<std::vector<LadderReport>(const DemoOptions&)> run;
};

/// Parses the command line, validates it, checks for a GPU, runs the demo and prints its tables.
/// The usage and the messages name the program as it was called (the basename of argv[0], e.g.
/// lesson02_demo_student). Returns the process exit code: 0, 2 for bad options (after printing
/// the usage), 1 for a failure, 77 when no GPU is usable.
int run_demo(int argc, char** argv, const DemoSpec& spec);

/// The name a demo goes by in its usage: the basename of @p argv0, or "lesson<NN>_demo" (from
/// @p lesson, e.g. "02_transpose") when argv0 is null or empty.
[[nodiscard]] std::string demo_program_name(const char* argv0, const std::string& lesson);

/// Runs @p launch once, classifying the outcome: "ok" (no exception), "not implemented",
/// "skipped" (course::Unsupported: this GPU or build cannot run the rung), or the first words of
/// the error.
std::string try_rung(const std::function<void()>& launch);

/// A rung's row, measured. @p measure_rung runs under try_rung(), and the row gets the rung's
/// name and kind, its status ("ok"; "WRONG" when the Measurement is not sound, with its failure
/// as the note; or why it did not run: "not implemented", "skipped", an error's first words) and,
/// when it ran, its timing. Then @p fill, if given, adds what the lesson counts (metric, work,
/// extra columns, a note) to the row, whether it ran or not: LadderRow::ran() says which. A rate
/// needs a time: a row whose median time is not positive keeps a metric of 0.
[[nodiscard]] LadderRow measured_row(std::string_view rung, std::string_view kind,
                                     const std::function<Measurement()>& measure_rung,
                                     const std::function<void(LadderRow&)>& fill = {});

/// The measure_rung of add_rungs() for a lesson whose bench describes each rung's timed launch
/// from its variant alone: course::measure() of @p bench.trial(entry.variant), as @p options say
/// (DemoOptions::measuring()). @p bench and @p options must outlive it.
template <class Bench>
[[nodiscard]] auto measure_trials(Bench& bench, const DemoOptions& options) {
  return [&bench, &options](const auto& info) {
    return measure(bench.trial(info.variant), options.measuring());
  };
}

/// Where add_rungs() writes the failure of a WRONG row (Measurement::failure).
enum class FailureNote {
  InRow,       ///< as the row's note
  UnderTable,  ///< as a note "WRONG: <failure>" under the table, the row's note left empty
};

/// Appends a ladder's rows to @p report: for each entry of @p rungs that --variant wants, in
/// order, its measured_row(), measured by @p measure_rung(entry) and filled by
/// @p fill(row, entry). @p rungs holds entries with a `name` and a `kind`: a lesson's kVariants,
/// or the part of it that one table shows. @p failures says where a WRONG row's failure goes.
template <class Rungs, class Measure, class Fill>
void add_rungs(LadderReport& report, const DemoOptions& options, Rungs&& rungs,
               const Measure& measure_rung, const Fill& fill,
               FailureNote failures = FailureNote::InRow) {
  for (const auto& info : rungs) {
    if (!options.wants(info.name))
      continue;
    auto fill_row = [&](LadderRow& row) {
      if (failures == FailureNote::UnderTable && row.status == "WRONG") {
        report.notes.push_back("WRONG: " + row.note);
        row.note.clear();
      }
      fill(row, info);
    };
    report.rows.push_back(measured_row(
        info.name, info.kind, [&] { return measure_rung(info); }, fill_row));
  }
}

/// The row of @p rung among @p rows, or null when there is none (--variant left it out).
[[nodiscard]] const LadderRow* find_row(std::span<const LadderRow> rows, std::string_view rung);

/// The rows of a sweep (a table of the rungs at several sizes), and its ceilings.
struct SweepRows {
  std::vector<LadderRow> rows;  ///< grouped by rung, each rung's sizes in order
  ceilings::Ceiling ceiling;    ///< the last size's ceiling
  std::string ceilings;         ///< each size's ceiling value, e.g. "256: 1234.5, 512: 2345.6"
};

/// A sweep's rows. At each of @p sizes, first its ceiling, @p ceiling_at(size), then its rows,
/// @p rows_at(size): one per rung, in the same order at every size. Each row that ran gets its
/// share of that size's ceiling and its speedup over the row of @p baseline at the same size (when
/// that ran too).
[[nodiscard]] SweepRows sweep_rows(
    std::span<const int> sizes, std::string_view baseline,
    const std::function<const ceilings::Ceiling&(int size)>& ceiling_at,
    const std::function<std::vector<LadderRow>(int size)>& rows_at);

/// A ceiling as a row of its own (kind "ceiling"), timed in this run: its time and value, with
/// @p work on the roofline, @p note and the values @p extra of the table's extra columns.
[[nodiscard]] LadderRow ceiling_row(const ceilings::Ceiling& ceiling, Work work, std::string note,
                                    std::vector<std::string> extra);

/// Parses a count such as "67108864", "2^26", "64M" or "16k"; nothing if it is not one.
[[nodiscard]] std::optional<std::uint64_t> parse_count(const std::string& text);
/// What is wrong with @p text as the count that @p option takes (parse_count()) in [1, @p max],
/// for DemoSpec::validate: "<option> takes a count in [1, 2^P]", and ", e.g. <examples>" when
/// @p examples are given; nothing when it is such a count.
/// @pre @p max is a power of two (e.g. 2^28)
[[nodiscard]] std::optional<std::string> count_problem(std::string_view option,
                                                       const std::string& text, std::uint64_t max,
                                                       std::string_view examples = {});
/// Parses "ROWSxCOLS" (or a single N for N x N); nothing if it is not one.
[[nodiscard]] std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_shape(
    const std::string& text);
/// Parses "ROWSxCOLS" (or N) as parse_shape() does, within a lesson's limits: each extent in
/// [1, @p max_extent], their product at most @p max_elements; nothing if it is not such a shape.
[[nodiscard]] std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_shape(
    const std::string& text, std::uint64_t max_extent, std::uint64_t max_elements);
/// Parses "AxBxC" (or a single N for N x N x N), each a count as parse_count() takes it;
/// nothing if it is not one. The lesson checks the extents against its own limits.
[[nodiscard]] std::optional<std::array<std::uint64_t, 3>> parse_shape3(const std::string& text);
/// Parses "AxBxC" (or N) as parse_shape3() does, within a lesson's limits: each extent in
/// [1, @p max_extent], their product at most @p max_elements (by default, no limit but the
/// extents'); nothing if it is not such a shape.
[[nodiscard]] std::optional<std::array<std::uint64_t, 3>> parse_shape3(
    const std::string& text, std::uint64_t max_extent,
    std::uint64_t max_elements = std::numeric_limits<std::uint64_t>::max());
/// The shape of a matrix product C = A B: A is m x k, B is k x n, C is m x n.
struct GemmDims {
  int m;  ///< rows of A and C
  int n;  ///< columns of B and C
  int k;  ///< columns of A, rows of B
};
/// Parses "MxNxK", or N for N x N x N, each a count as parse_count() takes it; nothing if it is
/// not one, if an extent is outside [1, @p max_extent], or if A, B or C would hold more than
/// @p max_elements elements.
[[nodiscard]] std::optional<GemmDims> parse_gemm_dims(const std::string& text, int max_extent,
                                                      std::uint64_t max_elements);
/// What is wrong with @p text as a matrix product's --size (parse_gemm_dims() with the same
/// limits), for DemoSpec::validate; nothing when it is a shape within them.
/// @pre @p max_elements is an even power of two (e.g. 2^26 = 8192 x 8192)
[[nodiscard]] std::optional<std::string> gemm_dims_problem(const std::string& text, int max_extent,
                                                           std::uint64_t max_elements);
/// What a matrix product's --size takes, for DemoSpec's --size help (lessons 03 and 12).
inline constexpr const char* kGemmSizeHelp =
    "MxNxK, or N for N x N x N; counts such as 1000, 4k or 2^12 (default 4096)";
/// "M x N x K", as the tables' titles write a product's shape.
[[nodiscard]] std::string shape_text(GemmDims dims);
/// @p value with @p digits digits after the decimal point, e.g. fixed(2.5, 2) is "2.50": the
/// numbers of the ladder tables and their notes.
[[nodiscard]] std::string fixed(double value, int digits);

/// One row of a table a source document published: the rung that stands for its kernel here,
/// the source's name for that kernel, and the time the source measured.
struct PublishedRow {
  std::string_view rung;    ///< this lesson's rung
  std::string_view kernel;  ///< the source's kernel
  double ms;                ///< the source's time
};

/// A source's published table "live": each of @p published's rungs found in @p ladder, its row
/// copied (not timed again) with the columns "lab kernel", "lab ms" and "lab speedup" (over the
/// first published row) added. A rung that --variant left out of @p ladder is left out here too.
[[nodiscard]] LadderReport published_beside(const LadderReport& ladder,
                                            std::span<const PublishedRow> published,
                                            std::string title, std::string baseline,
                                            std::string note);

}  // namespace course
