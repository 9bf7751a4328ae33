#!/usr/bin/env python3
"""Unit tests for tools/grade.py (the course scoreboard).

Run from the repository root:  python3 tests/unit/test_grade.py

Every test builds its own fake course tree (lessons/NN_name/README.md) and a
fake CTest JUnit file in a temporary directory; nothing needs CUDA or ctest.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path
from typing import List, Optional, Tuple
from unittest import mock

REPO_ROOT = Path(__file__).resolve().parents[2]
GRADE_PY = REPO_ROOT / "tools" / "grade.py"


def load_grade_module():
    spec = importlib.util.spec_from_file_location("grade", GRADE_PY)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["grade"] = module  # dataclasses look the module up by name
    spec.loader.exec_module(module)
    return module


grade = load_grade_module()

README_02 = textwrap.dedent("""\
    # Lesson 02: transpose

    Some prose | with a pipe that is not part of the table.

    <!-- grading:begin -->
    | test | kind | what it checks | threshold | points |
    |---|---|---|---|---|
    | `table.correct` | given | bit pattern vs double reference, all sizes | — | 2 |
    | `table.speed` | given | share of device copy bandwidth (write-only) | ≥ 0.40 | 1 |
    | `tiled.correct` | exercise | bit-exact on all shapes | — | 3 |
    | `tiled.speed` | exercise | share of device copy bandwidth | ≥ 0.35 | 2 |
    | `vectorized.speed` | stretch | share of device copy bandwidth | ≥ 0.60 | 2 |
    | `launcher.bad_arguments` | given | invalid_argument on bad input | — | 1 |
    <!-- grading:end -->

    | not | graded |
    |---|---|
    | `ignored.row` | 99 |
    """)

README_01 = textwrap.dedent("""\
    <!-- grading:begin -->
    | test | kind | what it checks | threshold | points |
    |---|---|---|---|---|
    | `poly.correct` | exercise | matches the reference | — | 3 |
    | `poly.speed` | exercise | faster than global memory | ≥ 1.5x | 2 |
    <!-- grading:end -->
    """)

GPU_LINES = (
    "[course] gpu: NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs, 50 MB L2)\n"
    "[course] seed: 1234567\n"
    "[course] ceiling: device copy = 2950.1 GB/s\n"
)

DIFFER_LINE = ("tiled.correct 8192x8192 seed 42: 3 of 67108864 elements differ; "
               "first at (row 3, col 17): expected 1.5, got nan")

# What test_main.cpp prints when the code under test calls exit(), and what doctest prints for
# a CUDA_CHECK that caught an illegal address.
ENDED_EARLY = ("[course] gpu: NVIDIA H100\n"
               "[course] FAILED: the process ended before the tests finished (exit() called?)\n")
ILLEGAL_ADDRESS = ("[course] seed: 5\n"
                   "/src/tests/01_constant_memory/test_constant_memory.cpp:155: ERROR: test case THREW "
                   "exception: CUDA error cudaErrorIllegalAddress (an illegal memory access was "
                   "encountered) in cudaDeviceSynchronize() at t.cpp:61\n")

# Fields of Gradescope's results.json as its autograder specification documents them
# (https://gradescope-autograders.readthedocs.io/en/latest/specs/): name -> allowed types.
GRADESCOPE_TOP = {"score": (int, float), "execution_time": (int,), "output": (str,),
                  "output_format": (str,), "test_output_format": (str,), "test_name_format": (str,),
                  "visibility": (str,), "stdout_visibility": (str,), "extra_data": (dict,),
                  "tests": (list,), "leaderboard": (list,)}
GRADESCOPE_TEST = {"score": (int, float), "max_score": (int, float), "status": (str,),
                   "name": (str,), "name_format": (str,), "number": (str,), "output": (str,),
                   "output_format": (str,), "tags": (list,), "visibility": (str,),
                   "extra_data": (dict,)}
GRADESCOPE_VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
GRADESCOPE_STATUS = {"passed", "failed"}


def gradescope_problems(data: object) -> List[str]:
    """Everything in a results.json that Gradescope's specification does not allow."""
    problems: List[str] = []

    def check_fields(obj: dict, spec: dict, where: str) -> None:
        for key, value in obj.items():
            if key not in spec:
                problems.append(f"{where}: unknown field {key!r}")
            elif isinstance(value, bool) or not isinstance(value, spec[key]):
                problems.append(f"{where}: {key} is a {type(value).__name__}")
        if "visibility" in obj and obj["visibility"] not in GRADESCOPE_VISIBILITY:
            problems.append(f"{where}: visibility {obj['visibility']!r}")

    if not isinstance(data, dict):
        return ["the top level is not an object"]
    check_fields(data, GRADESCOPE_TOP, "results")
    tests = data.get("tests", [])
    if "score" not in data and not all(isinstance(t, dict) and "score" in t for t in tests):
        problems.append("no score: neither the top level nor every test has one")
    if isinstance(data.get("execution_time"), int) and data["execution_time"] < 0:
        problems.append("execution_time is negative")
    for index, test in enumerate(tests if isinstance(tests, list) else []):
        where = f"tests[{index}]"
        if not isinstance(test, dict):
            problems.append(f"{where} is not an object")
            continue
        check_fields(test, GRADESCOPE_TEST, where)
        if "status" in test and test["status"] not in GRADESCOPE_STATUS:
            problems.append(f"{where}: status {test['status']!r}")
        if "name" not in test:
            problems.append(f"{where}: no name")
        if isinstance(test.get("score"), (int, float)) and isinstance(test.get("max_score"), (int, float)) \
                and test["max_score"] > 0 and test["score"] > test["max_score"]:
            problems.append(f"{where}: score above max_score")
    return problems


def testcase(name: str, status: Optional[str] = "run", time: str = "0.5",
             children: str = "", output: str = "") -> str:
    status_attr = f' status="{status}"' if status is not None else ""
    out = f"<system-out>{xml_escape(output)}</system-out>" if output else ""
    return (f'<testcase name="{name}" classname="{name}" time="{time}"{status_attr}>'
            f"{children}{out}</testcase>\n")


def xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def junit(cases: List[str]) -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<testsuite name="(empty)" tests="{len(cases)}">\n' + "".join(cases) + "</testsuite>\n")


MIXED_CASES = [
    testcase("lesson02/student/table.correct", output=GPU_LINES),
    testcase("lesson02/student/table.speed",
             output=GPU_LINES + "[course] result: table.speed: time 0.300 ms, share 0.91 of device copy\n"),
    testcase("lesson02/student/tiled.correct", status="fail", children='<failure message=""/>',
             output=GPU_LINES + "/home/s/t.cu:42: ERROR: CHECK( ok ) is NOT correct!\n" + DIFFER_LINE + "\n"),
    testcase("lesson02/student/tiled.speed",
             output="[course] ceiling: device copy = 9999 GB/s\n"
                    "[course] ceiling: L2 read = 7000.0 GB/s\n"
                    "[course] result: tiled.speed: time 0.512 ms, speedup 3.10x over naive, "
                    "share 0.83 of device copy\n"),
    testcase("lesson02/student/vectorized.speed", status="fail", time="30.02",
             children='<failure message="Timeout"/>', output=GPU_LINES),
    testcase("lesson02/student/launcher.bad_arguments", status="fail",
             children='<failure message="SEGFAULT"/>'),
    testcase("lesson01/student/poly.correct", status="fail", children='<failure message=""/>',
             output="ERROR: something\nERROR: test case THREW exception: not implemented: poly\n"),
    # poly.speed is absent: NOT RUN.
    testcase("lesson01/student/extra.check", output=GPU_LINES),
]


class FakeCourse:
    """A temporary source tree with two lessons and a build dir."""

    def __init__(self, root: Path) -> None:
        self.source = root / "src"
        self.build = root / "build"
        self.build.mkdir(parents=True)
        for name, text in (("01_constant_memory", README_01), ("02_transpose", README_02)):
            lesson = self.source / "lessons" / name
            lesson.mkdir(parents=True)
            (lesson / "README.md").write_text(text, encoding="utf-8")
        (self.source / "lessons" / "notes").mkdir()  # not a lesson directory

    def configure(self, lessons: str = "", project: str = "cuda_course",
                  source: Optional[Path] = None) -> None:
        """Make the build directory look like a configured CMake build of the course."""
        (self.build / "CMakeCache.txt").write_text(
            "# This is the CMakeCache file.\n"
            f"CMAKE_PROJECT_NAME:STATIC={project}\n"
            f"{project}_SOURCE_DIR:STATIC={source or self.source}\n"
            f"COURSE_LESSONS:STRING={lessons}\n", encoding="utf-8")
        (self.build / "CTestTestfile.cmake").write_text("# CMake generated\n", encoding="utf-8")

    def write_junit(self, cases: List[str], name: str = "grade-junit.xml") -> Path:
        path = self.build / name
        path.write_text(junit(cases), encoding="utf-8")
        return path

    def grade(self, *extra: str, env: Optional[dict] = None) -> Tuple[int, str, str]:
        """Run grade.main in-process with --no-run; return (exit code, stdout, stderr)."""
        out, err = io.StringIO(), io.StringIO()
        argv = ["--build-dir", str(self.build), "--source-dir", str(self.source), "--no-run", *extra]
        with mock.patch.dict(os.environ, env or {}, clear=False), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = grade.main(argv)
            except SystemExit as exit_:  # argparse usage errors
                code = int(exit_.code or 0)
        return code, out.getvalue(), err.getvalue()


class CourseTestCase(unittest.TestCase):
    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory()
        self.course = FakeCourse(Path(self._tmp.name))

    def tearDown(self) -> None:
        self._tmp.cleanup()

    def row_line(self, text: str, test: str) -> str:
        for line in text.splitlines():
            cells = line.split()
            if len(cells) > 1 and cells[1] == test:
                return line
        self.fail(f"no scoreboard row for {test}:\n{text}")


class ReadmeParsing(unittest.TestCase):
    def test_points_kinds_and_thresholds(self) -> None:
        tests, warnings = grade.parse_grading_table(README_02, "README.md")
        self.assertEqual(warnings, [])
        self.assertEqual([t.name for t in tests],
                         ["table.correct", "table.speed", "tiled.correct", "tiled.speed",
                          "vectorized.speed", "launcher.bad_arguments"])
        self.assertEqual([t.points for t in tests], [2, 1, 3, 2, 2, 1])
        self.assertEqual(tests[4].kind, "stretch")
        self.assertEqual(tests[3].threshold, "≥ 0.35")
        self.assertEqual(tests[0].threshold, "—")

    def test_bad_rows_become_warnings(self) -> None:
        text = textwrap.dedent("""\
            <!-- grading:begin -->
            | test | kind | what it checks | threshold | points |
            |---|---|---|---|---|
            | `ok.correct` | given | fine | — | 2 |
            | `Bad-Name` | given | bad name | — | 1 |
            | `x.speed` | homework | bad kind | — | 1 |
            | `y.speed` | given | bad points | — | two |
            | `ok.correct` | given | duplicate | — | 5 |
            <!-- grading:end -->
            """)
        tests, warnings = grade.parse_grading_table(text, "R")
        self.assertEqual([(t.name, t.points) for t in tests], [("ok.correct", 2)])
        self.assertEqual(len(warnings), 4)

    def test_missing_markers(self) -> None:
        tests, warnings = grade.parse_grading_table("# nothing here\n", "R")
        self.assertEqual(tests, [])
        self.assertIn("no grading table", warnings[0])

    def test_lesson_numbers(self) -> None:
        self.assertEqual(grade.normalize_lessons(["1", "02", "lesson03", "02"]), ["01", "02", "03"])
        with self.assertRaises(grade.UsageError):
            grade.normalize_lessons(["transpose"])


class ReasonExtraction(unittest.TestCase):
    def test_not_implemented_wins(self) -> None:
        output = ("t.cu:10: ERROR: CHECK( a ) is NOT correct!\n"
                  "ERROR: test case THREW exception: not implemented: tiled\n")
        self.assertEqual(grade.first_reason(output), "not implemented")

    def test_differ_line_before_error(self) -> None:
        output = "t.cu:10: ERROR: CHECK( a ) is NOT correct!\n" + DIFFER_LINE + "\n"
        self.assertEqual(grade.first_reason(output), DIFFER_LINE)

    def test_first_error_line_path_shortened(self) -> None:
        output = ("[course] gpu: X\n"
                  "/home/student/course/lessons/02_transpose/tests/t.cu:42: ERROR: CHECK( a ) is NOT correct!\n"
                  "ERROR: second\n")
        self.assertEqual(grade.first_reason(output), "t.cu:42: ERROR: CHECK( a ) is NOT correct!")

    def test_cuda_error_and_threw(self) -> None:
        self.assertEqual(grade.first_reason("x\nCUDA error: illegal address\n"), "CUDA error: illegal address")
        self.assertEqual(grade.first_reason("a\nCudaError 700 at k.cu:3\n"), "CudaError 700 at k.cu:3")
        self.assertEqual(grade.first_reason("TEST CASE THREW exception: bad_alloc\n"),
                         "TEST CASE THREW exception: bad_alloc")

    def test_doctest_report_as_the_harness_prints_it(self) -> None:
        # COURSE_CHECK_MATCH: doctest's ERROR line, then the compare report over two lines.
        output = ("/src/tests/02_transpose/test_transpose.cpp:88: ERROR: CHECK( course_cmp_.ok ) is NOT correct!\n"
                  "  values: CHECK( false )\n"
                  "  logged: tiled 33x17 uniform input, seed 812: 3 of 561 elements differ; first:\n"
                  "  at (row 0, col 32): expected 0.25, got nan\n"
                  "  at (row 1, col 32): expected 0.5, got nan\n")
        self.assertEqual(grade.first_reason(output),
                         "tiled 33x17 uniform input, seed 812: 3 of 561 elements differ; "
                         "first at (row 0, col 32): expected 0.25, got nan")
        # COURSE_CHECK_SPEED: the message says by how much the threshold was missed.
        output = ("t.cpp:99: ERROR: CHECK( course_best_.value(graded) >= course_need_ ) is NOT correct!\n"
                  "  values: CHECK( false )\n"
                  "  logged: padded.speed: speedup 1.05x over tiled is below the threshold 1.3\n")
        self.assertEqual(grade.first_reason(output),
                         "padded.speed: speedup 1.05x over tiled is below the threshold 1.3")

    def test_cut_to_160_chars(self) -> None:
        reason = grade.first_reason("ERROR: " + "x" * 500)
        self.assertEqual(len(reason), 160)

    def test_nothing_found(self) -> None:
        self.assertIsNone(grade.first_reason("all good\n"))

    def test_measurement_fields_independent(self) -> None:
        m = grade.parse_measurement(
            "[course] result: other.speed: time 9.9 ms\n"
            "[course] result: tiled.speed: speedup 3.10x over naive, share 0.83 of device copy\n",
            "tiled.speed")
        self.assertEqual((m.time_ms, m.speedup, m.share), (None, "3.10", "0.83"))
        m = grade.parse_measurement("[course] result: tiled.speed: time 0.512 ms\n", "tiled.speed")
        self.assertEqual((m.time_ms, m.speedup, m.share), ("0.512", None, None))


class StatusMapping(unittest.TestCase):
    def classify(self, case_xml: str, log: str = ""):
        root = grade.ET.fromstring(junit([case_xml]))
        (result,) = grade.parse_results(root, grade.parse_ctest_log(log))
        return result

    def test_statuses(self) -> None:
        name = "lesson02/student/tiled.correct"
        cases = {
            "PASS": testcase(name),
            "PASS ": testcase(name, status=None),
            "FAIL": testcase(name, status="fail", children='<failure message=""/>', output="ERROR: x\n"),
            "FAIL ": testcase(name, status=None, children='<failure message="Failed"/>'),
            "SKIP": testcase(name, status="notrun", children='<skipped message="SKIP_RETURN_CODE=77"/>'),
            "SKIP ": testcase(name, status=None, children='<skipped message="x"/>'),
            "SKIP  ": testcase(name, status="disabled", output="Disabled"),
            "TIMEOUT": testcase(name, status="fail", children='<failure message="Timeout"/>'),
            "CRASH": testcase(name, status="fail", children='<failure message="Subprocess aborted"/>'),
            "CRASH ": testcase(name, status="fail", children='<failure message="Exception: SegFault"/>'),
        }
        for expected, case_xml in cases.items():
            with self.subTest(expected=expected):
                self.assertEqual(self.classify(case_xml).status, expected.strip())

    def test_ctest_log_gives_timeout_and_crash(self) -> None:
        log = ("The following tests FAILED:\n"
               "\t  4 - lesson02/student/tiled.speed (Timeout)\n"
               "\t  5 - lesson02/student/tiled.correct (SEGFAULT)\n"
               "\t  6 - lesson02/student/table.correct (Failed)\n")
        empty = '<failure message=""/>'
        timeout = self.classify(testcase("lesson02/student/tiled.speed", status="fail", time="12.0",
                                         children=empty), log)
        self.assertEqual((timeout.status, timeout.reason), ("TIMEOUT", "timed out after 12.0 s"))
        crash = self.classify(testcase("lesson02/student/tiled.correct", status="fail", children=empty), log)
        self.assertEqual((crash.status, crash.reason), ("CRASH", "crashed (SEGFAULT)"))
        plain = self.classify(testcase("lesson02/student/table.correct", status="fail", children=empty,
                                       output="ERROR: wrong\n"), log)
        self.assertEqual((plain.status, plain.reason), ("FAIL", "ERROR: wrong"))

    def test_skip_reasons(self) -> None:
        course_line = "[course] SKIPPED: no usable CUDA device (cudaErrorNoDevice)\n"
        result = self.classify(testcase("lesson02/student/tiled.correct", status="notrun",
                                        children='<skipped message="SKIP_RETURN_CODE=77"/>',
                                        output=course_line))
        self.assertEqual(result.reason, "no usable CUDA device (cudaErrorNoDevice)")
        result = self.classify(testcase("lesson02/student/tiled.correct", status="notrun",
                                        children='<skipped message="Disabled"/>', output="Disabled"))
        self.assertEqual((result.status, result.reason), ("SKIP", "Disabled"))

    def test_not_built(self) -> None:
        # CTest's words when the lesson did not compile, so the test program is missing.
        result = self.classify(testcase("lesson02/student/tiled.correct", status="notrun",
                                        children='<skipped message="Unable to find executable"/>',
                                        output="Unable to find executable: /b/lesson02_tests"))
        self.assertEqual(result.status, "NOT BUILT")
        self.assertIn("not built", result.reason)
        # A row run through the row runner names its program as a required file.
        result = self.classify(testcase("lesson02/student/tiled.correct", status="notrun",
                                        children='<skipped message="Required Files Missing"/>',
                                        output="Unable to find required file: /b/lesson02_tests"))
        self.assertEqual(result.status, "NOT BUILT")

    def test_exit_cuda_error_and_crash_reasons(self) -> None:
        name = "lesson01/student/poly_constant.correct"
        empty = '<failure message=""/>'
        ended = self.classify(testcase(name, status="fail", children=empty, output=ENDED_EARLY))
        self.assertEqual(ended.status, "EXIT")
        self.assertIn("exit() called", ended.reason)
        cuda = self.classify(testcase(name, status="fail", children=empty, output=ILLEGAL_ADDRESS))
        self.assertEqual(cuda.status, "CUDA ERROR")
        self.assertIn("cudaErrorIllegalAddress", cuda.reason)
        crash = self.classify(testcase(name, status="fail", children=empty, output=ILLEGAL_ADDRESS),
                              "\t  1 - lesson01/student/poly_constant.correct (Subprocess aborted)\n")
        self.assertEqual(crash.status, "CRASH")
        self.assertTrue(crash.reason.startswith("crashed (Subprocess aborted): "), crash.reason)
        self.assertIn("cudaErrorIllegalAddress", crash.reason)
        # A wrong result that merely mentions CUDA in its compare line stays a plain failure.
        plain = self.classify(testcase(name, status="fail", children=empty, output=DIFFER_LINE + "\n"))
        self.assertEqual(plain.status, "FAIL")

    def test_failure_reason_gets_seed(self) -> None:
        result = self.classify(testcase("lesson02/student/tiled.correct", status="fail",
                                        output="[course] seed: 77\nERROR: wrong value\n"))
        self.assertEqual(result.reason, "ERROR: wrong value (seed 77)")


class ScoreboardOutput(CourseTestCase):
    def test_rows_totals_and_reasons(self) -> None:
        self.course.write_junit(MIXED_CASES)
        code, out, err = self.course.grade("--color", "never")
        self.assertEqual(code, 0, err)
        self.assertIn("GPU: NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs, 50 MB L2)", out)
        self.assertIn("ceilings: device copy = 2950.1 GB/s; L2 read = 7000.0 GB/s", out)
        self.assertRegex(self.row_line(out, "table.speed"), r"PASS\s+0\.300 ms\s+-\s+0\.91\s+1/1$")
        self.assertRegex(self.row_line(out, "tiled.speed"), r"PASS\s+0\.512 ms\s+3\.10x\s+0\.83\s+2/2$")
        self.assertRegex(self.row_line(out, "tiled.correct"), r"FAIL .* 0/3$")
        self.assertRegex(self.row_line(out, "vectorized.speed"), r"stretch\s+TIMEOUT .* 0/2$")
        self.assertRegex(self.row_line(out, "launcher.bad_arguments"), r"CRASH .* 0/1$")
        self.assertRegex(self.row_line(out, "poly.speed"), r"NOT RUN .* 0/2$")
        self.assertRegex(self.row_line(out, "extra.check"), r"\?\s+PASS .* \?$")
        self.assertIn("↳ " + DIFFER_LINE + "\n", out)
        self.assertIn("↳ not implemented\n", out)
        self.assertIn("↳ timed out after 30.0 s\n", out)
        self.assertIn("↳ crashed (SEGFAULT)\n", out)
        self.assertIn("subtotal: 0/5 · 0.5 s\n", out)            # lesson 01, with its time
        self.assertIn("subtotal: 5/9 (+bonus 0/2) · 32.5 s\n", out)  # lesson 02
        self.assertIn("Total: 5/14 (+bonus 0/2)\n", out)
        self.assertIn("warning: lesson01/student/extra.check: not in any README", out)
        self.assertNotIn("No GPU was usable", out)

    def test_columns_aligned(self) -> None:
        self.course.write_junit(MIXED_CASES)
        _, out, _ = self.course.grade("--color", "never")
        table = out.split("Lesson 02")[1].split("subtotal")[0].splitlines()[1:]
        header, rows = table[0], [line for line in table[1:] if line.strip() and "↳" not in line]
        self.assertEqual(len(rows), 6)
        for column in ("test", "status", "time", "speedup", "share", "points"):
            start = header.index(f"  {column}") + 2
            for line in rows:
                self.assertEqual(line[start - 2:start], "  ", f"{column!r} misaligned in {line!r}")
                self.assertNotEqual(line[start], " ", f"{column!r} misaligned in {line!r}")

    def test_bonus_counts_separately(self) -> None:
        cases = [testcase(f"lesson02/student/{name}") for name in
                 ("table.correct", "table.speed", "tiled.correct", "tiled.speed", "vectorized.speed",
                  "launcher.bad_arguments")]
        self.course.write_junit(cases)
        code, out, _ = self.course.grade("--lessons", "02")
        self.assertEqual(code, 0)
        self.assertIn("Total: 9/9 (+bonus 2/2)\n", out)
        self.assertNotIn("Lesson 01", out)

    def test_all_skipped_says_no_gpu(self) -> None:
        skipped = '<skipped message="SKIP_RETURN_CODE=77"/>'
        line = "[course] SKIPPED: no usable CUDA device (cudaErrorNoDevice: no CUDA-capable device)\n"
        cases = [testcase(f"lesson02/student/{name}", status="notrun", children=skipped, output=line)
                 for name in ("table.correct", "tiled.correct")]
        self.course.write_junit(cases)
        code, out, _ = self.course.grade("--lessons", "02", "--all-rows")
        self.assertEqual(code, 0)
        self.assertIn("GPU: none usable", out)
        self.assertRegex(self.row_line(out, "tiled.correct"), r"SKIP .* 0/3$")
        self.assertIn("\nNo GPU was usable, so no kernel was checked: every GPU test was skipped "
                      "(no usable CUDA device (cudaErrorNoDevice: no CUDA-capable device)).\n"
                      "To check your kernels, grade on a machine with an NVIDIA GPU", out)

    def test_no_gpu_with_cpu_tests_passing(self) -> None:
        # Without a GPU the CPU tests pass and every GPU test says why it was skipped (--all-rows).
        skipped = '<skipped message="SKIP_RETURN_CODE=77"/>'
        line = "[course] SKIPPED: no usable CUDA device (cudaErrorNoDevice)\n"
        cases = [testcase(f"lesson02/student/{name}", status="notrun", children=skipped, output=line)
                 for name in ("table.correct", "tiled.correct", "tiled.speed")]
        cases.append(testcase("lesson02/student/launcher.bad_arguments", output="[course] seed: 1\n"))
        self.course.write_junit(cases)
        _, out, _ = self.course.grade("--lessons", "02", "--color", "never", "--all-rows")
        self.assertEqual(out.count("↳ no usable CUDA device (cudaErrorNoDevice)"), 3)
        self.assertRegex(self.row_line(out, "launcher.bad_arguments"), r"PASS .* 1/1$")
        self.assertIn("No GPU was usable, so no kernel was checked: every GPU test was skipped", out)

    def no_gpu_run(self, reason: str) -> List[str]:
        """Every GPU test of both lessons skipped with reason; the CPU rows pass."""
        skipped = '<skipped message="SKIP_RETURN_CODE=77"/>'
        cases = [testcase(f"lesson{lesson}/student/{name}", status="notrun", children=skipped,
                          output=f"[course] SKIPPED: {reason}\n")
                 for lesson, names in (("01", ("poly.correct", "poly.speed")),
                                       ("02", ("table.correct", "table.speed", "tiled.correct",
                                               "tiled.speed", "vectorized.speed")))
                 for name in names]
        cases.append(testcase("lesson02/student/launcher.bad_arguments"))
        cases.append(testcase("lesson02/student/integrity"))
        return cases

    def test_no_gpu_scoreboard_is_short(self) -> None:
        reason = ("no NVIDIA driver is installed (libcuda.so.1 is missing, or only a stub), so no "
                  "kernel can run on this machine")
        self.course.write_junit(self.no_gpu_run(reason))
        code, out, _ = self.course.grade("--color", "never")
        self.assertEqual(code, 0)
        lines = out.rstrip().splitlines()
        self.assertIn("GPU: none usable", lines)
        # One line per lesson, no row of its own for a skipped test, the reason exactly once.
        self.assertRegex(out, r"\n  01 constant_memory\s+2\s+0\s+2\s+0\s+0/5\n")
        self.assertRegex(out, r"\n  02 transpose\s+7\s+2\s+5\s+0\s+1/9 \(\+bonus 0/2\)\n")
        self.assertNotIn("SKIP", out)
        self.assertNotIn("tiled.correct", out)
        self.assertEqual(out.count(reason), 1)
        self.assertIn(f"No GPU was usable, so no kernel was checked: the 7 GPU tests were skipped "
                      f"({reason}).", out)
        self.assertIn("Without a GPU you can still:", out)
        # Where to grade instead: a lab machine, a node of the class cluster (the student's own
        # command); no tools/cluster/submit.sh here (a student edition lacks it).
        self.assertIn("  - a lab machine with a GPU: the same command there;", out)
        self.assertRegex(out, r"a GPU node of the class cluster: srun --gres=gpu:1 python3 \S*grade\.py "
                              r"--build-dir \S+build\n")
        self.assertNotIn("submit.sh", out)
        self.assertIn("--all-rows", out)
        self.assertIn("Total: 1/14 (+bonus 0/2)", out)
        self.assertLess(len(lines), 25, out)

    def test_no_gpu_advice_names_the_class_cluster_tool_where_there_is_one(self) -> None:
        submit = self.course.source / "tools" / "cluster" / "submit.sh"
        submit.parent.mkdir(parents=True)
        submit.write_text("#!/bin/sh\n", encoding="utf-8")
        self.course.write_junit(self.no_gpu_run("no NVIDIA driver is installed"))
        _, out, _ = self.course.grade("--color", "never")
        self.assertIn("  - a whole class, one GPU per submission: tools/cluster/submit.sh", out)

    def test_no_gpu_scoreboard_keeps_what_the_student_must_fix(self) -> None:
        # A lesson that did not build, without a GPU: one grouped line with the compiler's error.
        cases = [case for case in self.no_gpu_run("the NVIDIA driver is installed but finds no CUDA device")
                 if "lesson01/" not in case]
        missing = '<skipped message="Unable to find executable"/>'
        cases += [testcase(f"lesson01/student/{name}", status="notrun", children=missing,
                           output="Unable to find executable: /b/lesson01_test_student")
                  for name in ("poly.correct", "poly.speed")]
        self.course.write_junit(cases)
        log = self.course.build / "build.log"
        log.write_text("/w/src/lessons/01_constant_memory/constant_memory.cu(12): error: expected a \";\"\n",
                       encoding="utf-8")
        _, out, _ = self.course.grade("--color", "never", "--build-log", str(log))
        self.assertIn("01  NOT BUILT  2 tests (poly.correct, ...): not built: "
                      "lessons/01_constant_memory/constant_memory.cu(12): error: expected a \";\"", out)
        self.assertIn("finds no CUDA device", out)
        self.assertEqual(out.count("NOT BUILT"), 1, out)  # the grouped line (the advice says "not built")

    def test_no_gpu_json_still_lists_every_test(self) -> None:
        self.course.write_junit(self.no_gpu_run("no NVIDIA driver is installed"))
        path = self.course.build / "results.json"
        self.course.grade("--json", str(path))
        data = json.loads(path.read_text(encoding="utf-8"))
        self.assertEqual(len(data["tests"]), 8 + 1)  # every README row, and the integrity check
        self.assertIn("skipped: no NVIDIA driver is installed",
                      [t["output"] for t in data["tests"] if t["name"] == "lesson02 tiled.correct"][0])

    def test_build_log_names_the_compile_error(self) -> None:
        missing = '<skipped message="Unable to find executable"/>'
        cases = [testcase("lesson01/student/poly.correct", status="notrun", children=missing,
                          output="Unable to find executable: /b/lesson01_test_student"),
                 testcase("lesson02/student/table.correct")]
        self.course.write_junit(cases)
        log = self.course.build / "build.log"
        log.write_text("[3/9] Building CUDA object common/x.o\n"
                       "/w/src/lessons/02_transpose/given.cu(3): warning: unused\n"
                       "FAILED: lessons/01_constant_memory/CMakeFiles/l.dir/constant_memory.cu.o\n"
                       "/w/src/lessons/01_constant_memory/constant_memory.cu(12): error: expected a \";\"\n"
                       "ninja: build stopped: subcommand failed.\n", encoding="utf-8")
        _, out, _ = self.course.grade("--color", "never", "--build-log", str(log))
        self.assertRegex(self.row_line(out, "poly.correct"), r"NOT BUILT .* 0/3$")
        error = 'lessons/01_constant_memory/constant_memory.cu(12): error: expected a ";"'
        self.assertIn(f"↳ not built: {error}\n", out)
        self.assertRegex(self.row_line(out, "poly.speed"), r"NOT RUN .* 0/2$")
        self.assertIn(f"↳ no result from CTest; the build says: {error}\n", out)
        self.assertIn("↳ no result from CTest for this test\n", out.split("Lesson 02")[1])
        self.assertRegex(self.row_line(out, "table.correct"), r"PASS .* 2/2$")

    def test_points_only_from_status(self) -> None:
        # A test that prints a great result but failed earns nothing; a passing one earns all.
        cases = [testcase("lesson01/student/poly.speed", status="fail", children='<failure message=""/>',
                          output="[course] result: poly.speed: speedup 99.0x\n"),
                 testcase("lesson01/student/poly.correct", output="ERROR: looks bad but passed\n")]
        self.course.write_junit(cases)
        _, out, _ = self.course.grade("--lessons", "01")
        self.assertIn("Total: 3/5\n", out)


class Colour(CourseTestCase):
    def test_no_colour_when_not_a_tty(self) -> None:
        self.course.write_junit(MIXED_CASES)
        _, out, _ = self.course.grade()  # StringIO is not a TTY
        self.assertNotIn("\033[", out)

    def test_always_and_never(self) -> None:
        self.course.write_junit(MIXED_CASES)
        _, out, _ = self.course.grade("--color", "always")
        self.assertIn("\033[32mPASS", out)
        self.assertIn("\033[31mFAIL", out)
        self.assertIn("\033[33mNOT RUN", out)
        _, out, _ = self.course.grade("--color", "never")
        self.assertNotIn("\033[", out)

    def test_auto_on_tty_respects_no_color(self) -> None:
        tty = mock.Mock(isatty=lambda: True)
        with mock.patch.dict(os.environ, {}, clear=True):
            self.assertTrue(grade.use_colour("auto", tty))
        with mock.patch.dict(os.environ, {"NO_COLOR": "1"}, clear=True):
            self.assertFalse(grade.use_colour("auto", tty))
            self.assertTrue(grade.use_colour("always", tty))
        self.assertFalse(grade.use_colour("auto", io.StringIO()))


class GradescopeJson(CourseTestCase):
    def test_fields(self) -> None:
        self.course.write_junit(MIXED_CASES)
        results = self.course.build / "results.json"
        code, out, _ = self.course.grade("--json", str(results), "--color", "always")
        self.assertEqual(code, 0)
        data = json.loads(results.read_text(encoding="utf-8"))
        self.assertEqual(set(data), {"score", "execution_time", "output", "tests"})
        self.assertEqual(data["score"], 5.0)
        self.assertIsInstance(data["score"], float)
        self.assertIsInstance(data["execution_time"], int)
        self.assertEqual(data["execution_time"], 34)  # sum of testcase times (33.52 s), rounded
        self.assertNotIn("\033[", data["output"])     # plain text even when the terminal got colour
        self.assertIn("Total: 5/14 (+bonus 0/2)", data["output"])
        tests = {t["name"]: t for t in data["tests"]}
        for test in data["tests"]:
            self.assertEqual(set(test), {"name", "score", "max_score", "status", "output", "visibility"})
            self.assertEqual(test["visibility"], "visible")
        self.assertEqual(tests["lesson02 tiled.correct"],
                         {"name": "lesson02 tiled.correct", "score": 0.0, "max_score": 3.0,
                          "status": "failed", "output": DIFFER_LINE, "visibility": "visible"})
        speed = tests["lesson02 tiled.speed"]
        self.assertEqual((speed["score"], speed["max_score"], speed["status"]), (2.0, 2.0, "passed"))
        self.assertEqual(speed["output"], "time 0.512 ms, speedup 3.10x over naive, share 0.83 of device copy")
        stretch = tests["lesson02 vectorized.speed"]
        self.assertEqual((stretch["score"], stretch["max_score"], stretch["status"]), (0.0, 0.0, "failed"))
        self.assertEqual(tests["lesson01 poly.speed"]["status"], "failed")
        self.assertEqual(tests["lesson01 poly.speed"]["max_score"], 2.0)
        self.assertEqual(gradescope_problems(data), [])

    def test_validator_rejects_what_gradescope_does_not_document(self) -> None:
        good = {"score": 1.0, "execution_time": 3, "output": "x",
                "tests": [{"name": "a", "score": 1.0, "max_score": 1.0, "status": "passed",
                           "output": "", "visibility": "visible"}]}
        self.assertEqual(gradescope_problems(good), [])
        bad = json.loads(json.dumps(good))
        bad["execution_time"] = 2.5
        bad["tests"][0].update(status="ok", visibility="public", points=3)
        del bad["tests"][0]["name"]
        problems = gradescope_problems(bad)
        for needle in ("execution_time is a float", "status 'ok'", "visibility 'public'",
                       "unknown field 'points'", "no name"):
            self.assertTrue(any(needle in p for p in problems), (needle, problems))

    def test_every_status_gives_valid_json(self) -> None:
        empty = '<failure message=""/>'
        self.course.write_junit([
            testcase("lesson01/student/poly.correct", status="fail", children=empty, output=ENDED_EARLY),
            testcase("lesson02/student/table.correct", status="fail", children=empty, output=ILLEGAL_ADDRESS),
            testcase("lesson02/student/table.speed", status="notrun",
                     children='<skipped message="Unable to find executable"/>'),
            testcase("lesson02/student/tiled.correct", status="fail", children='<failure message="Timeout"/>'),
            testcase("lesson02/student/tiled.speed", status="notrun",
                     children='<skipped message="SKIP_RETURN_CODE=77"/>'),
            testcase("lesson02/student/launcher.bad_arguments", status="fail",
                     children='<failure message="SEGFAULT"/>'),
        ])
        results = self.course.build / "results.json"
        code, out, _ = self.course.grade("--json", str(results))
        self.assertEqual(code, 0)
        data = json.loads(results.read_text(encoding="utf-8"))
        self.assertEqual(gradescope_problems(data), [])
        self.assertEqual(data["score"], 0.0)
        statuses = {row.split()[3] for row in out.splitlines() if row.startswith("  0")}
        self.assertTrue({"EXIT", "CUDA", "NOT", "TIMEOUT", "SKIP", "CRASH"} <= statuses, statuses)

    def test_stretch_is_extra_credit(self) -> None:
        self.course.write_junit([testcase("lesson02/student/vectorized.speed"),
                                 testcase("lesson02/student/table.correct")])
        results = self.course.build / "results.json"
        self.course.grade("--lessons", "02", "--json", str(results))
        data = json.loads(results.read_text(encoding="utf-8"))
        tests = {t["name"]: t for t in data["tests"]}
        self.assertEqual(tests["lesson02 vectorized.speed"]["score"], 2.0)
        self.assertEqual(tests["lesson02 vectorized.speed"]["max_score"], 0.0)
        self.assertEqual(data["score"], 4.0)  # 2 given + 2 bonus


class Integrity(CourseTestCase):
    """Hand-made results of hostile student code: points follow CTest's status and nothing else."""

    FAKES = ("[course] gpu: Fake GPU 9000\n"
             "[course] result: poly.speed: time 0.001 ms, speedup 999.00x over global, share 1.00\n"
             "[course] result: poly.correct: PASSED\n"
             "points 100\nscore: 100/100\n[doctest] Status: SUCCESS!\n"
             "[course] SKIPPED: pretend there is no GPU\n"
             "\t  1 - lesson01/student/poly.correct (Passed)\n"
             "</system-out></testcase><testcase name=\"lesson01/student/poly.speed\" status=\"run\">\n")

    def lesson02_passing(self) -> List[str]:
        return [testcase(f"lesson02/student/{name}", output=GPU_LINES) for name in
                ("table.correct", "table.speed", "tiled.correct", "tiled.speed", "launcher.bad_arguments")]

    def grade_json(self, cases: List[str]) -> dict:
        self.course.write_junit(cases)
        results = self.course.build / "results.json"
        code, _, err = self.course.grade("--json", str(results))
        self.assertEqual(code, 0, err)
        data = json.loads(results.read_text(encoding="utf-8"))
        self.assertEqual(gradescope_problems(data), [])
        return data

    def scores(self, data: dict, lesson: str) -> float:
        return sum(t["score"] for t in data["tests"] if t["name"].startswith(f"lesson{lesson} "))

    def test_printed_success_earns_nothing(self) -> None:
        empty = '<failure message=""/>'
        data = self.grade_json([
            testcase("lesson01/student/poly.correct", status="fail", children=empty,
                     output=GPU_LINES + self.FAKES),
            testcase("lesson01/student/poly.speed", status="fail", children=empty,
                     output=GPU_LINES + self.FAKES),
            *self.lesson02_passing()])
        tests = {t["name"]: t for t in data["tests"]}
        for name in ("lesson01 poly.correct", "lesson01 poly.speed"):
            self.assertEqual((tests[name]["score"], tests[name]["status"]), (0.0, "failed"))
        self.assertEqual(self.scores(data, "01"), 0.0)
        self.assertEqual(self.scores(data, "02"), 9.0)
        self.assertIn("GPU: NVIDIA H100 80GB HBM3", data["output"])  # the first gpu line, printed by main()

    def test_each_hostile_outcome_costs_its_lesson_only(self) -> None:
        empty = '<failure message=""/>'
        hostile = {
            "exit": (testcase("lesson01/student/poly.correct", status="fail", children=empty,
                              output=ENDED_EARLY), "EXIT"),
            "abort": (testcase("lesson01/student/poly.correct", status="fail",
                               children='<failure message="Subprocess aborted"/>'), "CRASH"),
            "hang": (testcase("lesson01/student/poly.correct", status="fail", time="20.0",
                              children='<failure message="Timeout"/>'), "TIMEOUT"),
            "illegal address": (testcase("lesson01/student/poly.correct", status="fail", children=empty,
                                         output=ILLEGAL_ADDRESS), "CUDA ERROR"),
            "trap": (testcase("lesson01/student/poly.correct", status="fail", children=empty,
                              output="ERROR: test case THREW exception: CUDA error cudaErrorLaunchFailure "
                                     "(unspecified launch failure) in cudaDeviceSynchronize()\n"), "CUDA ERROR"),
            "fake output": (testcase("lesson01/student/poly.correct", status="fail", children=empty,
                                     output=self.FAKES), "FAIL"),
            # CTest escapes what a test prints (control bytes, bad UTF-8) into valid XML.
            "control bytes": (testcase("lesson01/student/poly.correct", status="fail", children=empty,
                                       output="a[NON-XML-CHAR-0x1B][31m[NON-UTF-8-BYTE-0xFF]"), "FAIL"),
        }
        for what, (case, status) in hostile.items():
            with self.subTest(what=what):
                data = self.grade_json([case, testcase("lesson01/student/poly.speed", status="fail",
                                                       children=empty, output=ENDED_EARLY),
                                        *self.lesson02_passing()])
                poly = next(t for t in data["tests"] if t["name"] == "lesson01 poly.correct")
                self.assertEqual(poly["score"], 0.0)
                self.assertEqual(self.scores(data, "01"), 0.0)
                self.assertEqual(self.scores(data, "02"), 9.0)
                _, out, _ = self.course.grade("--color", "never")
                self.assertRegex(self.row_line(out, "poly.correct"), rf"{status}\s.* 0/3$")


class ExitCodes(CourseTestCase):
    def run_cli(self, *args: str) -> subprocess.CompletedProcess:
        env = dict(os.environ)
        env.pop("NO_COLOR", None)
        return subprocess.run([sys.executable, str(GRADE_PY), "--build-dir", str(self.course.build),
                               "--source-dir", str(self.course.source), *args],
                              capture_output=True, text=True, encoding="utf-8", env=env, check=False)

    def test_zero_with_failing_tests(self) -> None:
        self.course.write_junit(MIXED_CASES)
        proc = self.run_cli("--no-run")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("Total: 5/14", proc.stdout)
        self.assertNotIn("\033[", proc.stdout)  # a pipe is not a TTY

    def test_custom_junit_path(self) -> None:
        path = self.course.write_junit(MIXED_CASES[:1], name="other.xml")
        proc = self.run_cli("--no-run", "--junit", str(path), "--lessons", "02")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertRegex(proc.stdout, r"table\.correct\s+given\s+PASS")

    def test_two_for_missing_or_broken_junit(self) -> None:
        proc = self.run_cli("--no-run")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("not found", proc.stderr)
        (self.course.build / "grade-junit.xml").write_text("<testsuite><oops>", encoding="utf-8")
        proc = self.run_cli("--no-run")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("cannot read JUnit file", proc.stderr)

    def test_two_for_usage_errors(self) -> None:
        self.assertEqual(self.run_cli("--no-run", "--lessons", "transpose").returncode, 2)
        self.assertEqual(self.run_cli("--no-run", "--color", "sometimes").returncode, 2)
        proc = subprocess.run([sys.executable, str(GRADE_PY), "--no-run"], capture_output=True, check=False)
        self.assertEqual(proc.returncode, 2)

    def test_two_when_ctest_missing(self) -> None:
        self.course.configure()
        proc = self.run_cli("--ctest", str(self.course.build / "no-such-ctest"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("not found", proc.stderr)


FAKE_CTEST = textwrap.dedent("""\
    #!/usr/bin/env python3
    # Stands in for ctest: writes the JUnit file that $FAKE_CTEST_JUNIT holds, where asked.
    import os, shutil, sys
    junit = sys.argv[sys.argv.index("--output-junit") + 1]
    shutil.copyfile(os.environ["FAKE_CTEST_JUNIT"], junit)
    print("fake ctest:", " ".join(sys.argv[1:]))
    """)


class BadInput(CourseTestCase):
    """Every bad input: one line, exit code 2, and nothing written anywhere."""

    def setUp(self) -> None:
        super().setUp()
        self.fake_ctest()

    def snapshot(self) -> dict:
        root = Path(self._tmp.name)
        return {str(p.relative_to(root)): (p.stat().st_mtime_ns, p.stat().st_size)
                for p in sorted(root.rglob("*"))}

    def run_cli(self, *args: str, env: Optional[dict] = None) -> subprocess.CompletedProcess:
        environment = dict(os.environ, **(env or {}))
        return subprocess.run([sys.executable, str(GRADE_PY), *args], capture_output=True,
                              text=True, encoding="utf-8", env=environment, check=False)

    def assert_refused(self, proc: subprocess.CompletedProcess, words: str, before: dict) -> None:
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertEqual(proc.stdout, "")
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertTrue(lines[0].startswith("grade.py: error: "), lines[0])
        self.assertIn(words, lines[0])
        self.assertEqual(self.snapshot(), before, "grade.py wrote something before refusing")

    def grade_args(self, *extra: str) -> List[str]:
        return ["--build-dir", str(self.course.build), "--source-dir", str(self.course.source),
                "--ctest", str(self.fake_ctest()), *extra]

    def fake_ctest(self) -> Path:
        path = Path(self._tmp.name) / "tools" / "ctest"
        if not path.exists():
            path.parent.mkdir()
            path.write_text(FAKE_CTEST, encoding="utf-8")
            path.chmod(0o755)
            (Path(self._tmp.name) / "tools" / "junit.xml").write_text(junit(MIXED_CASES), encoding="utf-8")
        return path

    def test_unconfigured_build_directory(self) -> None:
        self.fake_ctest()
        before = self.snapshot()
        self.assert_refused(self.run_cli(*self.grade_args()), "is not a configured CMake build directory", before)

    def test_missing_build_directory(self) -> None:
        self.fake_ctest()
        before = self.snapshot()
        args = self.grade_args()
        args[1] = str(self.course.build / "nowhere")
        self.assert_refused(self.run_cli(*args), "does not exist", before)

    def test_a_build_of_another_project(self) -> None:
        self.course.configure(project="something_else")
        before = self.snapshot()
        self.assert_refused(self.run_cli(*self.grade_args()), "not of this course", before)

    def test_a_build_of_another_source_tree(self) -> None:
        self.course.configure(source=Path(self._tmp.name) / "other")
        before = self.snapshot()
        self.assert_refused(self.run_cli(*self.grade_args()), "was configured from", before)

    def test_an_unfinished_configuration(self) -> None:
        self.course.configure()
        (self.course.build / "CTestTestfile.cmake").unlink()
        before = self.snapshot()
        self.assert_refused(self.run_cli(*self.grade_args()), "configuration did not finish", before)

    def test_unknown_lesson(self) -> None:
        self.course.configure()
        before = self.snapshot()
        self.assert_refused(self.run_cli(*self.grade_args("--lessons", "99")),
                            "--lessons: no lesson 99", before)
        self.course.write_junit(MIXED_CASES)
        before = self.snapshot()
        self.assert_refused(self.run_cli(*self.grade_args("--no-run", "--lessons", "99")),
                            "no lesson 99", before)

    def test_lesson_not_in_the_build(self) -> None:
        self.course.configure(lessons="01")
        before = self.snapshot()
        self.assert_refused(self.run_cli(*self.grade_args("--lessons", "02")),
                            "lesson 02 is not in this build (configured with COURSE_LESSONS=01", before)

    def test_unwritable_json(self) -> None:
        self.course.configure()
        for target, words in ((self.course.build, "is a directory"),
                              (Path(self._tmp.name) / "no" / "such" / "results.json", "no directory"),
                              (self.course.source / "lessons" / "02_transpose" / "README.md",
                               "it is a source file")):
            with self.subTest(target=target):
                if words == "it is a source file":
                    subprocess.run(["git", "init", "-q", str(self.course.source)], check=True)
                    subprocess.run(["git", "-C", str(self.course.source), "add", "-A"], check=True)
                before = self.snapshot()
                self.assert_refused(self.run_cli(*self.grade_args("--json", str(target))),
                                    words, before)

    def test_a_configured_build_is_graded_and_only_its_lessons(self) -> None:
        self.course.configure(lessons="02")
        env = {"FAKE_CTEST_JUNIT": str(Path(self._tmp.name) / "tools" / "junit.xml")}
        proc = self.run_cli(*self.grade_args("--color", "never", "--json",
                                             str(self.course.build / "results.json")), env=env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("Lesson 02", proc.stdout)
        self.assertNotIn("Lesson 01", proc.stdout)  # not in the build: not graded, not NOT RUN
        self.assertIn("-R ^lesson(02)/", (self.course.build / "grade-ctest.log").read_text())
        self.assertTrue((self.course.build / "results.json").is_file())


# Stands in for ctest, as a student's run sees it: ctest's own lines as each test ends, then the
# JUnit file; or, with FAKE_CTEST_FAIL, nothing at all (ctest missing, killed, out of disk).
PROGRESS_CTEST = textwrap.dedent("""\
    #!/usr/bin/env python3
    import os, shutil, sys
    print("fake ctest:", " ".join(sys.argv[1:]), flush=True)
    if os.environ.get("FAKE_CTEST_FAIL"):
        sys.exit(8)
    print("    Start  3: lesson02/student/table.correct")
    print("1/3 Test  #3: lesson02/student/table.correct ........   Passed    0.50 sec")
    print("2/3 Test  #5: lesson02/student/tiled.correct ........***Failed    0.40 sec")
    print("3/3 Test  #1: lesson01/student/poly.correct .........***Skipped   0.01 sec")
    junit = sys.argv[sys.argv.index("--output-junit") + 1]
    shutil.copyfile(os.environ["FAKE_CTEST_JUNIT"], junit)
    """)

# Stands in for ninja's dry run (``ninja -C BUILD -f QUERY -n TARGETS``): the steps that
# $FAKE_NINJA_STEPS lists, one a line; it records how it was called in $FAKE_NINJA_CALLS.
FAKE_NINJA = textwrap.dedent("""\
    #!/usr/bin/env python3
    import os, sys
    with open(os.environ["FAKE_NINJA_CALLS"], "a") as calls:
        calls.write(" ".join(sys.argv[1:]) + "\\n")
    query = sys.argv[sys.argv.index("-f") + 1]
    assert "-n" in sys.argv and open(query).read().startswith("include "), sys.argv
    steps = [s for s in os.environ.get("FAKE_NINJA_STEPS", "").split("\\n") if s]
    for index, step in enumerate(steps, start=1):
        print(f"[{index}/{len(steps)}] {step}")
    if not steps:
        print("ninja: no work to do.")
    """)


class FakeTerminal(io.StringIO):
    """stderr as a terminal: the grader shows its status line there."""

    def isatty(self) -> bool:
        return True


class RunningCtest(CourseTestCase):
    """A run of ctest, as the student starts it: progress while it runs, the previous results kept
    when it fails, and a test program older than its sources never graded."""

    def setUp(self) -> None:
        super().setUp()
        tools = Path(self._tmp.name) / "tools"
        tools.mkdir()
        self.ctest = tools / "ctest"
        self.ctest.write_text(PROGRESS_CTEST, encoding="utf-8")
        self.ctest.chmod(0o755)
        self.ninja = tools / "ninja"
        self.ninja.write_text(FAKE_NINJA, encoding="utf-8")
        self.ninja.chmod(0o755)
        self.junit_in = tools / "junit.xml"
        self.junit_in.write_text(junit(MIXED_CASES), encoding="utf-8")
        self.calls = tools / "ninja-calls.txt"
        self.env = {"FAKE_CTEST_JUNIT": str(self.junit_in), "FAKE_NINJA_CALLS": str(self.calls)}
        self.course.configure()

    def use_ninja(self) -> None:
        """The build directory as the presets make it: Ninja, whose dry run says what is stale."""
        with (self.course.build / "CMakeCache.txt").open("a", encoding="utf-8") as cache:
            cache.write(f"CMAKE_GENERATOR:INTERNAL=Ninja\nCMAKE_MAKE_PROGRAM:FILEPATH={self.ninja}\n")
        (self.course.build / "build.ninja").write_text("# CMake generated\n", encoding="utf-8")

    def grade_run(self, *extra: str, env: Optional[dict] = None,
                  stderr: Optional[io.StringIO] = None) -> Tuple[int, str, str]:
        """grade.main in-process, running the fake ctest; (exit code, stdout, stderr)."""
        out, err = io.StringIO(), stderr if stderr is not None else io.StringIO()
        argv = ["--build-dir", str(self.course.build), "--source-dir", str(self.course.source),
                "--ctest", str(self.ctest), "--color", "never", *extra]
        with mock.patch.dict(os.environ, {**self.env, **(env or {})}, clear=False), \
                contextlib.redirect_stdout(out), mock.patch.object(sys, "stderr", err):
            code = grade.main(argv)
        return code, out.getvalue(), err.getvalue()

    def test_progress_while_the_tests_run(self) -> None:
        # Issue 28, item 4: the grade step was silent for minutes ("Running ctest; its output
        # goes to ..."). On a terminal a status line follows the tests as they end.
        code, out, err = self.grade_run(stderr=FakeTerminal())
        self.assertEqual(code, 0, err)
        self.assertIn("testing: 1/3 done (1 passed); last: lesson02/student/table.correct Passed", err)
        self.assertIn("testing: 3/3 done (1 passed, 1 failed, 1 skipped); last: "
                      "lesson01/student/poly.correct Skipped", err)
        self.assertTrue(err.endswith("\r\033[K"), repr(err[-40:]))  # cleared before the scoreboard
        self.assertIn("Total: 5/14", out)
        self.assertNotIn("testing:", out)
        self.assertIn("1/3 Test  #3", (self.course.build / "grade-ctest.log").read_text())

    def test_no_status_line_in_a_file_or_a_pipe(self) -> None:
        code, _, err = self.grade_run()
        self.assertEqual(code, 0, err)
        self.assertEqual(err, "")

    def test_a_failed_run_keeps_the_previous_results(self) -> None:
        # Issue 28, item 6: "grade.py --ctest /bin/false" removed grade-junit.xml, and the
        # footer's "--no-run --all-rows" then failed.
        self.assertEqual(self.grade_run()[0], 0)
        junit_file = self.course.build / "grade-junit.xml"
        before = junit_file.read_bytes()
        for ctest, env in (("/bin/false", {}), (str(self.ctest), {"FAKE_CTEST_FAIL": "1"})):
            with self.subTest(ctest=ctest):
                code, out, err = self.grade_run("--ctest", ctest, env=env)
                self.assertEqual(code, 2, out + err)
                self.assertIn("ctest wrote no JUnit file", err)
                self.assertIn("the previous results (grade-junit.xml) are kept", err)
                self.assertEqual(junit_file.read_bytes(), before)
                code, out, err = self.course.grade("--all-rows", "--color", "never")
                self.assertEqual(code, 0, err)
                self.assertIn("Total: 5/14", out)
        # A JUnit file ctest could not finish is not taken either, and not left behind.
        self.junit_in.write_text("<testsuite><testcase name=", encoding="utf-8")
        code, _, err = self.grade_run()
        self.assertEqual(code, 2)
        self.assertIn("cannot read JUnit file", err)
        self.assertEqual(junit_file.read_bytes(), before)
        self.assertFalse((self.course.build / "grade-junit.partial.xml").exists())

    def test_the_footer_grades_the_same_lessons(self) -> None:
        skipped = '<skipped message="SKIP_RETURN_CODE=77"/>'
        self.junit_in.write_text(junit([testcase("lesson02/student/table.correct", status="notrun",
                                                 children=skipped,
                                                 output="[course] SKIPPED: no NVIDIA driver\n")]),
                                 encoding="utf-8")
        _, out, _ = self.grade_run("--lessons", "02")
        self.assertRegex(out, r"Every row: .* --lessons 02 --no-run --all-rows\n")

    def test_a_program_older_than_its_sources_is_not_graded(self) -> None:
        # Issue 28, item 2: right after a failed build, "grade.py --lessons 02" graded the old
        # test program as if it were the student's code.
        self.use_ninja()
        steps = ("Building CUDA object lessons/02_transpose/CMakeFiles/lesson02_student.dir/transpose.cu.o\n"
                 "Linking CXX executable lessons/02_transpose/lesson02_test_student")
        code, out, err = self.grade_run(env={"FAKE_NINJA_STEPS": steps})
        self.assertEqual(code, 0, err)
        self.assertRegex(self.row_line(out, "tiled.correct"), r"NOT BUILT .* 0/3$")
        self.assertRegex(self.row_line(out, "table.correct"), r"NOT BUILT .* 0/2$")
        self.assertIn("↳ out of date: transpose.cu changed since the test program was built", out)
        self.assertIn("--target grade-02", out)
        self.assertRegex(self.row_line(out, "poly.correct"), r"FAIL .* 0/3$")  # lesson 01: graded
        log = (self.course.build / "grade-ctest.log").read_text()
        self.assertIn("-R ^lesson(01)/", log)  # lesson 02's old program never ran
        call = self.calls.read_text()
        self.assertIn("lesson01_test_student lesson02_test_student", call)
        # With the build's log, the reason is the lesson's first compile error.
        build_log = self.course.build / "build.log"
        build_log.write_text("FAILED: lessons/02_transpose/CMakeFiles/lesson02_student.dir/transpose.cu.o\n"
                             "/s/lessons/02_transpose/transpose.cu(7): error: expected a \";\"\n",
                             encoding="utf-8")
        _, out, _ = self.grade_run("--build-log", str(build_log), env={"FAKE_NINJA_STEPS": steps})
        self.assertIn('↳ not built: lessons/02_transpose/transpose.cu(7): error: expected a ";"', out)

    def test_every_lesson_out_of_date_runs_nothing(self) -> None:
        self.use_ninja()
        steps = ("Linking CXX executable lessons/01_constant_memory/lesson01_test_student\n"
                 "Linking CXX executable lessons/02_transpose/lesson02_test_student")
        code, out, err = self.grade_run(env={"FAKE_NINJA_STEPS": steps})
        self.assertEqual(code, 0, err)
        self.assertFalse((self.course.build / "grade-ctest.log").exists())
        self.assertIn("↳ out of date: what it links changed since", out)
        self.assertNotIn("CTest reported no student tests", out)

    def test_up_to_date_programs_are_graded(self) -> None:
        self.use_ninja()
        code, out, err = self.grade_run()
        self.assertEqual(code, 0, err)
        self.assertNotIn("NOT BUILT", out)
        self.assertIn("Total: 5/14", out)

    def test_another_generator_says_it_cannot_tell(self) -> None:
        with (self.course.build / "CMakeCache.txt").open("a", encoding="utf-8") as cache:
            cache.write("CMAKE_GENERATOR:INTERNAL=Unix Makefiles\n")
        _, out, _ = self.grade_run()
        self.assertIn("warning: cannot tell whether the test programs are up to date with the "
                      "generator Unix Makefiles", out)

    def test_build_needs_a_run(self) -> None:
        for extra in (("--no-run",), ("--build-log", "x.log")):
            with self.subTest(extra=extra):
                with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as exit_:
                    grade.parse_args(["--build-dir", "b", "--build", *extra])
                self.assertEqual(exit_.exception.code, 2)


class CtestInvocation(unittest.TestCase):
    def test_command_line(self) -> None:
        command = grade.ctest_command("ctest", Path("/b"), Path("/b/grade-junit.xml"), ["01", "02"])
        self.assertEqual(command, ["ctest", "--test-dir", "/b", "-L", "student", "--output-junit",
                                   "/b/grade-junit.xml", "--no-tests=ignore", "-R", "^lesson(01|02)/"])
        self.assertNotIn("-R", grade.ctest_command("ctest", Path("/b"), Path("/b/j.xml"), None))

    def test_jobs_and_quick(self) -> None:
        command = grade.ctest_command("ctest", Path("/b"), Path("/b/j.xml"), None, jobs=8, quick=True)
        self.assertEqual(command[command.index("-j") + 1], "8")
        self.assertEqual(command[command.index("-LE") + 1], grade.QUICK_EXCLUDED_LABELS)
        self.assertRegex("perf", grade.QUICK_EXCLUDED_LABELS)
        self.assertRegex("sanitize", grade.QUICK_EXCLUDED_LABELS)
        self.assertNotRegex("student", grade.QUICK_EXCLUDED_LABELS)
        plain = grade.ctest_command("ctest", Path("/b"), Path("/b/j.xml"), None)
        self.assertNotIn("-j", plain)
        self.assertNotIn("-LE", plain)


class IntegrityRow(unittest.TestCase):
    """lessonNN/student/integrity: a borrowed library withholds the lesson's exercise points."""

    def result(self, status: str) -> "grade.TestResult":
        return grade.TestResult(ctest_name="lesson05/student/integrity", lesson="05",
                                name=grade.INTEGRITY, status=status,
                                reason="integrity: uses CUB: cub::DeviceReduce::Sum", duration=0.1,
                                output="", measurement=grade.Measurement())

    def rows(self) -> List["grade.Row"]:
        return [grade.Row("05", "given.correct", "given", grade.PASS, 1, 1),
                grade.Row("05", "fast.correct", "exercise", grade.PASS, 3, 3),
                grade.Row("05", "fast.speed", "stretch", grade.PASS, 2, 2)]

    def test_failure_withholds_exercise_and_stretch_points(self) -> None:
        rows = self.rows()
        row = grade.integrity_row(self.result(grade.FAIL), rows)
        self.assertEqual([r.points_got for r in rows], [1, 0, 0])
        self.assertIn("integrity", rows[1].reason)
        self.assertEqual(row.name, "integrity")
        self.assertIsNone(row.points_max)

    def test_pass_keeps_points(self) -> None:
        rows = self.rows()
        grade.integrity_row(self.result(grade.PASS), rows)
        self.assertEqual([r.points_got for r in rows], [1, 3, 2])


if __name__ == "__main__":
    unittest.main(verbosity=2)
