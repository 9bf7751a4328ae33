#!/usr/bin/env python3
"""The tools never destroy data, and refuse bad input before they write anything.

    python3 tests/unit/test_outputs.py          (CTest: unit/outputs, labels unit;cpu)

Every test builds a real directory tree in a scratch directory: a small course (a git
repository with a lesson, a solution and this repository's tools/), the folders around it, a
home directory, submissions. It runs a tool the way a user would, then compares a snapshot of
the whole tree (every path, its kind, size, bytes and time of change) with the one taken before:
outside the tool's own output nothing may differ, and a refused run may change nothing at all.
Tools: student_edition.py, safe_output.py, grade.py's outputs, tools/cluster/submit.sh,
collect.py and grade_submission.py, gpu_check.sh's $OUT and make_mutant.sh's patch.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Dict, List, Optional, Tuple
from unittest import mock

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import safe_output  # noqa: E402
import student_edition  # noqa: E402

Snapshot = Dict[str, Tuple[str, int, str, int]]


def snapshot(root: Path, skip: Optional[Path] = None) -> Snapshot:
    """Every path under root (but those under skip): kind, size, content hash, mtime."""
    found: Snapshot = {}
    for dirpath, dirnames, filenames in os.walk(root):
        base = Path(dirpath)
        if skip is not None and (base == skip or skip in base.parents):
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            path = base / name
            if skip is not None and (path == skip or skip in path.parents):
                continue
            info = path.lstat()
            if path.is_symlink():
                found[str(path)] = ("link", 0, os.readlink(path), info.st_mtime_ns)
            elif path.is_dir():
                found[str(path)] = ("dir", 0, "", 0)  # its entries are compared one by one
            else:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                found[str(path)] = ("file", info.st_size, digest, info.st_mtime_ns)
    return found


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)


class Scratch(unittest.TestCase):
    """A scratch world: root/{home, work/{course, notes.txt, data/}, subs/}."""

    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="course-outputs-")
        self.root = Path(self._tmp.name).resolve()
        self.home = self.root / "home"
        write(self.home / ".profile", "# the user's\n")
        self.work = self.root / "work"
        self.course = self.work / "course"
        write(self.work / "notes.txt", "the user's notes\n")
        write(self.work / "data" / "measurements.csv", "1,2,3\n")
        self.make_course(self.course)
        self.env = dict(os.environ, HOME=str(self.home))
        self.env.pop("COURSE_EDITION_WORKTREE", None)

    def tearDown(self) -> None:
        self._tmp.cleanup()

    def make_course(self, course: Path) -> None:
        """A course repository: one lesson, its solution, README texts with edition markers, and
        this repository's tools (so that the tools' own source tree is this one)."""
        write(course / "README.md", "# Course\n<!-- instructor:begin -->\nsee solutions/\n"
              "<!-- instructor:end -->\n<!-- student:begin\nthe student edition\nstudent:end -->\n")
        write(course / "CMakeLists.txt", "cmake_minimum_required(VERSION 3.25)\n")
        write(course / ".gitignore", "/build/\n")
        write(course / "lessons" / "01_demo" / "README.md", "lesson text\n")
        write(course / "lessons" / "01_demo" / "CMakeLists.txt", "course_add_lesson(SKELETON demo.cu)\n")
        write(course / "lessons" / "01_demo" / "demo.cu", "// TODO(student): write it\n")
        write(course / "solutions" / "01_demo" / "demo.cu", "__global__ void solved() {}\n")
        write(course / "tests" / "01_demo" / "mutants" / "m.patch", "Mutant: x\n")
        for path in [*REPO.glob("tools/*.py"), *REPO.glob("tools/course_grade/*.py"),
                     *REPO.glob("tools/*.sh"), *REPO.glob("tools/cluster/*")]:
            target = course / path.relative_to(REPO)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        git(course, "init", "-q")
        git(course, "add", "-A")
        git(course, "commit", "-q", "-m", "course")

    def run_tool(self, command: List[str], env: Optional[dict] = None,
                 cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
        return subprocess.run(command, capture_output=True, text=True, env=env or self.env,
                              cwd=cwd or self.work, check=False, timeout=300)

    def assert_refused(self, proc: subprocess.CompletedProcess, words: str, before: Snapshot,
                       tool: str) -> None:
        """Exit code 2, one line that says why, and nothing changed anywhere."""
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertTrue(lines[0].startswith(f"{tool}: error: "), lines[0])
        self.assertIn(words, lines[0])
        self.assertEqual(snapshot(self.root), before, f"{tool} changed something and refused")

    def staging_left(self, parent: Path) -> List[str]:
        return [p.name for p in parent.iterdir() if ".new-" in p.name or ".old-" in p.name]


class StudentEdition(Scratch):
    TOOL = "student_edition.py"

    def edition(self, out: Path, *extra: str) -> subprocess.CompletedProcess:
        return self.run_tool([sys.executable, str(self.course / "tools" / self.TOOL), str(out),
                              "--source-dir", str(self.course), *extra])

    def test_refuses_the_directory_above_the_course(self) -> None:
        # The data loss: OUT is the directory that holds the course and the user's files.
        before = snapshot(self.root)
        self.assert_refused(self.edition(self.work, "--force"), "it contains", before, self.TOOL)
        self.assert_refused(self.edition(self.root, "--force"), "it contains", before, self.TOOL)
        # As the issue tried it: from inside the course, OUT given as its parent.
        proc = self.run_tool([sys.executable, "tools/student_edition.py", "..", "--force"],
                             cwd=self.course)
        self.assert_refused(proc, "it contains", before, self.TOOL)

    def test_refuses_the_course_and_its_tracked_places(self) -> None:
        before = snapshot(self.root)
        self.assert_refused(self.edition(self.course, "--force"), "itself", before, self.TOOL)
        self.assert_refused(self.edition(self.course / "lessons", "--force"), "inside", before, self.TOOL)
        self.assert_refused(self.edition(self.course / "new-dir"), "inside", before, self.TOOL)

    def test_refuses_home_and_any_directory_it_did_not_write(self) -> None:
        before = snapshot(self.root)
        self.assert_refused(self.edition(self.home, "--force"), "home directory", before, self.TOOL)
        self.assert_refused(self.edition(self.work / "data", "--force"), "not empty and was not written",
                            before, self.TOOL)
        self.assert_refused(self.edition(self.work / "notes.txt", "--force"), "not a directory",
                            before, self.TOOL)
        other = self.work / "results"
        safe_output.write_mark(other, "grade_submission.py")
        write(other / "results.json", "{}\n")
        before = snapshot(self.root)
        self.assert_refused(self.edition(other, "--force"), "written by grade_submission.py",
                            before, self.TOOL)

    def test_refuses_the_root_directory(self) -> None:
        # In-process, with every way of removing or moving anything made to fail loudly.
        def forbidden(*args, **kwargs):
            raise AssertionError(f"tried to change the file system: {args}")
        err = io.StringIO()
        with mock.patch.object(shutil, "rmtree", forbidden), mock.patch.object(os, "replace", forbidden), \
                mock.patch.object(os, "rename", forbidden), mock.patch.object(tempfile, "mkdtemp", forbidden), \
                contextlib.redirect_stderr(err):
            code = student_edition.main(["/", "--force", "--source-dir", str(self.course)])
        self.assertEqual(code, 2)
        self.assertIn("it is the root directory", err.getvalue())

    def test_writes_a_new_edition_and_touches_nothing_else(self) -> None:
        out = self.work / "course-student"
        before = snapshot(self.root)
        proc = self.edition(out, "--git-init")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(snapshot(self.root, skip=out), before)
        self.assertEqual(safe_output.read_mark(out), self.TOOL)
        self.assertFalse((out / "solutions").exists())
        self.assertFalse((out / "tests" / "01_demo" / "mutants").exists())
        self.assertEqual((out / "README.md").read_text(), "# Course\nthe student edition\n")
        tracked = subprocess.run(["git", "-C", str(out), "ls-files"], capture_output=True,
                                 text=True, check=True).stdout.split()
        self.assertNotIn(safe_output.MARK, tracked)  # the mark stays out of the students' repository
        self.assertEqual(self.staging_left(self.work), [])

    def test_force_replaces_only_its_own_edition(self) -> None:
        out = self.work / "course-student"
        write(self.course / "lessons" / "01_demo" / "old.md", "in the older edition only\n")
        git(self.course, "add", "-A")
        git(self.course, "commit", "-q", "-m", "old.md")
        self.assertEqual(self.edition(out).returncode, 0)
        git(self.course, "rm", "-q", "lessons/01_demo/old.md")
        git(self.course, "commit", "-q", "-m", "no old.md")
        before = snapshot(self.root)
        self.assert_refused(self.edition(out), "use --force", before, self.TOOL)
        proc = self.edition(out, "--force")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertFalse((out / "lessons" / "01_demo" / "old.md").exists())
        outside = {k: v for k, v in before.items() if k != str(out) and not k.startswith(f"{out}/")}
        self.assertEqual(snapshot(self.root, skip=out), outside)
        self.assertEqual(self.staging_left(self.work), [])

    def test_force_never_replaces_an_edition_someone_worked_in(self) -> None:
        # Issue 28, item 3: --force over an edition a student had worked in reverted their edited
        # skeleton and deleted their own files and build/, exit 0, no warning.
        out = self.work / "course-student"
        self.assertEqual(self.edition(out, "--git-init").returncode, 0)
        skeleton = out / "lessons" / "01_demo" / "demo.cu"
        pristine = skeleton.read_text()
        for work, words in (
                (lambda: write(skeleton, "__global__ void mine() {}\n"), "edited lessons/01_demo/demo.cu"),
                (lambda: write(out / "notes.md", "my notes\n"), "added notes.md"),
                (lambda: write(out / "build" / "student" / "CMakeCache.txt", "x\n"), "added build/"),
                (lambda: skeleton.unlink(), "deleted lessons/01_demo/demo.cu")):
            with self.subTest(words=words):
                work()
                before = snapshot(self.root)
                proc = self.edition(out, "--force")
                self.assert_refused(proc, words, before, self.TOOL)
                self.assertIn("that work would be lost. Move it elsewhere first", proc.stderr)
                shutil.rmtree(out / "build", ignore_errors=True)
                (out / "notes.md").unlink(missing_ok=True)
                write(skeleton, pristine)
        # Committed, or stashed: the files are as written, the repository is not.
        write(skeleton, "__global__ void mine() {}\n")
        git(out, "commit", "-q", "-am", "my kernel")
        git(out, "reset", "-q", "--hard", "HEAD~1")  # the commit stays in the reflog, not a ref
        git(out, "branch", "mine", "HEAD@{1}")
        before = snapshot(self.root)
        self.assert_refused(self.edition(out, "--force"), "a commit or a stash in .git", before, self.TOOL)
        git(out, "branch", "-q", "-D", "mine")
        write(skeleton, "__global__ void draft() {}\n")
        git(out, "stash", "-q")
        before = snapshot(self.root)
        self.assert_refused(self.edition(out, "--force"), "a commit or a stash in .git", before, self.TOOL)
        git(out, "stash", "drop", "-q")
        proc = self.edition(out, "--force", "--git-init")  # untouched again: replaced
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_an_edition_without_the_list_of_its_files_is_not_replaced(self) -> None:
        out = self.work / "course-student"
        self.assertEqual(self.edition(out).returncode, 0)
        safe_output.write_mark(out, self.TOOL)  # as an older student_edition.py marked it
        before = snapshot(self.root)
        self.assert_refused(self.edition(out, "--force"), "whether anyone worked in it since cannot be told",
                            before, self.TOOL)

    def test_a_failure_leaves_the_old_edition_as_it_was(self) -> None:
        out = self.work / "course-student"
        self.assertEqual(self.edition(out).returncode, 0)
        before = snapshot(self.root)
        proc = self.edition(out, "--force", "--rev", "no-such-revision")
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)  # not a git dump
        self.assertEqual(snapshot(self.root), before)
        # A broken edition marker stops the export after the files were staged: nothing remains.
        write(self.course / "README.md", "<!-- instructor:begin -->\nnever closed\n")
        git(self.course, "commit", "-q", "-am", "broken markers")
        before = snapshot(self.root)
        proc = self.edition(out, "--force")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("README.md:1: the instructor block is never closed", proc.stderr)
        self.assertEqual(snapshot(self.root), before)
        self.assertEqual(self.staging_left(self.work), [])

    def test_an_ignored_build_directory_inside_the_course_is_fine(self) -> None:
        out = self.course / "build" / "dev" / "student-edition"
        proc = self.edition(out, "--force")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(safe_output.read_mark(out), self.TOOL)
        proc = self.edition(out, "--force")
        self.assertEqual(proc.returncode, 0, proc.stderr)


class SafeOutput(Scratch):
    def test_directories(self) -> None:
        check = safe_output.check_output_dir
        with mock.patch.dict(os.environ, {"HOME": str(self.home)}):
            for out, words in (("/", "root directory"), (self.home, "home directory"),
                               (self.root, "contains the home directory"),
                               (self.course, "itself"), (self.work, "contains"),
                               (self.course / "lessons" / "x", "inside"),
                               (self.work / "data", "not empty")):
                with self.subTest(out=out), self.assertRaisesRegex(safe_output.OutputRefused, words):
                    check(Path(out), "tool", protect=[self.course])
            self.assertEqual(check(self.work / "new" / "dir", "tool", [self.course]),
                             self.work / "new" / "dir")
            self.assertEqual(check(self.course / "build" / "x", "tool", [self.course]),
                             self.course / "build" / "x")
            safe_output.write_mark(self.work / "mine", "tool")
            write(self.work / "mine" / "out.txt", "x\n")
            with self.assertRaisesRegex(safe_output.OutputRefused, "earlier output"):
                check(self.work / "mine", "tool")
            self.assertEqual(check(self.work / "mine", "tool", replace=True), self.work / "mine")
            with self.assertRaisesRegex(safe_output.OutputRefused, "written by tool, not by other"):
                check(self.work / "mine", "other", replace=True)

    def test_files(self) -> None:
        check = safe_output.check_output_file
        for path, words in ((self.work / "data", "is a directory"),
                            (self.work / "nowhere" / "x.csv", "no directory"),
                            (self.course / "README.md", "source file")):
            with self.subTest(path=path), self.assertRaisesRegex(safe_output.OutputRefused, words):
                check(path, protect=[self.course])
        self.assertEqual(check(self.work / "grades.csv", [self.course]), self.work / "grades.csv")
        self.assertEqual(check(self.course / "results.json", [self.course]),
                         self.course / "results.json")  # untracked: the README's own example

    def test_command_line(self) -> None:
        tool = [sys.executable, str(REPO / "tools" / "safe_output.py")]
        before = snapshot(self.root)
        proc = self.run_tool(tool + ["check-dir", str(self.work), "--tool", "x.sh", "--protect",
                                     str(self.course)])
        self.assert_refused(proc, "contains", before, "x.sh")
        self.assertEqual(self.run_tool(tool + ["check-dir", str(self.work / "new"), "--tool", "x.sh"]).returncode, 0)


class GradeSubmission(Scratch):
    TOOL = "grade_submission.py"

    def setUp(self) -> None:
        super().setUp()
        self.edition = self.work / "edition"
        proc = self.run_tool([sys.executable, str(self.course / "tools" / "student_edition.py"),
                              str(self.edition), "--source-dir", str(self.course)])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.submission = self.root / "subs" / "alice"
        write(self.submission / "lessons" / "01_demo" / "demo.cu", "// alice's\n")

    def grade(self, *args: str, out: Optional[Path] = None) -> subprocess.CompletedProcess:
        base = {"--edition": str(self.edition), "--submission": str(self.submission),
                "--out": str(out or self.work / "graded" / "alice")}
        command = [sys.executable, str(self.course / "tools" / "cluster" / self.TOOL)]
        for key, value in {**base, **dict(zip(args[::2], args[1::2]))}.items():
            command += [key, value]
        return self.run_tool(command)

    def test_bad_inputs(self) -> None:
        write(self.work / "not-an-edition" / "README.md", "x\n")
        leaky = self.work / "leaky"
        shutil.copytree(self.edition, leaky)
        (leaky / "solutions").mkdir()
        before = snapshot(self.root)
        for args, words in ((("--edition", str(self.work / "nowhere")), "no edition directory"),
                            (("--edition", str(self.work / "not-an-edition")), "is not a student edition"),
                            (("--edition", str(leaky)), "holds solutions/"),
                            (("--submission", str(self.root / "subs" / "bob")), "no submission directory"),
                            (("--submission", str(self.work / "notes.txt")), "is not a directory"),
                            (("--lessons", "99"), "--lessons: no lesson 99"),
                            (("--scratch", str(self.work / "nowhere")), "--scratch: no directory"),
                            (("--out", str(self.course)), "itself"),
                            (("--out", str(self.root)), "contains"),
                            (("--out", str(self.edition / "results")), "inside"),
                            (("--out", str(self.submission)), "itself"),
                            (("--out", str(self.home)), "home directory"),
                            (("--out", str(self.work / "data")), "not empty and was not written")):
            with self.subTest(args=args):
                self.assert_refused(self.grade(*args), words, before, self.TOOL)
        proc = self.grade("--jobs", "0")
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(snapshot(self.root), before)


class SkeletonFiles(unittest.TestCase):
    """grade_submission.py takes a student's copy of each SKELETON file, and of nothing else."""

    def test_the_list_ends_at_any_keyword(self) -> None:
        sys.path.insert(0, str(REPO / "tools" / "cluster"))
        import grade_submission  # noqa: E402
        with tempfile.TemporaryDirectory() as scratch:
            edition = Path(scratch)
            write(edition / "lessons" / "12_tc" / "CMakeLists.txt",
                  "course_add_lesson(\n  GIVEN    launch.cu\n  SKELETON wmma.cu wgmma.cu\n"
                  "  # wgmma.cu alone for sm_90a (SM90A)\n  SM90A    wgmma.cu\n"
                  "  TEST     test.cpp)\n")
            write(edition / "lessons" / "00_dbg" / "CMakeLists.txt",
                  "course_add_lesson(SKELETON debugging.cu BROKEN_SKELETON TEST t.cpp)\n")
            self.assertEqual(grade_submission.skeleton_files(edition, None),
                             ["lessons/00_dbg/debugging.cu", "lessons/12_tc/wmma.cu",
                              "lessons/12_tc/wgmma.cu"])


class Collect(Scratch):
    TOOL = "collect.py"

    def setUp(self) -> None:
        super().setUp()
        self.results = self.work / "out" / "results"
        write(self.results / "alice" / "results.json", json.dumps(
            {"score": 3.0, "tests": [{"name": "lesson01 a.correct", "score": 3.0, "max_score": 3.0}]}))
        self.listed = write(self.work / "list.txt", f"{self.root / 'subs' / 'alice'}\n")

    def collect(self, *args: str) -> subprocess.CompletedProcess:
        return self.run_tool([sys.executable, str(self.course / "tools" / "cluster" / self.TOOL), *args])

    def test_bad_inputs(self) -> None:
        write(self.work / "empty-list.txt", "\n  \n")
        (self.work / "no-results").mkdir()
        before = snapshot(self.root)
        for args, words in (((str(self.work / "nowhere"),), "no directory"),
                            ((str(self.work / "notes.txt"),), "is not a directory"),
                            ((str(self.work / "no-results"),), "no submission results"),
                            ((str(self.results), "--list", str(self.work / "missing.txt")), "no list file"),
                            ((str(self.results), "--list", str(self.work / "empty-list.txt")), "no submissions in"),
                            ((str(self.results), "--list", str(self.work / "data")), "is not a file"),
                            ((str(self.results), "--csv", str(self.work / "nowhere" / "g.csv")), "no directory"),
                            ((str(self.results), "--csv", str(self.work / "data")), "is a directory"),
                            ((str(self.results), "--csv", str(self.course / "README.md")), "source file")):
            with self.subTest(args=args):
                self.assert_refused(self.collect(*args), words, before, self.TOOL)

    def test_writes_the_csv(self) -> None:
        proc = self.collect(str(self.results), "--list", str(self.listed), "--csv",
                            str(self.work / "out" / "grades.csv"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("alice,graded,3.0,3.0,3.0", (self.work / "out" / "grades.csv").read_text())


class Submit(Scratch):
    TOOL = "submit.sh"

    def setUp(self) -> None:
        super().setUp()
        self.bin = self.root / "bin"
        self.calls = self.root / "sbatch-calls.txt"
        write(self.bin / "sbatch", f"#!/bin/sh\necho \"$@\" >> '{self.calls}'\necho 4242\n").chmod(0o755)
        self.env["PATH"] = f"{self.bin}:{self.env['PATH']}"
        for name in ("alice", "bob"):
            write(self.root / "subs" / name / "lessons" / "01_demo" / "demo.cu", f"// {name}\n")
        self.listed = write(self.work / "list.txt",
                            f"{self.root / 'subs' / 'alice'}\n\n{self.root / 'subs' / 'bob'}\n")

    def submit(self, *args: str, env: Optional[dict] = None) -> subprocess.CompletedProcess:
        return self.run_tool(["bash", str(self.course / "tools" / "cluster" / self.TOOL), *args],
                             env=env)

    def test_usage(self) -> None:
        proc = self.submit()
        self.assertEqual(proc.returncode, 2)
        self.assertTrue(proc.stderr.startswith("usage: tools/cluster/submit.sh LIST OUT"), proc.stderr)
        self.assertNotIn("set -euo", proc.stderr)
        self.assertEqual(self.submit("--help").returncode, 0)

    def test_bad_inputs(self) -> None:
        write(self.work / "empty.txt", "\n\n")
        write(self.work / "missing-sub.txt", f"{self.root / 'subs' / 'alice'}\n{self.root / 'subs' / 'carol'}\n")
        write(self.root / "other" / "alice" / "x", "\n")
        write(self.work / "twice.txt", f"{self.root / 'subs' / 'alice'}\n{self.root / 'other' / 'alice'}\n")
        out = str(self.work / "grading")
        before = snapshot(self.root)
        for args, env, words in (
                ((str(self.work / "nothing.txt"), out), {}, "no list file"),
                ((str(self.work / "data"), out), {}, "is not a file"),
                ((str(self.work / "empty.txt"), out), {}, "no submissions in"),
                ((str(self.work / "missing-sub.txt"), out), {}, "1 of the 2 listed submissions are not directories"),
                ((str(self.work / "twice.txt"), out), {}, "must be unique"),
                ((str(self.listed), out), {"COURSE_LESSONS": "99"}, "no lesson 99"),
                ((str(self.listed), out), {"COURSE_MAX_PARALLEL": "many"}, "COURSE_MAX_PARALLEL"),
                ((str(self.listed), str(self.work)), {}, "it contains"),
                ((str(self.listed), str(self.course)), {}, "itself"),
                ((str(self.listed), str(self.root / "subs")), {}, "it contains"),
                ((str(self.listed), str(self.home)), {}, "home directory"),
                ((str(self.listed), str(self.work / "data")), {}, "not empty and was not written")):
            with self.subTest(args=args, env=env):
                self.assert_refused(self.submit(*args, env={**self.env, **env}), words, before, self.TOOL)
        # A PATH without sbatch: a directory that holds it (/usr/bin, where Slurm is installed, as
        # in CI) is replaced by a copy of its links without sbatch, so bash and the rest remain.
        entries = []
        for index, entry in enumerate(self.env["PATH"].split(os.pathsep)):
            if entry == str(self.bin):
                continue
            if (Path(entry) / "sbatch").exists():
                shadow = Path(tempfile.mkdtemp(prefix="path-without-sbatch-"))
                self.addCleanup(shutil.rmtree, shadow, True)
                for tool in Path(entry).iterdir():
                    if tool.name != "sbatch":
                        (shadow / tool.name).symlink_to(tool)
                entry = str(shadow)
            entries.append(entry)
        no_slurm = dict(self.env, PATH=os.pathsep.join(entries))
        self.assert_refused(self.submit(str(self.listed), out, env=no_slurm), "sbatch not found",
                            before, self.TOOL)
        self.assertFalse(self.calls.exists(), "sbatch was called")

    def test_submits_into_its_own_directory(self) -> None:
        out = self.work / "grading"
        proc = self.submit(str(self.listed), str(out))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(safe_output.read_mark(out), self.TOOL)
        self.assertEqual(safe_output.read_mark(out / "edition"), "student_edition.py")
        self.assertEqual((out / "submissions.txt").read_text().split(),
                         [str(self.root / "subs" / "alice"), str(self.root / "subs" / "bob")])
        calls = self.calls.read_text().splitlines()
        self.assertEqual(len(calls), 3, calls)  # asked first (--test-only); the array; collect
        self.assertIn("--test-only", calls[0])
        self.assertFalse(any("--test-only" in call for call in calls[1:]), calls)
        again = self.submit(str(self.listed), str(out))  # its own earlier output: replaced
        self.assertEqual(again.returncode, 0, again.stderr)
        # ... but not once someone worked in its edition.
        write(out / "edition" / "lessons" / "01_demo" / "demo.cu", "// tried it out here\n")
        before = snapshot(self.root)
        self.assert_refused(self.submit(str(self.listed), str(out)),
                            "it changed since student_edition.py wrote it (edited "
                            "lessons/01_demo/demo.cu)", before, self.TOOL)

    def test_an_unreachable_controller_stops_it_before_it_writes(self) -> None:
        # Issue 28, item 7: with a Slurm whose controller did not answer, submit.sh wrote
        # OUT/edition, then failed with sbatch's own message.
        write(self.bin / "sbatch", f"#!/bin/sh\necho \"$@\" >> '{self.calls}'\n"
              "echo 'sbatch: error: Batch job submission failed: Unable to contact slurm controller "
              "(connect failure)' >&2\nexit 1\n").chmod(0o755)
        before = snapshot(self.root)
        proc = self.submit(str(self.listed), str(self.work / "grading"))
        calls = self.calls.read_text()  # the probe, and nothing after it
        self.calls.unlink()
        self.assert_refused(proc, "sbatch cannot submit the array: Batch job submission failed: "
                                  "Unable to contact slurm controller", before, self.TOOL)
        self.assertEqual(len(calls.splitlines()), 1, calls)
        self.assertIn("--test-only", calls)


class GradeTask(Scratch):
    """tools/cluster/grade_task.sh INDEX LIST OUT: bad arguments get one line and exit code 2."""

    TOOL = "grade_task.sh"

    def test_bad_arguments(self) -> None:
        # Issue 28, item 7: "grade_task.sh x list out" died on an unbound variable.
        listed = write(self.work / "list.txt", f"{self.root / 'subs' / 'alice'}\n")
        out = self.work / "grading"
        (out / "edition").mkdir(parents=True)
        before = snapshot(self.root)
        for args, words in ((("x", "list", "out"), "INDEX must be a number"),
                            (("-1", str(listed), str(out)), "INDEX must be a number"),
                            (("0", str(self.work / "nothing.txt"), str(out)), "no list file"),
                            (("0", str(listed), str(self.work / "data")), "no edition in"),
                            (("1", str(listed), str(out)), "no line 2 in")):
            with self.subTest(args=args):
                proc = self.run_tool(["bash", str(self.course / "tools" / "cluster" / self.TOOL), *args])
                self.assertNotIn("unbound variable", proc.stderr)
                self.assert_refused(proc, words, before, self.TOOL)


class ShellTools(Scratch):
    def test_gpu_check_refuses_an_out_it_did_not_write(self) -> None:
        before = snapshot(self.root)
        for out, words in ((self.work / "data", "not empty and was not written"),
                           (self.work, "contains"), (self.home, "home directory")):
            with self.subTest(out=out):
                proc = self.run_tool(["bash", str(self.course / "tools" / "gpu_check.sh")],
                                     env=dict(self.env, OUT=str(out), COURSE_CHECK_STEPS="none"))
                self.assert_refused(proc, words, before, "gpu_check.sh")

    def test_make_mutant_never_overwrites_another_file(self) -> None:
        solution = self.course / "solutions" / "01_demo" / "demo.cu"
        edited = write(self.work / "edited.cu", "__global__ void broken() {}\n")
        before = snapshot(self.root)
        for out in (self.work / "notes.txt", self.work / "data", self.course / "README.md"):
            with self.subTest(out=out):
                proc = self.run_tool(["bash", str(self.course / "tools" / "make_mutant.sh"),
                                      str(solution), str(edited), str(out), "what", "tests"])
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertEqual(snapshot(self.root), before)
        target = self.course / "tests" / "01_demo" / "mutants" / "m.patch"  # a mutant: replaced
        proc = self.run_tool(["bash", str(self.course / "tools" / "make_mutant.sh"), str(solution),
                              str(edited), str(target), "what", "tests"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(target.read_text().startswith("Mutant: what\n"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
