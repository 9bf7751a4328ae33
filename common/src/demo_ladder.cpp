// The rows of the demos' tables: a rung run safely, measured, or copied from a ceiling or a
// source's published table (course/demo.hpp).
#include <cuda_runtime.h>

#include "course/demo.hpp"
#include "course/error.hpp"

namespace course {

std::string try_rung(const std::function<void()>& launch) {
  try {
    launch();
    CUDA_CHECK(cudaDeviceSynchronize());
    return "ok";
  } catch (const NotImplemented&) {
    return "not implemented";
  } catch (const Unsupported&) {
    return "skipped";
  } catch (const std::exception& error) {
    std::string what = error.what();
    return "error: " + what.substr(0, 60);
  }
}

LadderRow measured_row(std::string_view rung, std::string_view kind,
                       const std::function<Measurement()>& measure_rung,
                       const std::function<void(LadderRow&)>& fill) {
  LadderRow row;
  row.rung = rung;
  row.kind = kind;
  Measurement measured;
  row.status = try_rung([&] { measured = measure_rung(); });
  if (row.status == "ok") {
    row.timing = measured.timing;
    if (!measured.sound()) {
      row.status = "WRONG";
      row.note = measured.failure;
    }
  }
  if (fill)
    fill(row);
  if (!(row.timing.median_ms > 0))
    row.metric = 0.0;
  return row;
}

const LadderRow* find_row(std::span<const LadderRow> rows, std::string_view rung) {
  for (const LadderRow& row : rows)
    if (row.rung == rung)
      return &row;
  return nullptr;
}

SweepRows sweep_rows(const std::span<const int> sizes, std::string_view baseline,
                     const std::function<const ceilings::Ceiling&(int size)>& ceiling_at,
                     const std::function<std::vector<LadderRow>(int size)>& rows_at) {
  SweepRows sweep;
  std::vector<std::vector<LadderRow>> by_rung;
  for (const int size : sizes) {
    const ceilings::Ceiling& ceiling = ceiling_at(size);
    sweep.ceiling = ceiling;
    sweep.ceilings += (sweep.ceilings.empty() ? "" : ", ") + std::to_string(size) + ": " +
                      fixed(ceiling.value, 1);
    std::vector<LadderRow> at_size = rows_at(size);
    const LadderRow* base = find_row(at_size, baseline);
    if (base != nullptr && !(base->ran() && base->timing.median_ms > 0))
      base = nullptr;
    by_rung.resize(at_size.size());
    for (std::size_t r = 0; r < at_size.size(); ++r) {
      LadderRow& row = at_size[r];
      if (row.ran() && ceiling.value > 0)
        row.share = row.metric / ceiling.value;
      if (base != nullptr && row.ran() && row.timing.median_ms > 0)
        row.speedup = base->timing.median_ms / row.timing.median_ms;
      by_rung[r].push_back(row);
    }
  }
  for (const auto& rung : by_rung)
    sweep.rows.insert(sweep.rows.end(), rung.begin(), rung.end());
  return sweep;
}

LadderRow ceiling_row(const ceilings::Ceiling& ceiling, Work work, std::string note,
                      std::vector<std::string> extra) {
  LadderRow row;
  row.rung = ceiling.name;
  row.kind = "ceiling";
  row.status = "ok";
  row.timing = ceiling.timing;
  row.metric = ceiling.value;
  row.work = work;
  row.note = std::move(note);
  row.extra = std::move(extra);
  return row;
}

LadderReport published_beside(const LadderReport& ladder, std::span<const PublishedRow> published,
                              std::string title, std::string baseline, std::string note) {
  LadderReport report;
  report.title = std::move(title);
  report.metric_unit = ladder.metric_unit;
  report.baseline = std::move(baseline);
  report.ceiling = ladder.ceiling;
  report.extra_columns = {"lab kernel", "lab ms", "lab speedup"};
  for (const PublishedRow& lab : published)
    for (const LadderRow& row : ladder.rows)
      if (row.rung == lab.rung) {
        LadderRow live = row;
        live.extra = {std::string(lab.kernel), fixed(lab.ms, 2),
                      fixed(published.front().ms / lab.ms, 2)};
        report.rows.push_back(live);
      }
  report.notes = {std::move(note)};
  return report;
}

}  // namespace course
