#include "course/demo.hpp"

#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "course/error.hpp"
#include "course/gpu.hpp"

namespace course {

void LadderReport::compute_ratios() {
  const LadderRow* base = nullptr;
  for (const auto& row : rows)
    if (row.rung == baseline && row.ran())
      base = &row;
  for (auto& row : rows) {
    if (!row.ran())
      continue;
    // A lesson may have set a ratio its own way (e.g. against a second ceiling): keep it.
    if (row.speedup == 0 && base != nullptr && row.timing.median_ms > 0)
      row.speedup = base->timing.median_ms / row.timing.median_ms;
    if (row.share == 0 && ceiling.value > 0)
      row.share = row.metric / ceiling.value;
  }
}

bool LadderReport::has_work() const {
  return std::any_of(rows.begin(), rows.end(),
                     [](const LadderRow& row) { return row.ran() && row.work.counted(); });
}

double Roofline::attainable(double ops_per_byte) const noexcept {
  const double bandwidth_bound = memory.value * ops_per_byte;  // GB/s x ops/B = G ops/s
  return compute.value > 0 ? std::min(compute.value, bandwidth_bound) : bandwidth_bound;
}

double Roofline::ridge() const noexcept {
  return compute.value > 0 && memory.value > 0 ? compute.value / memory.value : 0.0;
}

Roofline roofline(const LadderReport& report) {
  Roofline roofs;
  roofs.memory = ceilings::device_copy();
  if (report.compute_roof)
    roofs.compute = *report.compute_roof;
  else if (report.ops_unit == "FLOP")
    roofs.compute = ceilings::fp32_fma_peak();
  return roofs;
}

double achieved(const LadderRow& row) noexcept {
  if (!row.ran() || !row.work.counted() || row.timing.median_ms <= 0)
    return 0.0;
  return row.work.ops / (row.timing.median_ms * 1e6);
}

std::string fixed(double value, int digits) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << value;
  return out.str();
}

namespace {

std::vector<std::vector<std::string>> table_cells(const LadderReport& report) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header{
      "rung",      "kind", "status", "time ms", report.metric_unit, "x " + report.baseline,
      "of ceiling"};
  const bool roofed = report.roofline.has_value();
  if (roofed)
    header.insert(header.end(), {report.ops_unit + "/B", "of roof"});
  header.insert(header.end(), report.extra_columns.begin(), report.extra_columns.end());
  header.push_back("note");
  cells.push_back(header);
  for (const auto& row : report.rows) {
    std::vector<std::string> line{row.rung, row.kind, row.status};
    if (row.ran()) {
      line.insert(line.end(), {fixed(row.timing.median_ms, 3), fixed(row.metric, 1),
                               row.speedup > 0 ? fixed(row.speedup, 2) : "-",
                               row.share > 0 ? fixed(100.0 * row.share, 1) + " %" : "-"});
    } else {
      line.insert(line.end(), {"-", "-", "-", "-"});
    }
    if (roofed) {
      // The intensity, and the share of what that intensity can reach.
      const double intensity = row.work.intensity();
      const double roof = report.roofline->attainable(intensity);
      char text[32];  // three significant digits: a sort's 0.000586 key/B, a GEMM's 683 FLOP/B
      if (intensity >= 100)
        std::snprintf(text, sizeof text, "%.0f", intensity);  // %g would write 1.02e+03
      else
        std::snprintf(text, sizeof text, "%.3g", intensity);
      line.push_back(row.work.counted() ? text : "-");
      line.push_back(achieved(row) > 0 && roof > 0 ? fixed(100.0 * achieved(row) / roof, 1) + " %"
                                                   : "-");
    }
    for (std::size_t c = 0; c < report.extra_columns.size(); ++c)
      line.push_back(row.ran() && c < row.extra.size() ? row.extra[c] : "-");
    line.push_back(row.note);
    cells.push_back(line);
  }
  return cells;
}

}  // namespace

void print_text(const LadderReport& report, std::ostream& out) {
  const auto cells = table_cells(report);
  std::vector<std::size_t> width(cells.front().size(), 0);
  for (const auto& line : cells)
    for (std::size_t c = 0; c < line.size(); ++c)
      width[c] = std::max(width[c], line[c].size());
  out << "\n" << report.title << "\n";
  out << "ceiling: " << report.ceiling.name << " = " << fixed(report.ceiling.value, 1) << " "
      << report.ceiling.unit << " (" << report.ceiling.what << ")\n";
  if (const auto& roofs = report.roofline) {
    out << "roofline: memory roof = " << roofs->memory.name << " " << fixed(roofs->memory.value, 1)
        << " GB/s";
    if (roofs->compute.value > 0)
      out << ", compute roof = " << roofs->compute.name << " " << fixed(roofs->compute.value, 1)
          << " GFLOP/s, ridge at " << fixed(roofs->ridge(), 1) << " FLOP/B";
    else
      out << " (" << report.ops_unit << "s are not FP32 arithmetic: no compute roof)";
    out << "\n";
  }
  out << "\n";
  for (std::size_t r = 0; r < cells.size(); ++r) {
    for (std::size_t c = 0; c < cells[r].size(); ++c) {
      const bool left = c < 3 || c + 1 == cells[r].size();  // names and the note; numbers right
      out << (left ? std::left : std::right) << std::setw(static_cast<int>(width[c])) << cells[r][c]
          << (c + 1 < cells[r].size() ? "  " : "");
    }
    out << "\n";
    if (r == 0) {
      std::size_t total = 0;
      for (auto w : width)
        total += w + 2;
      out << std::string(total - 2, '-') << "\n";
    }
  }
  if (report.timeline)
    out << "\n" << trace_chart(*report.timeline);
  for (const auto& note : report.notes)
    out << note << "\n";
}

void print_csv(const LadderReport& report, std::ostream& out) {
  out << "table,rung,kind,status,median_ms,min_ms,max_ms,metric,unit,speedup,share,ops,bytes,note";
  for (const auto& column : report.extra_columns)
    out << ",\"" << column << '"';
  out << "\n";
  for (const auto& row : report.rows) {
    out << '"' << report.title << "\"," << row.rung << ',' << row.kind << ',' << row.status << ','
        << row.timing.median_ms << ',' << row.timing.min_ms << ',' << row.timing.max_ms << ','
        << row.metric << ',' << report.metric_unit << ',' << row.speedup << ',' << row.share << ','
        << row.work.ops << ',' << row.work.bytes << ",\"" << row.note << '"';
    for (std::size_t c = 0; c < report.extra_columns.size(); ++c)
      out << ',' << (c < row.extra.size() ? row.extra[c] : "");
    out << "\n";
  }
}

std::string to_json(const std::vector<LadderReport>& reports, const std::string& lesson) {
  nlohmann::json doc;
  doc["lesson"] = lesson;
  doc["gpu"] = describe(gpu_info());
  for (const auto& report : reports) {
    nlohmann::json table;
    table["title"] = report.title;
    table["metric_unit"] = report.metric_unit;
    table["baseline"] = report.baseline;
    table["ceiling"] = {{"name", report.ceiling.name},
                        {"value", report.ceiling.value},
                        {"unit", report.ceiling.unit},
                        {"what", report.ceiling.what}};
    for (const auto& row : report.rows) {
      table["rows"].push_back({{"rung", row.rung},
                               {"kind", row.kind},
                               {"status", row.status},
                               {"median_ms", row.timing.median_ms},
                               {"min_ms", row.timing.min_ms},
                               {"max_ms", row.timing.max_ms},
                               {"metric", row.metric},
                               {"speedup", row.speedup},
                               {"share", row.share},
                               {"note", row.note}});
      for (std::size_t c = 0; c < report.extra_columns.size() && c < row.extra.size(); ++c)
        table["rows"].back()["extra"][report.extra_columns[c]] = row.extra[c];
      if (row.work.counted())
        table["rows"].back()["work"] = {{"ops", row.work.ops}, {"bytes", row.work.bytes}};
    }
    if (const auto& roofs = report.roofline) {
      auto roof = [](const ceilings::Ceiling& c) -> nlohmann::json {
        if (c.value <= 0)
          return nullptr;
        return {{"name", c.name}, {"value", c.value}, {"unit", c.unit}, {"what", c.what}};
      };
      table["roofline"] = {{"ops_unit", report.ops_unit},
                           {"memory", roof(roofs->memory)},
                           {"compute", roof(roofs->compute)}};
    }
    if (const auto& trace = report.timeline) {
      nlohmann::json spans = nlohmann::json::array();
      const auto streams = trace->streams();
      for (const auto& span : trace->spans) {
        const auto lane = std::find(streams.begin(), streams.end(), span.stream) - streams.begin();
        spans.push_back({{"lane", lane},
                         {"kind", span.kind},
                         {"name", span.name},
                         {"start_ms", span.start_ms},
                         {"end_ms", span.end_ms},
                         {"bytes", span.bytes}});
      }
      table["timeline"] = {{"lanes", streams.size()},
                           {"wall_ms", trace->wall_ms()},
                           {"busy_ms", trace->busy_ms()},
                           {"spans", spans}};
    }
    table["notes"] = report.notes;
    doc["tables"].push_back(table);
  }
  return doc.dump(2);
}

namespace {

// This GPU's per-block and per-SM limits, the ones occupancy depends on (lesson 03,
// "Occupancy"), as the driver reports them.
void print_limits(std::ostream& out) {
  const int device = gpu_info().device;
  auto get = [device](cudaDeviceAttr attribute) {
    int value = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
    return value;
  };
  const auto kib = [](int bytes) { return std::to_string(bytes / 1024) + " KB"; };
  out << "per block\n"
      << "  threads                   " << get(cudaDevAttrMaxThreadsPerBlock) << "\n"
      << "  block dimensions          " << get(cudaDevAttrMaxBlockDimX) << " x "
      << get(cudaDevAttrMaxBlockDimY) << " x " << get(cudaDevAttrMaxBlockDimZ) << "\n"
      << "  grid dimensions           " << get(cudaDevAttrMaxGridDimX) << " x "
      << get(cudaDevAttrMaxGridDimY) << " x " << get(cudaDevAttrMaxGridDimZ) << "\n"
      << "  registers                 " << get(cudaDevAttrMaxRegistersPerBlock) << "\n"
      << "  shared memory (static)    " << kib(get(cudaDevAttrMaxSharedMemoryPerBlock)) << "\n"
      << "  shared memory (opted in)  " << kib(get(cudaDevAttrMaxSharedMemoryPerBlockOptin)) << "\n"
      << "  shared memory reserved    " << get(cudaDevAttrReservedSharedMemoryPerBlock)
      << " bytes (by the system, per resident block)\n"
      << "per SM (" << get(cudaDevAttrMultiProcessorCount) << " SMs)\n"
      << "  threads                   " << get(cudaDevAttrMaxThreadsPerMultiProcessor) << " ("
      << get(cudaDevAttrMaxThreadsPerMultiProcessor) / get(cudaDevAttrWarpSize) << " warps of "
      << get(cudaDevAttrWarpSize) << ")\n"
      << "  blocks                    " << get(cudaDevAttrMaxBlocksPerMultiprocessor) << "\n"
      << "  registers                 " << get(cudaDevAttrMaxRegistersPerMultiprocessor) << "\n"
      << "  shared memory             " << kib(get(cudaDevAttrMaxSharedMemoryPerMultiprocessor))
      << "\n";
}

}  // namespace

std::string demo_program_name(const char* argv0, const std::string& lesson) {
  std::string name = argv0 != nullptr ? argv0 : "";
  if (const auto slash = name.find_last_of("/\\"); slash != std::string::npos)
    name = name.substr(slash + 1);
  if (name.empty())
    name = "lesson" + lesson.substr(0, 2) + "_demo";
  return name;
}

int run_demo(int argc, char** argv, const DemoSpec& spec) {
  const std::string program = demo_program_name(argc > 0 ? argv[0] : nullptr, spec.lesson);
  CLI::App app(spec.description, program);
  DemoOptions options;
  app.add_option("--size", options.size, spec.size_help);
  app.add_option("--variant", options.variants, "rungs to run (repeatable; default: all)")
      ->check(CLI::IsMember(spec.variant_names));
  if (spec.takes_block) {
    app.add_option(
           "--block", options.block,
           "threads per block: " +
               (spec.block_help.empty() ? std::string("the lesson's default") : spec.block_help))
        ->check(CLI::Range(1, 1024));  // a block holds at most 1024 threads; 0 is "not given"
  }
  app.add_option("--repeat", options.repeat, "timed runs per rung, the median reported")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  auto* csv = app.add_flag("--csv", options.csv, "print CSV instead of a table");
  app.add_flag("--json", options.json, "print JSON instead of a table")->excludes(csv);
  bool limits = false;
  app.add_flag("--limits", limits,
               "print this GPU's per-block and per-SM limits (what occupancy depends on) and exit");
  if (spec.add_options)
    spec.add_options(app);

  auto usage_error = [&](const std::string& message) {
    std::cerr << "error: " << message << "\nusage: " << app.get_name() << " [OPTIONS]\n\n"
              << app.help();
    return 2;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& error) {
    return usage_error(error.what());
  }
  if (spec.validate) {
    if (auto problem = spec.validate(options))
      return usage_error(*problem);
  }
  if (const auto& reason = gpu_unavailable_reason()) {
    std::cerr << program << ": cannot run: " << *reason << "\n";
    return 77;
  }
  if (options.json || options.csv)
    ceilings::set_announce_stream(stderr);
  try {
    if (limits) {
      std::cout << "GPU: " << describe(gpu_info()) << "\n";
      print_limits(std::cout);
      return 0;
    }
    if (!options.json && !options.csv)
      std::cout << "GPU: " << describe(gpu_info()) << "\n";
    auto reports = spec.run(options);
    for (auto& report : reports) {
      report.compute_ratios();
      if (report.has_work())
        report.roofline = roofline(report);
    }
    if (options.json) {
      std::cout << to_json(reports, spec.lesson) << "\n";
    } else {
      for (const auto& report : reports) {
        if (options.csv) {
          print_csv(report, std::cout);
        } else {
          print_text(report, std::cout);
        }
      }
    }
  } catch (const std::exception& error) {
    std::cerr << program << ": " << error.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace course
