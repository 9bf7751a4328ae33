#!/usr/bin/env python3
"""Unit tests of tools/grade.py's command line (course_grade.cli, buildtree, ctest, build): exit
codes, every bad input refused before anything is written, a run of ctest (its progress, its
previous results kept when it fails) and a test program older than its sources never graded.

Run from the repository root:  python3 tests/unit/test_grade_cli.py

ctest and ninja are stand-ins written by the tests; nothing needs CUDA, CMake or a build.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import textwrap
import unittest
from pathlib import Path
from typing import List, Optional, Tuple
from unittest import mock

from grade_fixtures import GRADE_PY, MIXED_CASES, CourseTestCase, junit, testcase
from course_grade.cli import default_jobs, main, parse_args
from course_grade.ctest import QUICK_EXCLUDED_LABELS, ctest_command


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
        """main in-process, running the fake ctest; (exit code, stdout, stderr)."""
        out, err = io.StringIO(), stderr if stderr is not None else io.StringIO()
        argv = ["--build-dir", str(self.course.build), "--source-dir", str(self.course.source),
                "--ctest", str(self.ctest), "--color", "never", *extra]
        with mock.patch.dict(os.environ, {**self.env, **(env or {})}, clear=False), \
                contextlib.redirect_stdout(out), mock.patch.object(sys, "stderr", err):
            code = main(argv)
        return code, out.getvalue(), err.getvalue()

    def graded_with_ninja(self, *extra: str, steps: Tuple[str, ...] = ()) -> str:
        """The scoreboard of a Ninja build whose dry run would run these steps; exit code 0."""
        self.use_ninja()
        code, out, err = self.grade_run(*extra, env={"FAKE_NINJA_STEPS": "\n".join(steps)})
        self.assertEqual(code, 0, err)
        return out

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
        steps = ("Building CUDA object lessons/02_transpose/CMakeFiles/lesson02_student.dir/transpose.cu.o",
                 "Linking CXX executable lessons/02_transpose/lesson02_test_student")
        out = self.graded_with_ninja(steps=steps)
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
        out = self.graded_with_ninja("--build-log", str(build_log), steps=steps)
        self.assertIn('↳ not built: lessons/02_transpose/transpose.cu(7): error: expected a ";"', out)

    def test_every_lesson_out_of_date_runs_nothing(self) -> None:
        out = self.graded_with_ninja(steps=(
            "Linking CXX executable lessons/01_constant_memory/lesson01_test_student",
            "Linking CXX executable lessons/02_transpose/lesson02_test_student"))
        self.assertFalse((self.course.build / "grade-ctest.log").exists())
        self.assertIn("↳ out of date: what it links changed since", out)
        self.assertNotIn("CTest reported no student tests", out)

    def test_up_to_date_programs_are_graded(self) -> None:
        out = self.graded_with_ninja()
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
                    parse_args(["--build-dir", "b", "--build", *extra])
                self.assertEqual(exit_.exception.code, 2)


class CtestInvocation(unittest.TestCase):
    def test_command_line(self) -> None:
        command = ctest_command("ctest", Path("/b"), Path("/b/grade-junit.xml"), ["01", "02"])
        self.assertEqual(command, ["ctest", "--test-dir", "/b", "-L", "student", "--output-junit",
                                   "/b/grade-junit.xml", "--no-tests=ignore", "-R", "^lesson(01|02)/"])
        self.assertNotIn("-R", ctest_command("ctest", Path("/b"), Path("/b/j.xml"), None))

    def test_jobs_and_quick(self) -> None:
        command = ctest_command("ctest", Path("/b"), Path("/b/j.xml"), None, jobs=8, quick=True)
        self.assertEqual(command[command.index("-j") + 1], "8")
        self.assertEqual(command[command.index("-LE") + 1], QUICK_EXCLUDED_LABELS)
        self.assertRegex("perf", QUICK_EXCLUDED_LABELS)
        self.assertRegex("sanitize", QUICK_EXCLUDED_LABELS)
        self.assertNotRegex("student", QUICK_EXCLUDED_LABELS)
        plain = ctest_command("ctest", Path("/b"), Path("/b/j.xml"), None)
        self.assertNotIn("-j", plain)
        self.assertNotIn("-LE", plain)

    def test_default_jobs(self) -> None:
        # Three quarters of the CPUs, at least one, at most 12; --jobs overrides it.
        for cpus, jobs in ((None, 1), (1, 1), (2, 1), (4, 3), (8, 6), (16, 12), (64, 12)):
            self.assertEqual(default_jobs(cpus), jobs, cpus)
        with mock.patch("os.cpu_count", return_value=16):
            self.assertEqual(parse_args(["--build-dir", "/b"]).jobs, 12)
            self.assertEqual(parse_args(["--build-dir", "/b", "--jobs", "5"]).jobs, 5)


if __name__ == "__main__":
    unittest.main(verbosity=2)
