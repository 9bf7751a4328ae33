// The ceilings' private toolkit (common/src/ceilings*.cu): where a ceiling is measured once per
// process and once per CTest run, and the inputs they measure on.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "course/buffer.hpp"
#include "course/ceilings.hpp"
#include "course/data.hpp"
#include "course/error.hpp"

namespace course::ceilings::detail {

constexpr std::uint64_t kCeilingSeed = 20261122;

// The GPU's UUID, so that a ceiling measured on one GPU is never read on another.
inline std::string gpu_uuid() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  std::string text;
  char hex[3];
  for (char byte : properties.uuid.bytes) {
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(byte));
    text += hex;
  }
  return text;
}

// A run's ceilings are shared by the processes of one CTest run: $COURSE_CEILINGS_DIR names a
// directory that a fixture of that run emptied first (cmake/CourseLesson.cmake), so a ceiling is
// measured once per run and never reused across runs or GPUs. The first timed row that needs it
// measures it under a lock while the others wait: only a row that has the GPU to itself
// ($COURSE_ALONE, CTest's RUN_SERIAL rows), since a figure measured beside other tests' kernels
// is low, and every share graded against it would read high. A process that shares the GPU and
// finds no figure yet measures its own and keeps it to itself, as does a process run outside
// CTest (no variable). The file holds the GPU's UUID, the figure and its timing.
class RunCache {
 public:
  RunCache(const std::string& dir, const std::string& key) {
    std::string name;
    for (char c : key)
      name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    path_ = dir + "/" + name + ".ceiling";
    ::mkdir(dir.c_str(), 0755);  // the fixture removed it; the first process makes it again
    lock_ = ::open((path_ + ".lock").c_str(), O_CREAT | O_RDWR, 0644);
    if (lock_ >= 0)
      ::flock(lock_, LOCK_EX);
  }
  ~RunCache() {
    if (lock_ >= 0)
      ::close(lock_);  // closing releases the lock
  }
  RunCache(const RunCache&) = delete;
  RunCache& operator=(const RunCache&) = delete;

  std::optional<Ceiling> read(const std::string& uuid) const {
    std::ifstream in(path_);
    std::string stored_uuid;
    Ceiling c;
    if (!(in >> stored_uuid) || stored_uuid != uuid)
      return std::nullopt;
    in >> c.value >> c.timing.median_ms >> c.timing.min_ms >> c.timing.max_ms >> c.timing.repeats;
    in.ignore();
    std::getline(in, c.name);
    std::getline(in, c.unit);
    std::getline(in, c.what);
    if (!in)
      return std::nullopt;
    return c;
  }

  /// The file's name in the run's directory.
  [[nodiscard]] std::string file_name() const { return path_.substr(path_.rfind('/') + 1); }

  void write(const std::string& uuid, const Ceiling& c) const {
    std::ofstream out(path_);
    out.precision(17);
    out << uuid << ' ' << c.value << ' ' << c.timing.median_ms << ' ' << c.timing.min_ms << ' '
        << c.timing.max_ms << ' ' << c.timing.repeats << '\n'
        << c.name << '\n'
        << c.unit << '\n'
        << c.what << '\n';
  }

 private:
  std::string path_;
  int lock_ = -1;
};

// Memoizes ceilings by key, so each is measured once per process, and once per CTest run where
// the run shares them.
template <class Measure>
const Ceiling& cached(const std::string& key, Measure&& measurement) {
  // Whatever ran before (a launcher's stray work included) is finished before a ceiling is
  // measured, so that it cannot make the ceiling lower.
  auto measure = [&] {
    CUDA_CHECK(cudaDeviceSynchronize());
    return measurement();
  };
  static std::map<std::string, Ceiling> cache;
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(key); it != cache.end())
    return it->second;
  Ceiling ceiling;
  const char* dir = std::getenv("COURSE_CEILINGS_DIR");
  if (dir != nullptr && *dir != '\0') {
    const std::string uuid = gpu_uuid();
    RunCache run(dir, key);
    const char* alone = std::getenv("COURSE_ALONE");
    if (auto stored = run.read(uuid)) {
      ceiling = std::move(*stored);
      ceiling.what += " (measured earlier in this CTest run)";
    } else if (alone == nullptr || std::string_view(alone) != "1") {
      // Beside other tests' kernels: a figure for this process alone, never the run's.
      ceiling = measure();
      ceiling.what += " (measured beside other tests, for this process only)";
      announce(ceiling);
      return cache.emplace(key, std::move(ceiling)).first->second;
    } else {
      ceiling = measure();
      run.write(uuid, ceiling);
    }
    // What this process grades against, for the row runner to compare with the run's own copy
    // (cmake/course_run_rows.sh): a figure the process changed fails the row as tampered.
    std::ostringstream used;
    used.precision(17);
    used << "[course] ceiling-used " << run.file_name() << ' ' << ceiling.value << '\n';
    std::fputs(used.str().c_str(), stdout);
    std::fflush(stdout);
  } else {
    ceiling = measure();
  }
  announce(ceiling);
  return cache.emplace(key, std::move(ceiling)).first->second;
}

inline std::string count_text(std::size_t n) {
  for (int p = 10; p < 40; ++p)
    if (n == (std::size_t{1} << p))
      return "2^" + std::to_string(p);
  return std::to_string(n);
}

inline DeviceBuffer<float> random_floats(std::size_t n) {
  return DeviceBuffer<float>(std::span<const float>(uniform_floats(n, kCeilingSeed, -1.f, 1.f)));
}

}  // namespace course::ceilings::detail
