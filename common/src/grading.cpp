#include "course/grading.hpp"

#include "course/bench.hpp"
#include "course/data.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

extern char** environ;

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

namespace {

// The number @p field of @p test's grading row in @p readme_path (its threshold or its bound);
// throws when there is no such row, or the row has no such number (@p what says which).
double number_in_row(const std::string& readme_path, std::string_view test,
                     std::optional<double> GradingRow::*field, const std::string& what) {
  for (const auto& row : read_grading_table(readme_path)) {
    if (row.test != test)
      continue;
    if (!(row.*field))
      throw std::runtime_error(readme_path + ": the row of " + std::string(test) + " has no " +
                               what);
    return *(row.*field);
  }
  throw std::runtime_error(readme_path + ": no grading row for " + std::string(test));
}

}  // namespace

double threshold(const std::string& readme_path, std::string_view test) {
  return number_in_row(readme_path, test, &GradingRow::threshold, "threshold");
}

double plausible_bound(const std::string& readme_path, std::string_view test) {
  return number_in_row(readme_path, test, &GradingRow::bound,
                       "plausibility bound (\"≤ x\" in its threshold cell)");
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

namespace {

// The file descriptor a baseline's process reports its time on (speedup_over_row_apart), or -1
// in a process run as a row.
int report_fd() {
  static const int fd = [] {
    const char* text = std::getenv("COURSE_REPORT_FD");
    return text != nullptr && *text != '\0' ? std::atoi(text) : -1;
  }();
  return fd;
}

// In a baseline's process: the row's first sample goes back to the process that asked, and
// this process ends at once (nothing it would print is read).
[[noreturn]] void report_and_exit(const SpeedSample& sample) {
  std::ostringstream out;
  out.precision(17);
  out << sample.time_ms << '\n' << sample.failure;
  const std::string text = out.str();
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(report_fd(), text.data() + written, text.size() - written);
    if (n <= 0)
      break;
    written += static_cast<std::size_t>(n);
  }
  std::_Exit(0);
}


// A speed row's time, measured by the row itself in a child process (the same test binary, the
// one row, a seed of its own), as speedup_over_row_apart describes. Sets @p failure instead
// when the child reported none.
double time_of_row_apart(std::string_view row, std::string& failure) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0)
    throw std::runtime_error("speedup_over_row_apart: pipe() failed");
  static int calls = 0;
  const std::string seed =
      std::to_string(derive_seed(base_seed(), 0x62617365ULL + calls++) % 1000000007ULL);
  std::vector<std::string> env_text;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (!entry.starts_with("COURSE_SEED=") && !entry.starts_with("COURSE_REPORT_FD="))
      env_text.emplace_back(entry);
  }
  env_text.push_back("COURSE_SEED=" + seed);
  env_text.push_back("COURSE_REPORT_FD=3");
  std::vector<char*> envp;
  for (auto& entry : env_text)
    envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::string exe = "/proc/self/exe", test_case = "--test-case=" + std::string(row);
  char* argv[] = {exe.data(), test_case.data(), nullptr};

  // The report comes on file descriptor 3; what the child prints is not this row's output.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 3);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t child = -1;
  const int spawned = ::posix_spawn(&child, exe.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  std::string report;
  if (spawned == 0) {
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
      report.append(buffer, static_cast<std::size_t>(n));
    int status = 0;
    ::waitpid(child, &status, 0);
  }
  ::close(pipe_fds[0]);
  std::printf("[course] baseline measured apart, by its own row %s (seed %s)\n",
              std::string(row).c_str(), seed.c_str());
  const auto newline = report.find('\n');
  const double ms =
      newline == std::string::npos ? 0.0 : std::atof(report.substr(0, newline).c_str());
  if (newline != std::string::npos && newline + 1 < report.size())
    failure = report.substr(newline + 1);
  else if (spawned != 0 || ms <= 0.0)
    failure = "no time came back (run the row " + std::string(row) + " to see why)";
  return ms;
}

}  // namespace

bool in_baseline_process() {
  return report_fd() >= 0;
}

SpeedSample speedup_over_row_apart(SpeedSample rung, std::string_view baseline_row,
                                   std::string_view baseline) {
  rung.baseline = std::string(baseline);
  if (!rung.failure.empty())
    return rung;
  // Measured once per row: a row's second and third attempts re-measure its own rung, whose
  // time a busy GPU can spoil, against the same baseline (a busy GPU only slows a baseline,
  // which favours the rung).
  static std::map<std::string, double, std::less<>> measured;
  auto found = measured.find(baseline_row);
  if (found == measured.end()) {
    std::string failure;
    const double ms = time_of_row_apart(baseline_row, failure);
    if (!failure.empty()) {
      rung.failure =
          "the baseline " + rung.baseline + " could not be measured in its own process: " + failure;
      return rung;
    }
    found = measured.emplace(std::string(baseline_row), ms).first;
  }
  rung.speedup = found->second / rung.time_ms;
  return rung;
}

SpeedSample measure_speed(std::string_view test, Graded graded, double threshold, double bound,
                          const std::function<SpeedSample()>& measure, int attempts) {
  if (report_fd() >= 0)
    report_and_exit(measure());  // a baseline's process: one sample, reported
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
    // A miss by more than a sixth of the bar is not bad luck: a median of repeats moves by a
    // few per cent between attempts, so measuring again would only cost the time.
    if (sample.value(graded) < kFinalMissFraction * threshold) {
      std::printf("[course] no further attempt: below %.0f %% of the bar\n",
                  100.0 * kFinalMissFraction);
      break;
    }
  }
  std::printf("[course] result: %s\n", describe(test, best).c_str());
  std::fflush(stdout);
  return best;
}

}  // namespace course
