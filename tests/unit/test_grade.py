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
                                        children='<skipped message="Unable to find executable"/>',
                                        output="Unable to find executable: /b/lesson02_tests"))
        self.assertEqual(result.reason, "Unable to find executable: /b/lesson02_tests")

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
        self.assertIn("subtotal: 0/5\n", out)                    # lesson 01
        self.assertIn("subtotal: 5/9 (+bonus 0/2)\n", out)       # lesson 02
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
        code, out, _ = self.course.grade("--lessons", "02")
        self.assertEqual(code, 0)
        self.assertIn("GPU: no GPU seen", out)
        self.assertRegex(self.row_line(out, "tiled.correct"), r"SKIP .* 0/3$")
        self.assertEqual(out.rstrip().splitlines()[-1],
                         "No GPU was usable: every test was skipped "
                         "(no usable CUDA device (cudaErrorNoDevice: no CUDA-capable device)).")

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
        proc = self.run_cli("--ctest", str(self.course.build / "no-such-ctest"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("not found", proc.stderr)


class CtestInvocation(unittest.TestCase):
    def test_command_line(self) -> None:
        command = grade.ctest_command("ctest", Path("/b"), Path("/b/grade-junit.xml"), ["01", "02"])
        self.assertEqual(command, ["ctest", "--test-dir", "/b", "-L", "student", "--output-junit",
                                   "/b/grade-junit.xml", "--no-tests=ignore", "-R", "^lesson(01|02)/"])
        self.assertNotIn("-R", grade.ctest_command("ctest", Path("/b"), Path("/b/j.xml"), None))


if __name__ == "__main__":
    unittest.main(verbosity=2)
