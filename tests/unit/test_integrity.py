#!/usr/bin/env python3
"""Tests of cmake/course_integrity.py, the allowlist a student's objects are held to: small
C++ files, compiled here with the host compiler, each one thing a launcher may or may not do.

    test_integrity.py [--cxx c++]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "cmake"))
import course_integrity  # noqa: E402

CXX = "c++"

# A launcher in the lesson's namespace, as a student writes one: containers, algorithms,
# strings, exceptions, printing while debugging, math.
ALLOWED = r"""
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>
namespace course::lesson02 {
static std::map<int, int> seen;
void launch_tiled(const float* in, float* out, int n) {
  if (n < 0) throw std::invalid_argument("n must be >= 0, got " + std::to_string(n));
  std::vector<float> v(in, in + n);
  std::sort(v.begin(), v.end());
  seen[n] = static_cast<int>(std::sqrt(static_cast<double>(n)));
  std::printf("debug %d\n", n);
  std::cout << "debug " << n << std::endl;
  std::copy(v.begin(), v.end(), out);
}
}  // namespace course::lesson02
"""

# Each: (name, source, what the check must name). All inside the lesson's namespace unless the
# point is a definition outside it.
REFUSED = [
    ("defines a C clock", r"""
#include <time.h>
extern "C" int clock_gettime(clockid_t, struct timespec* t) { t->tv_sec = 0; t->tv_nsec = 0; return 0; }
""", "clock_gettime"),
    ("defines the allocator", r"""
#include <cstdlib>
#include <new>
void* operator new(std::size_t n) { return std::malloc(n); }
""", "operator new"),
    ("defines a CUDA runtime function", r"""
extern "C" int cudaEventElapsedTime(float* ms, void*, void*) { *ms = 1.0f; return 0; }
""", "cudaEventElapsedTime"),
    ("defines the steady clock, weak", r"""
#include <chrono>
namespace std::chrono { inline namespace _V2 {
__attribute__((weak)) steady_clock::time_point steady_clock::now() noexcept { return time_point{}; }
} }
""", "steady_clock::now"),
    ("defines a harness function", r"""
namespace course { bool quick_mode() { return true; } }
""", "course::quick_mode"),
    ("reads the environment", r"""
#include <cstdlib>
namespace course::lesson02 { bool watched() { return std::getenv("COURSE_SANITIZE") != nullptr; } }
""", "getenv"),
    ("sets the run's configuration", r"""
#include <cstdlib>
namespace course::lesson02 { static int quick = setenv("COURSE_QUICK", "1", 1); }
""", "setenv"),
    ("writes a file", r"""
#include <fstream>
namespace course::lesson02 { void note() { std::ofstream("ceilings") << 1.0; } }
""", "basic_ofstream"),
    ("opens a file the C way", r"""
#include <cstdio>
namespace course::lesson02 { void note() { std::fclose(std::fopen("/proc/self/cmdline", "r")); } }
""", "fopen"),
    ("reads a clock", r"""
#include <chrono>
namespace course::lesson02 { long now() { return std::chrono::steady_clock::now().time_since_epoch().count(); } }
""", "steady_clock::now"),
    ("starts a thread", r"""
#include <thread>
namespace course::lesson02 { void later() { std::thread([] {}).detach(); } }
""", "thread"),
    ("loads a library", r"""
#include <dlfcn.h>
namespace course::lesson02 { void* find() { return dlsym(RTLD_DEFAULT, "cublasSgemm_v2"); } }
""", "dlsym"),
    ("reads the time-stamp counter in host assembly", r"""
namespace course::lesson02 { unsigned long ticks() { unsigned lo, hi; asm volatile("rdtsc" : "=a"(lo), "=d"(hi)); return (unsigned long)hi << 32 | lo; } }
""", "rdtsc"),
    ("calls the measuring code", r"""
namespace course { struct Trial; struct MeasureOptions; struct Measurement; Measurement measure(const Trial&, const MeasureOptions&); }
namespace course::lesson02 { void* m() { return reinterpret_cast<void*>(&course::measure); } }
""", "course::measure"),
    ("creates a stream where the lesson teaches none", r"""
extern "C" int cudaStreamCreate(void**);
namespace course::lesson02 { void* s() { void* p; cudaStreamCreate(&p); return p; } }
""", "cudaStreamCreate"),
    ("defines a function outside its namespace", r"""
int helper(int x) { return x + 1; }
""", "helper"),
]


def compile_object(source, directory, name):
    path = os.path.join(directory, name + ".cpp")
    with open(path, "w") as f:
        f.write(source)
    obj = os.path.join(directory, name + ".o")
    subprocess.run([CXX, "-std=c++20", "-O2", "-c", path, "-o", obj], check=True,
                   capture_output=True, text=True)
    return obj


class IntegrityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def refusals(self, source, name, lesson="02"):
        obj = compile_object(source, self.tmp.name, name.replace(" ", "_"))
        return course_integrity.check([obj], lesson, "nm", "objdump")

    def test_a_launcher_may_use_the_library(self):
        self.assertEqual(self.refusals(ALLOWED, "allowed"), [])

    def test_each_refused_thing_is_named(self):
        for name, source, symbol in REFUSED:
            with self.subTest(name):
                found = self.refusals(source, name)
                self.assertTrue(found, f"{name}: nothing refused")
                self.assertTrue(any(symbol in what for _, _, what, _ in found),
                                f"{name}: {symbol} not named in {found}")

    def test_streams_are_allowed_where_taught(self):
        source = r"""
extern "C" int cudaStreamCreate(void**);
namespace course::lesson06 { void* s() { void* p; cudaStreamCreate(&p); return p; } }
"""
        self.assertEqual(self.refusals(source, "streams06", lesson="06"), [])

    def test_another_lessons_code_is_refused(self):
        source = r"""
namespace course::lesson03 { void launch_tiled(); }
namespace course::lesson02 { void f() { course::lesson03::launch_tiled(); } }
"""
        found = self.refusals(source, "other_lesson")
        self.assertTrue(any("another lesson" in why for *_, why in found), found)

    def test_outer_name(self):
        cases = {
            "void course::lesson05::run<float, course::lesson05::Sum<float> >(float const*)":
                "course::lesson05::run<>",
            "typeinfo for course::NotImplemented": "typeinfo for course::NotImplemented",
            "std::vector<float, std::allocator<float> >::~vector()": "std::vector<>::~vector",
            "course::lesson05::(anonymous namespace)::blocks<int>()::cache":
                "course::lesson05::(anonymous namespace)::blocks<>",
            "operator new(unsigned long)": "operator new",
        }
        for demangled, outer in cases.items():
            with self.subTest(demangled):
                self.assertEqual(course_integrity.outer_name(demangled), outer)

    def test_command_line(self):
        obj = compile_object(REFUSED[0][1], self.tmp.name, "cli")
        script = os.path.join(HERE, "..", "..", "cmake", "course_integrity.py")
        run = lambda *extra: subprocess.run(  # noqa: E731
            [sys.executable, script, "--lesson", "02", *extra, obj], capture_output=True,
            text=True)
        refused = run()
        self.assertEqual(refused.returncode, 1, refused.stdout)
        self.assertIn("clock_gettime", refused.stdout)
        self.assertEqual(run("--expect-denied").returncode, 0)
        missing = subprocess.run([sys.executable, script, "--lesson", "02", "/no/such.o"],
                                 capture_output=True, text=True)
        self.assertEqual(missing.returncode, 1)
        self.assertIn("did it build", missing.stdout)
        bad = subprocess.run([sys.executable, script, "--lesson", "2", obj], capture_output=True,
                             text=True)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("two digits", bad.stderr)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    args, rest = parser.parse_known_args()
    CXX = args.cxx
    unittest.main(argv=[sys.argv[0], *rest])
