#!/usr/bin/env python3
"""Unit tests of what tools/grade.py reads: README grading tables (course_grade.tables), CTest's
JUnit results and log (course_grade.results) and the reason shown under a row
(course_grade.reasons).

Run from the repository root:  python3 tests/unit/test_grade_parsing.py
"""

from __future__ import annotations

import textwrap
import unittest
import xml.etree.ElementTree as ET

from grade_fixtures import (DIFFER_LINE, ENDED_EARLY, ILLEGAL_ADDRESS, README_02, junit,
                            testcase)
from course_grade.buildtree import normalize_lessons
from course_grade.model import UsageError
from course_grade.reasons import first_reason
from course_grade.results import parse_ctest_log, parse_measurement, parse_results
from course_grade.tables import markdown_tables, parse_grading_table


class ReadmeParsing(unittest.TestCase):
    def test_points_kinds_and_thresholds(self) -> None:
        tests, warnings = parse_grading_table(README_02, "README.md")
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
        tests, warnings = parse_grading_table(text, "R")
        self.assertEqual([(t.name, t.points) for t in tests], [("ok.correct", 2)])
        self.assertEqual(len(warnings), 4)

    def test_every_table_and_its_lines(self) -> None:
        tables = markdown_tables(README_02)
        self.assertEqual([table.header[:2] for table in tables], [["test", "kind"], ["not", "graded"]])
        self.assertEqual(tables[0].rows[2], (10, ["`tiled.correct`", "exercise", "bit-exact on all shapes",
                                                  "—", "3"]))
        self.assertEqual(tables[1].rows, [(18, ["`ignored.row`", "99"])])
        tests, _ = parse_grading_table(README_02, "README.md")
        self.assertEqual([(t.name, t.line) for t in tests[:3]],
                         [("table.correct", 8), ("table.speed", 9), ("tiled.correct", 10)])

    def test_missing_markers(self) -> None:
        tests, warnings = parse_grading_table("# nothing here\n", "R")
        self.assertEqual(tests, [])
        self.assertIn("no grading table", warnings[0])

    def test_lesson_numbers(self) -> None:
        self.assertEqual(normalize_lessons(["1", "02", "lesson03", "02"]), ["01", "02", "03"])
        with self.assertRaises(UsageError):
            normalize_lessons(["transpose"])


class ReasonExtraction(unittest.TestCase):
    def test_not_implemented_wins(self) -> None:
        output = ("t.cu:10: ERROR: CHECK( a ) is NOT correct!\n"
                  "ERROR: test case THREW exception: not implemented: tiled\n")
        self.assertEqual(first_reason(output), "not implemented")

    def test_differ_line_before_error(self) -> None:
        output = "t.cu:10: ERROR: CHECK( a ) is NOT correct!\n" + DIFFER_LINE + "\n"
        self.assertEqual(first_reason(output), DIFFER_LINE)

    def test_first_error_line_path_shortened(self) -> None:
        output = ("[course] gpu: X\n"
                  "/home/student/course/lessons/02_transpose/tests/t.cu:42: ERROR: CHECK( a ) is NOT correct!\n"
                  "ERROR: second\n")
        self.assertEqual(first_reason(output), "t.cu:42: ERROR: CHECK( a ) is NOT correct!")

    def test_cuda_error_and_threw(self) -> None:
        self.assertEqual(first_reason("x\nCUDA error: illegal address\n"), "CUDA error: illegal address")
        self.assertEqual(first_reason("a\nCudaError 700 at k.cu:3\n"), "CudaError 700 at k.cu:3")
        self.assertEqual(first_reason("TEST CASE THREW exception: bad_alloc\n"),
                         "TEST CASE THREW exception: bad_alloc")

    def test_doctest_report_as_the_harness_prints_it(self) -> None:
        # COURSE_CHECK_MATCH: doctest's ERROR line, then the compare report over two lines.
        output = ("/src/tests/02_transpose/test_transpose.cpp:88: ERROR: CHECK( course_cmp_.ok ) is NOT correct!\n"
                  "  values: CHECK( false )\n"
                  "  logged: tiled 33x17 uniform input, seed 812: 3 of 561 elements differ; first:\n"
                  "  at (row 0, col 32): expected 0.25, got nan\n"
                  "  at (row 1, col 32): expected 0.5, got nan\n")
        self.assertEqual(first_reason(output),
                         "tiled 33x17 uniform input, seed 812: 3 of 561 elements differ; "
                         "first at (row 0, col 32): expected 0.25, got nan")
        # COURSE_CHECK_SPEED: the message says by how much the threshold was missed.
        output = ("t.cpp:99: ERROR: CHECK( course_best_.value(graded) >= course_need_ ) is NOT correct!\n"
                  "  values: CHECK( false )\n"
                  "  logged: padded.speed: speedup 1.05x over tiled is below the threshold 1.3\n")
        self.assertEqual(first_reason(output),
                         "padded.speed: speedup 1.05x over tiled is below the threshold 1.3")

    def test_cut_to_160_chars(self) -> None:
        reason = first_reason("ERROR: " + "x" * 500)
        self.assertEqual(len(reason), 160)

    def test_nothing_found(self) -> None:
        self.assertIsNone(first_reason("all good\n"))

    def test_measurement_fields_independent(self) -> None:
        m = parse_measurement(
            "[course] result: other.speed: time 9.9 ms\n"
            "[course] result: tiled.speed: speedup 3.10x over naive, share 0.83 of device copy\n",
            "tiled.speed")
        self.assertEqual((m.time_ms, m.speedup, m.share), (None, "3.10", "0.83"))
        m = parse_measurement("[course] result: tiled.speed: time 0.512 ms\n", "tiled.speed")
        self.assertEqual((m.time_ms, m.speedup, m.share), ("0.512", None, None))


class StatusMapping(unittest.TestCase):
    def classify(self, case_xml: str, log: str = ""):
        root = ET.fromstring(junit([case_xml]))
        (result,) = parse_results(root, parse_ctest_log(log))
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
