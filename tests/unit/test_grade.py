#!/usr/bin/env python3
"""Unit tests of tools/grade.py's outputs: the scoreboard and Gradescope's results.json, from a
JUnit file of CTest's (course_grade's scoring, render and gradescope modules).

Run from the repository root:  python3 tests/unit/test_grade.py

Every test builds its own fake course tree (lessons/NN_name/README.md) and a
fake CTest JUnit file in a temporary directory; nothing needs CUDA or ctest.
The other tests of the grader: test_grade_parsing.py (README tables, JUnit results, the
reasons shown), test_grade_scoring.py (rows and points), test_grade_cli.py (the command line,
running ctest, stale programs).
"""

from __future__ import annotations

import io
import json
import os
import unittest
from typing import List
from unittest import mock

from grade_fixtures import (DIFFER_LINE, ENDED_EARLY, GPU_LINES, ILLEGAL_ADDRESS, MIXED_CASES,
                            CourseTestCase, gradescope_problems, testcase)
from course_grade.render import use_colour


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

    def test_the_integrity_row_has_no_points_of_its_own(self) -> None:
        # Its points cell is "-", as for any value a row does not have; "?" is kept for a test
        # no README lists, whose points nobody knows.
        cases = [testcase("lesson02/student/table.correct", output=GPU_LINES),
                 testcase("lesson02/student/integrity"),
                 testcase("lesson01/student/integrity", status="fail", children='<failure message=""/>',
                          output="[course] integrity: uses CUB: cub::DeviceReduce::Sum\n"),
                 testcase("lesson01/student/extra.check")]
        self.course.write_junit(cases)
        _, out, _ = self.course.grade("--color", "never")
        lesson01, lesson02 = out.split("Lesson 02")
        self.assertRegex(self.row_line(lesson02, "integrity"), r"check\s+PASS(\s+-){4}$")
        self.assertRegex(self.row_line(lesson01, "integrity"), r"check\s+FAIL(\s+-){4}$")
        self.assertRegex(self.row_line(lesson01, "extra.check"), r"\?\s+PASS(\s+-){3}\s+\?$")
        self.assertIn("Total: 2/14 (+bonus 0/2)\n", out)

    def test_withheld_points_say_why(self) -> None:
        # A row that passed but earns nothing, because the integrity check failed, shows the
        # reason under it: a bare PASS beside 0/3 would read as a grader's mistake. A given row
        # keeps its points and shows no reason.
        cases = [testcase("lesson01/student/poly.correct", output=GPU_LINES),
                 testcase("lesson01/student/integrity", status="fail", children='<failure message=""/>',
                          output="[course] integrity: uses CUB: cub::DeviceReduce::Sum\n"),
                 testcase("lesson02/student/table.correct", output=GPU_LINES),
                 testcase("lesson02/student/integrity")]
        self.course.write_junit(cases)
        _, out, _ = self.course.grade("--color", "never")
        lines = out.splitlines()
        poly = next(i for i, line in enumerate(lines) if "poly.correct" in line)
        self.assertRegex(lines[poly], r"PASS .* 0/3$")
        self.assertIn("withheld: the integrity check failed", lines[poly + 1])
        table = next(i for i, line in enumerate(lines) if "table.correct" in line)
        self.assertRegex(lines[table], r"PASS .* 2/2$")
        self.assertNotIn("withheld", lines[table + 1])

    def test_the_json_says_what_the_integrity_row_is(self) -> None:
        self.course.write_junit([testcase("lesson02/student/table.correct", output=GPU_LINES),
                                 testcase("lesson02/student/integrity")])
        path = self.course.build / "results.json"
        self.course.grade("--json", str(path))
        data = json.loads(path.read_text(encoding="utf-8"))
        output = [t["output"] for t in data["tests"] if t["name"] == "lesson02 integrity"][0]
        self.assertIn("earns no points itself", output)
        self.assertNotIn("not in any README", output)


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
            self.assertTrue(use_colour("auto", tty))
        with mock.patch.dict(os.environ, {"NO_COLOR": "1"}, clear=True):
            self.assertFalse(use_colour("auto", tty))
            self.assertTrue(use_colour("always", tty))
        self.assertFalse(use_colour("auto", io.StringIO()))


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


if __name__ == "__main__":
    unittest.main(verbosity=2)
