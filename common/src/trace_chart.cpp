// The parts of course/trace.hpp that need no CUPTI: a trace's sums, overlaps and lanes, and its
// text chart.
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

double Trace::kind_ms(const std::string& kind) const {
  double sum = 0;
  for (const auto& span : spans)
    if (span.kind == kind) sum += span.end_ms - span.start_ms;
  return sum;
}

double Trace::together_ms(const std::vector<std::string>& a,
                          const std::vector<std::string>& b) const {
  auto runs = [this](const std::vector<std::string>& kinds) {
    std::vector<std::pair<double, double>> merged;  // the spans are in order of start
    for (const auto& span : spans) {
      if (std::find(kinds.begin(), kinds.end(), span.kind) == kinds.end()) continue;
      if (!merged.empty() && span.start_ms <= merged.back().second)
        merged.back().second = std::max(merged.back().second, span.end_ms);
      else
        merged.emplace_back(span.start_ms, span.end_ms);
    }
    return merged;
  };
  double both = 0;
  for (const auto& [begin_a, end_a] : runs(a))
    for (const auto& [begin_b, end_b] : runs(b))
      both += std::max(0.0, std::min(end_a, end_b) - std::max(begin_a, begin_b));
  return both;
}

std::string Trace::lanes() const {
  std::string text;
  const auto ids = streams();
  for (std::size_t lane = 0; lane < ids.size(); ++lane) {
    std::vector<std::pair<std::string, int>> counts;  // kinds in order of first appearance
    for (const auto& span : spans) {
      if (span.stream != ids[lane]) continue;
      auto found = std::find_if(counts.begin(), counts.end(),
                                [&](const auto& count) { return count.first == span.kind; });
      if (found == counts.end())
        counts.emplace_back(span.kind, 1);
      else
        ++found->second;
    }
    text.append(lane > 0 ? "; stream " : "stream ").append(std::to_string(lane)).append(":");
    for (std::size_t k = 0; k < counts.size(); ++k) {
      const auto& [kind, count] = counts[k];
      const bool copy = kind == "H2D" || kind == "D2H" || kind == "D2D";
      text.append(k > 0 ? ", " : " ").append(std::to_string(count)).append(" ").append(kind);
      text.append(copy ? (count > 1 ? " copies" : " copy") : (count > 1 ? "s" : ""));
    }
  }
  return text;
}

std::vector<Trace> Trace::after_markers() const {
  std::vector<Trace> pieces;
  double marker_end = 0;
  for (const auto& span : spans) {  // in order of start
    if (span.kind == "memset" && span.bytes == 1) {
      pieces.emplace_back();
      marker_end = span.end_ms;
    } else if (!pieces.empty() && span.start_ms >= marker_end) {
      pieces.back().spans.push_back(span);
    }
  }
  for (auto& piece : pieces) {
    const double origin = piece.spans.empty() ? 0 : piece.spans.front().start_ms;
    for (auto& span : piece.spans) {
      span.start_ms -= origin;
      span.end_ms -= origin;
    }
  }
  return pieces;
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
