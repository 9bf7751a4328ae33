// The main() of every lesson's test binary.
//
// - Without a usable GPU it prints why and returns 77, which CTest reports as SKIPPED.
// - It prints the GPU and the base seed, so that any failure can be replayed (COURSE_SEED).
// - It fails when the test-case filter matched nothing, so a misspelt test cannot pass.
// - With COURSE_CHECK_GPU_ONLY=1 it only answers whether there is a GPU (0 or 77): the row
//   runner (cmake/course_run_rows.sh) asks before it starts a sanitizer.
// - It returns 77 when every test case it ran called course::skip_test() (a rung this GPU cannot
//   run) and none failed.
// - It fails when the code under test ends the process early (exit(0) from a kernel launcher
//   must not look like a passed test).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <malloc.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "course/data.hpp"
#include "course/gpu.hpp"
#include "course/testing.hpp"

namespace {

constexpr int kSkipped = 77;
constexpr int kEndedEarly = 86;
std::atomic<bool> main_finished{false};
std::atomic<int> test_cases_run{-1};
std::atomic<int> test_cases_skipped{0};

// Records how many test cases passed the filters; doctest reports it at the end of the run.
struct CountingListener : doctest::IReporter {
  explicit CountingListener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override {
    test_cases_run = static_cast<int>(stats.numTestCasesPassingFilters);
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("course_counter", 1, CountingListener);

void ended_early() {
  if (!main_finished) {
    std::fputs("[course] FAILED: the process ended before the tests finished (exit() called?)\n",
               stderr);
    std::fflush(nullptr);
    std::_Exit(kEndedEarly);
  }
}

bool is_query(const char* arg) {
  static constexpr const char* kQueries[] = {"-h",
                                             "--help",
                                             "-?",
                                             "-v",
                                             "--version",
                                             "-c",
                                             "--count",
                                             "-ltc",
                                             "--list-test-cases",
                                             "-lts",
                                             "--list-test-suites",
                                             "-lr",
                                             "--list-reporters"};
  for (const char* query : kQueries) {
    const std::size_t length = std::strlen(query);
    if (std::strncmp(arg, query, length) == 0 && (arg[length] == '\0' || arg[length] == '='))
      return true;
  }
  return false;
}

}  // namespace

void course::skip_test(const std::string& reason) {
  std::cout << "[course] SKIPPED: " << reason << std::endl;
  ++test_cases_skipped;
}

int main(int argc, char** argv) {
  // The tests allocate and free host buffers of up to gigabytes, case after case. By default
  // glibc gives each large buffer back to the kernel when it is freed, and the next one faults in
  // afresh, page by page: a third of a correctness row's time went to it (lesson 09's
  // atomic_global.correct, 12.9 s, 3.7 s of it in the kernel; 9.2 s with freed memory kept). So
  // every allocation comes from the heap, and the heap is not trimmed below 2 GB.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
  mallopt(M_TOP_PAD, 256 << 20);
  std::atexit(ended_early);
  std::at_quick_exit(ended_early);

  bool query = false;
  for (int i = 1; i < argc; ++i)
    query = query || is_query(argv[i]);
  const char* cpu_only = std::getenv("COURSE_CPU_ONLY");
  const bool needs_gpu = !query && !(cpu_only != nullptr && *cpu_only == '1');

  if (needs_gpu) {
    if (const auto& reason = course::gpu_unavailable_reason()) {
      std::cout << "[course] SKIPPED: " << *reason << std::endl;
      main_finished = true;
      return kSkipped;
    }
    std::cout << "[course] gpu: " << course::describe(course::gpu_info()) << '\n';
  }
  if (const char* only = std::getenv("COURSE_CHECK_GPU_ONLY"); only != nullptr && *only == '1') {
    main_finished = true;  // the row runner asks whether there is a GPU, nothing more
    return 0;
  }
  if (!query) {
    std::cout << "[course] seed: " << course::base_seed()
              << " (set COURSE_SEED to replay these inputs)" << std::endl;
    // What this process runs with, in one line the row runner (cmake/course_run_rows.sh)
    // compares with what it set: code under test that changed it fails the row as tampered.
    const std::string tool(course::sanitize_tool());
    std::printf("[course] run: seed=%llu quick=%d sanitize=%s\n",
                static_cast<unsigned long long>(course::base_seed()), course::quick_mode() ? 1 : 0,
                !course::sanitize_mode() ? "0"
                : tool.empty()           ? "1"
                                         : tool.c_str());
    std::fflush(stdout);
  }

  doctest::Context context;
  context.applyCommandLine(argc, argv);
  const int status = context.run();
  if (context.shouldExit() || query) {
    main_finished = true;
    return status;
  }
  if (test_cases_run == 0) {
    std::cout << "[course] FAILED: no test case matches the filter given" << std::endl;
    main_finished = true;
    return 1;
  }
  main_finished = true;
  if (status == 0 && test_cases_skipped > 0 && test_cases_skipped >= test_cases_run) {
    std::cout << "[course] every test case run was skipped" << std::endl;
    return kSkipped;
  }
  return status;
}
