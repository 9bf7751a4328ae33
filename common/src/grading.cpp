#include "course/grading.hpp"

#include "course/bench.hpp"

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace course {

namespace {

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos)
    return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> result;
  std::size_t start = line.find('|');
  while (start != std::string::npos) {
    const std::size_t end = line.find('|', start + 1);
    if (end == std::string::npos)
      break;
    result.push_back(trim(std::string_view(line).substr(start + 1, end - start - 1)));
    start = end;
  }
  return result;
}

}  // namespace

std::vector<GradingRow> read_grading_table(const std::string& readme_path) {
  std::ifstream file(readme_path);
  if (!file)
    throw std::runtime_error("cannot read the grading table: no file " + readme_path);
  static const std::regex kName("^`([a-z0-9_]+\\.[a-z0-9_]+)`$");
  static const std::regex kNumber("([0-9]+(\\.[0-9]+)?)");
  std::vector<GradingRow> rows;
  bool inside = false;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    if (line.find("<!-- grading:begin -->") != std::string::npos)
      inside = true;
    if (line.find("<!-- grading:end -->") != std::string::npos)
      break;
    if (!inside)
      continue;
    const auto row = cells(line);
    std::smatch match;
    if (row.size() < 5 || !std::regex_match(row[0], match, kName))
      continue;
    GradingRow parsed;
    parsed.test = match[1];
    parsed.kind = row[1];
    parsed.checks = row[2];
    if (std::smatch value; std::regex_search(row[3], value, kNumber))
      parsed.threshold = std::stod(value[1]);
    if (const auto at = row[3].find("≤"); at != std::string::npos) {
      const std::string after = row[3].substr(at);
      if (std::smatch value; std::regex_search(after, value, kNumber))
        parsed.bound = std::stod(value[1]);
    }
    try {
      parsed.points = std::stoi(row[4]);
    } catch (const std::exception&) {
      throw std::runtime_error(readme_path + ":" + std::to_string(number) +
                               ": the points cell of " + parsed.test + " is not a number");
    }
    rows.push_back(std::move(parsed));
  }
  if (rows.empty())
    throw std::runtime_error(readme_path + ": no grading table found");
  return rows;
}

double threshold(const std::string& readme_path, std::string_view test) {
  for (const auto& row : read_grading_table(readme_path)) {
    if (row.test != test)
      continue;
    if (!row.threshold)
      throw std::runtime_error(readme_path + ": the row of " + std::string(test) +
                               " has no threshold");
    return *row.threshold;
  }
  throw std::runtime_error(readme_path + ": no grading row for " + std::string(test));
}

double plausible_bound(const std::string& readme_path, std::string_view test) {
  for (const auto& row : read_grading_table(readme_path)) {
    if (row.test != test)
      continue;
    if (!row.bound)
      throw std::runtime_error(readme_path + ": the row of " + std::string(test) +
                               " has no plausibility bound (\"≤ x\" in its threshold cell)");
    return *row.bound;
  }
  throw std::runtime_error(readme_path + ": no grading row for " + std::string(test));
}

std::string describe(std::string_view test, const SpeedSample& sample) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(3);
  out << test << ": time " << sample.time_ms << " ms";
  out.precision(2);
  if (sample.speedup > 0)
    out << ", speedup " << sample.speedup << "x over " << sample.baseline;
  if (sample.share > 0)
    out << ", share " << sample.share << " of " << sample.ceiling;
  return out.str();
}

SpeedSample measure_speed(std::string_view test, Graded graded, double threshold, double bound,
                          const std::function<SpeedSample()>& measure, int attempts) {
  SpeedSample best;
  bool have_best = false;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    SpeedSample sample = measure();
    std::printf("[course] measure: %s (needs %s >= %.2f; attempt %d of %d)\n",
                describe(test, sample).c_str(), graded == Graded::Speedup ? "speedup" : "share",
                threshold, attempt, attempts);
    if (sample.failure.empty()) {
      if (const auto implausible = check_plausible(sample.share, bound, sample.ceiling))
        sample.failure = std::string(test) + ": " + *implausible;
    }
    if (!sample.failure.empty()) {
      std::printf("[course] FAILED: %s\n", sample.failure.c_str());
      std::fflush(stdout);
      return sample;
    }
    if (!have_best || sample.value(graded) > best.value(graded))
      best = sample;
    have_best = true;
    if (best.value(graded) >= threshold)
      break;
  }
  std::printf("[course] result: %s\n", describe(test, best).c_str());
  std::fflush(stdout);
  return best;
}

}  // namespace course
