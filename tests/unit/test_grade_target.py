#!/usr/bin/env python3
"""The README's first command grades every lesson that builds; `grade-NN` grades one alone.

    python3 tests/unit/test_grade_target.py [--course-build BUILD]
                                                (CTest: unit/grade_target, labels unit;cpu)

A course in miniature, in a scratch directory: this repository's CMakePresets.json, the grader
(tools/grade.py, its package tools/course_grade/ and tools/safe_output.py), the grade targets'
module (cmake/CourseGrade.cmake, its CTestCustom.cmake.in and course_gpu_notice.py), and two
lessons of plain C++ (the host compiler builds them in seconds), each with a README grading
table, a test program lessonNN_test_student and a demo, and rows registered as
cmake/CourseLesson.cmake registers them (REQUIRED_FILES, SKIP_RETURN_CODE 77). A row prints
"[course] gpu: ..." and passes, or, with TOY_NO_GPU=1, "[course] SKIPPED: ..." and exits 77.
Then, as a student would:

1. lesson 02 does not compile: `cmake --workflow --preset grade` prints the scoreboard, lesson 01
   graded and lesson 02 NOT BUILT with the compiler's first error, and fails, saying why;
2. lesson 02 fixed and graded, then broken again: `tools/grade.py --lessons 02` without a build
   shows it NOT BUILT (out of date) and never runs its old program;
3. `cmake --build build/student --target grade-01`, lesson 02 still broken: lesson 01 alone is
   built and graded;
4. without a GPU, plain `ctest` ends with the notice that no kernel was checked and where to
   grade on a GPU; with one, or for `ctest --show-only=json-v1`, it prints nothing more.

With --course-build (the course's own configured build, as CTest passes it), that build's
`grade` target depends on no lesson (a compile error in one must not stop the scoreboard), runs
the grader with --build, and there is a `grade-NN` for every lesson.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parents[2]
COURSE_BUILD: Optional[Path] = None

TOY_CMAKE = """\
cmake_minimum_required(VERSION 3.25)
project(cuda_course LANGUAGES CXX)
list(APPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_SOURCE_DIR}/cmake")
find_package(Python3 COMPONENTS Interpreter)
enable_testing()
include(CourseGrade)
function(toy_lesson number dir source)
  foreach(kind test demo)
    add_executable(lesson${number}_${kind}_student lessons/${dir}/${source})
  endforeach()
  set(exe $<TARGET_FILE:lesson${number}_test_student>)
  foreach(row IN ITEMS a.correct a.speed)
    add_test(NAME lesson${number}/student/${row} COMMAND ${exe} ${row})
    set_tests_properties(lesson${number}/student/${row} PROPERTIES REQUIRED_FILES "${exe}"
                         SKIP_RETURN_CODE 77 LABELS "lesson${number};student;gpu")
  endforeach()
endfunction()
toy_lesson(01 01_alpha alpha.cpp)
toy_lesson(02 02_beta beta.cpp)
course_add_grade_targets(LESSONS 01 02)
"""

TOY_README = """\
# Lesson {number}

<!-- grading:begin -->
| test | kind | what it checks | threshold | points |
|---|---|---|---|---|
| `a.correct` | exercise | matches the reference | — | 2 |
| `a.speed` | exercise | fast | ≥ 0.5 (plausible ≤ 1.2) | 1 |
<!-- grading:end -->
"""

TOY_ROWS = """\
#include <cstdio>
#include <cstdlib>
int main() {
  if (std::getenv("TOY_NO_GPU")) {
    std::puts("[course] SKIPPED: no NVIDIA driver is installed (toy)");
    return 77;
  }
  std::puts("[course] gpu: Toy GPU (cc 9.0)");
  return 0%s
}
"""
FIXED, BROKEN = ";", ""  # the last statement's ';', or the student's missing one


def run(command, cwd: Path, env: Optional[dict] = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False,
                          timeout=300)


class ToyCourse(unittest.TestCase):
    """One scratch course for every test of this class, built as the steps go."""

    @classmethod
    def setUpClass(cls) -> None:
        cls._tmp = tempfile.TemporaryDirectory(prefix="course-grade-target-")
        cls.src = Path(cls._tmp.name) / "course"
        grader = [str(path.relative_to(REPO)) for path in (REPO / "tools/course_grade").glob("*.py")]
        for name in ("CMakePresets.json", "tools/grade.py", *grader, "tools/safe_output.py",
                     "cmake/CourseGrade.cmake", "cmake/CTestCustom.cmake.in",
                     "cmake/course_gpu_notice.py"):
            (cls.src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, cls.src / name)
        (cls.src / "CMakeLists.txt").write_text(TOY_CMAKE, encoding="utf-8")
        for number, directory in (("01", "01_alpha"), ("02", "02_beta")):
            lesson = cls.src / "lessons" / directory
            lesson.mkdir(parents=True)
            (lesson / "README.md").write_text(TOY_README.format(number=number), encoding="utf-8")
        cls.write_lesson("01", FIXED)
        cls.write_lesson("02", BROKEN)
        cls.build = cls.src / "build" / "student"
        cls.env = {key: value for key, value in os.environ.items()
                   if key not in ("TOY_NO_GPU", "COURSE_CPU_ONLY", "CMAKE_BUILD_PARALLEL_LEVEL")}

    @classmethod
    def tearDownClass(cls) -> None:
        cls._tmp.cleanup()

    @classmethod
    def write_lesson(cls, number: str, end: str) -> None:
        name = {"01": "01_alpha/alpha.cpp", "02": "02_beta/beta.cpp"}[number]
        path = cls.src / "lessons" / name
        path.write_text(TOY_ROWS % end, encoding="utf-8")

    def check(self, proc: subprocess.CompletedProcess, code: Optional[int] = 0) -> str:
        text = proc.stdout + proc.stderr
        if code is not None:
            self.assertEqual(proc.returncode, code, text[-3000:])
        return text

    def test_1_a_broken_lesson_leaves_the_others_graded(self) -> None:
        proc = run(["cmake", "--workflow", "--preset", "grade"], self.src, self.env)
        text = self.check(proc, code=None)
        self.assertNotEqual(proc.returncode, 0, "the workflow must fail when a lesson did not build")
        self.assertRegex(text, r"01\s+a\.correct\s+exercise\s+PASS .* 2/2")
        self.assertRegex(text, r"02\s+a\.correct\s+exercise\s+NOT BUILT .* 0/2")
        self.assertRegex(text, r"↳ not built: lessons/02_beta/beta\.cpp:\d+:\d+: error: expected .;.")
        self.assertIn("Total: 3/6", text)
        self.assertIn("grade.py: the build failed: lesson 02 did not build", text)

    def test_2_a_program_older_than_its_source_is_not_graded(self) -> None:
        self.write_lesson("02", FIXED)
        text = self.check(run(["cmake", "--build", str(self.build), "--target", "grade"], self.src,
                              self.env))
        self.assertIn("Total: 6/6", text)
        self.write_lesson("02", BROKEN)  # edited, not built: the old program is stale
        log = self.build / "grade-ctest.log"
        log.unlink()
        text = self.check(run([sys.executable, "tools/grade.py", "--build-dir", "build/student",
                               "--lessons", "02", "--color", "never"], self.src, self.env))
        self.assertRegex(text, r"02\s+a\.correct\s+exercise\s+NOT BUILT .* 0/2")
        self.assertIn("↳ out of date: beta.cpp changed since the test program was built", text)
        self.assertFalse(log.exists(), "the stale program was run")

    def test_3_one_lesson_alone(self) -> None:
        proc = run(["cmake", "--build", str(self.build), "--target", "grade-01"], self.src, self.env)
        text = self.check(proc)
        self.assertIn("Lesson 01", text)
        self.assertNotIn("Lesson 02", text)
        self.assertIn("Total: 3/3", text)
        built = (self.build / "grade-build.log").read_text(encoding="utf-8")
        self.assertIn("--target lesson01_test_student lesson01_demo_student", built)
        self.assertNotIn("beta.cpp", built)  # lesson 02 was neither built nor tried

    def test_4_ctest_says_when_no_kernel_was_checked(self) -> None:
        no_gpu = dict(self.env, TOY_NO_GPU="1")
        text = self.check(run(["ctest", "--test-dir", "build/student", "-R", "lesson01"], self.src,
                              no_gpu))
        self.assertIn("100% tests passed", text)  # CTest's words: skipped counts as passed
        self.assertIn("[course] No kernel was checked: no test of this run had a GPU, and the 2 "
                      "tests that need one were skipped", text)
        self.assertIn("(no NVIDIA driver is installed (toy))", text)
        self.assertIn("a lab machine with a GPU", text)
        self.assertIn("srun --gres=gpu:1 python3 tools/grade.py --build-dir build/student", text)
        text = self.check(run(["ctest", "--test-dir", "build/student", "-R", "lesson01"], self.src,
                              self.env))
        self.assertNotIn("No kernel was checked", text)
        shown = run(["ctest", "--test-dir", "build/student", "--show-only=json-v1"], self.src, no_gpu)
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertEqual(len(json.loads(shown.stdout)["tests"]), 4)


class CourseBuild(unittest.TestCase):
    """The course's own build: its grade targets are the ones tested above."""

    def setUp(self) -> None:
        if COURSE_BUILD is None:
            self.skipTest("no --course-build given")

    def test_grade_depends_on_no_lesson(self) -> None:
        ninja = shutil.which("ninja")
        if ninja is None or not (COURSE_BUILD / "build.ninja").is_file():
            self.skipTest("the course build is not a Ninja build")
        query = run([ninja, "-C", str(COURSE_BUILD), "-t", "query", "grade", "grade-01"], COURSE_BUILD)
        self.assertEqual(query.returncode, 0, query.stderr)
        self.assertNotRegex(query.stdout, r"lesson\d\d_(test|demo)_student",
                            "the grade target depends on a lesson: one compile error stops it")
        commands = run([ninja, "-C", str(COURSE_BUILD), "-t", "commands", "grade"], COURSE_BUILD)
        self.assertRegex(commands.stdout, r"tools/grade\.py .*--build\b")
        custom = (COURSE_BUILD / "CTestCustom.cmake").read_text(encoding="utf-8")
        self.assertIn("course_gpu_notice.py", custom)


def main() -> int:
    global COURSE_BUILD
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--course-build", type=Path, help="the course's configured build tree")
    args, rest = parser.parse_known_args()
    COURSE_BUILD = args.course_build.resolve() if args.course_build else None
    program = unittest.main(argv=[sys.argv[0], *rest], verbosity=2, exit=False)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
