"""What the grader's tests share: a fake course tree (lessons/NN_name/README.md with a grading
table), fake CTest JUnit files, and a check of results.json against Gradescope's specification.

Importing it puts tools/ on sys.path, as tools/grade.py does, so that the tests import the
grader's package, tools/course_grade/.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path
from typing import List, Optional, Tuple
from unittest import mock

REPO_ROOT = Path(__file__).resolve().parents[2]
GRADE_PY = REPO_ROOT / "tools" / "grade.py"
sys.path.insert(0, str(GRADE_PY.parent))

from course_grade.cli import main  # noqa: E402


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
        """Run main in-process with --no-run; return (exit code, stdout, stderr)."""
        out, err = io.StringIO(), io.StringIO()
        argv = ["--build-dir", str(self.build), "--source-dir", str(self.source), "--no-run", *extra]
        with mock.patch.dict(os.environ, env or {}, clear=False), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
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
