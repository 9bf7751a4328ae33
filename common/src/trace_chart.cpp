// The parts of course/trace.hpp that need no CUPTI: a trace's sums and its text chart.
#include <algorithm>
#include <sstream>

#include "course/demo.hpp"  // fixed()
#include "course/trace.hpp"

namespace course {

std::vector<std::uint32_t> Trace::streams() const {
  std::vector<std::uint32_t> ids;
  for (const auto& span : spans)
    if (std::find(ids.begin(), ids.end(), span.stream) == ids.end()) ids.push_back(span.stream);
  return ids;
}

double Trace::wall_ms() const {
  double end = 0;
  for (const auto& span : spans) end = std::max(end, span.end_ms);
  return end;
}

double Trace::busy_ms() const {
  double busy = 0;
  for (const auto& span : spans) busy += span.end_ms - span.start_ms;
  return busy;
}

std::string trace_chart(const Trace& trace, int width) {
  std::ostringstream out;
  const double wall = trace.wall_ms();
  if (trace.spans.empty() || wall <= 0) return "timeline: no GPU work was recorded\n";
  const auto streams = trace.streams();
  out << "timeline: " << fixed(wall, 3) << " ms from the first start to the last end, "
      << width << " columns ('H' host to device, 'D' device to host, 'K' kernel, 'm' memset)\n";
  for (std::size_t lane = 0; lane < streams.size(); ++lane) {
    std::string line(static_cast<std::size_t>(width), '.');
    for (const auto& span : trace.spans) {
      if (span.stream != streams[lane]) continue;
      const char mark = span.kind == "H2D"      ? 'H'
                        : span.kind == "D2H"    ? 'D'
                        : span.kind == "kernel" ? 'K'
                        : span.kind == "memset" ? 'm'
                                                : 'C';
      auto column = [&](double ms) {
        return std::clamp(static_cast<int>(ms / wall * width), 0, width - 1);
      };
      for (int c = column(span.start_ms); c <= column(span.end_ms - 1e-9); ++c)
        line[static_cast<std::size_t>(c)] = mark;
    }
    out << "  stream " << lane << "  |" << line << "|\n";
  }
  out << "  " << trace.spans.size() << " spans on " << streams.size() << " streams; one after "
      << "another they would take " << fixed(trace.busy_ms(), 3) << " ms, here "
      << fixed(wall, 3) << " ms: " << fixed(std::max(trace.busy_ms() - wall, 0.0), 3)
      << " ms of it overlapped\n";
  return out.str();
}

}  // namespace course
