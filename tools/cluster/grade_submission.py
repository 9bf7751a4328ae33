#!/usr/bin/env python3
"""Grade one student submission: its skeleton files, built into a pristine student edition.

    grade_submission.py --edition EDITION --submission DIR --out OUT [--lessons 01 02] [--jobs N]

1. Copies EDITION (a student edition, tools/student_edition.py) to a scratch directory and puts
   over it only the files students edit: the SKELETON files that each lesson's CMakeLists.txt
   names (lessons/NN_name/<file>), taken from the same place in DIR. Everything else (tests,
   grading tables and their points, the harness, the build) comes from the edition, so nothing
   in a submission can change how it is graded. A skeleton file the submission lacks stays as
   given.
2. Configures (only the lessons graded, solutions off) and builds, keeping going past a lesson
   that does not compile: that lesson's tests are NOT BUILT, the others still run.
3. Runs tools/grade.py (this repository's, beside tools/cluster/), which writes OUT/results.json (Gradescope's format) and OUT/scoreboard.txt.
   If no scoreboard could be made at all (the configuration failed), OUT/results.json still
   appears, with score 0 and the reason.

OUT also gets build.log and submission.json (the submission's path and the files taken from it).
Every input is checked before anything is written: EDITION must be a student edition, DIR an
existing directory, --lessons lessons that the edition has, --scratch a writable directory, and
OUT new, empty, or an earlier output of this script (its mark, .course-output), never this
repository, the edition or the submission, inside them or above them, `/` or the home directory.
Exit code 0 when OUT/results.json was written, 1 otherwise, 2 for usage errors and refused
outputs (one line each).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

MAX_FILE_BYTES = 1 << 20          # a skeleton file larger than this is not taken
BUILD_TIMEOUT_S = 3600
GRADE_TIMEOUT_S = 4 * 3600        # every test has its own CTest TIMEOUT; this bounds the rest
# The SKELETON list ends at the next keyword of course_add_lesson() (every keyword is upper case,
# every file name lower case: GIVEN, TEST, SM90A, BROKEN_SKELETON, ...) or at its closing ")".
SKELETON_RE = re.compile(r"\bSKELETON\b(.*?)(?=\b[A-Z][A-Z0-9_]*\b|\))", re.DOTALL)
LESSON_DIR_RE = re.compile(r"^(\d{2})_")
GRADE_PY = Path(__file__).resolve().parents[1] / "grade.py"  # the instructors' grader
REPO = Path(__file__).resolve().parents[2]
TOOL = "grade_submission.py"
sys.path.insert(0, str(REPO / "tools"))
import safe_output  # noqa: E402  (tools/safe_output.py)


class UsageError(Exception):
    """Bad input; one line, exit code 2."""


def skeleton_files(edition: Path, lessons: Optional[List[str]]) -> List[str]:
    """lessons/NN_name/<file> for every SKELETON file of the graded lessons."""
    files: List[str] = []
    for cmake in sorted(edition.glob("lessons/*/CMakeLists.txt")):
        match = LESSON_DIR_RE.match(cmake.parent.name)
        if not match or (lessons and match.group(1) not in lessons):
            continue
        text = re.sub(r"#[^\n]*", "", cmake.read_text(encoding="utf-8"))
        for block in SKELETON_RE.findall(text):
            files += [f"lessons/{cmake.parent.name}/{name}" for name in block.split()]
    return files


def overlay(submission: Path, src: Path, files: List[str]) -> Dict[str, str]:
    """Copy the student's version of each file over the edition's; say what happened to each."""
    taken: Dict[str, str] = {}
    for relative in files:
        theirs = submission / relative
        if theirs.is_symlink() or not theirs.is_file():
            taken[relative] = "missing: the edition's skeleton is graded"
        elif theirs.stat().st_size > MAX_FILE_BYTES:
            taken[relative] = f"larger than {MAX_FILE_BYTES} bytes: the edition's skeleton is graded"
        else:
            shutil.copyfile(theirs, src / relative)
            taken[relative] = "taken"
    return taken


def run_logged(command: List[str], log, env: dict, timeout: int) -> int:
    log.write(f"$ {' '.join(command)}\n")
    log.flush()
    try:
        return subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=env,
                              timeout=timeout, check=False).returncode
    except subprocess.TimeoutExpired:
        log.write(f"\n[grade_submission] stopped after {timeout} s\n")
        return 124


def failure_results(out: Path, why: str, seconds: float) -> None:
    """A results.json for a submission that could not be graded at all."""
    data = {"score": 0.0, "execution_time": int(round(seconds)),
            "output": f"{why}\nSee build.log.\n", "tests": []}
    (out / "results.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def check_inputs(args: argparse.Namespace) -> tuple[Path, Path, Path]:
    """(edition, submission, out), resolved, or UsageError; nothing is written."""
    edition, submission = args.edition.resolve(), args.submission.resolve()
    if not edition.is_dir():
        raise UsageError(f"no edition directory {args.edition}")
    if not (edition / "tools/grade.py").is_file() or not (edition / "lessons").is_dir() \
            or not (edition / "CMakeLists.txt").is_file():
        raise UsageError(f"{args.edition} is not a student edition (tools/student_edition.py "
                         f"writes one)")
    if (edition / "solutions").exists():
        raise UsageError(f"{args.edition} holds solutions/: grade against the student edition")
    if not submission.exists():
        raise UsageError(f"no submission directory {args.submission}")
    if not submission.is_dir():
        raise UsageError(f"{args.submission} is not a directory")
    if args.lessons:
        known = sorted(p.name[:2] for p in (edition / "lessons").iterdir()
                       if p.is_dir() and LESSON_DIR_RE.match(p.name))
        unknown = [number for number in args.lessons if number not in known]
        if unknown:
            raise UsageError(f"--lessons: no lesson {', '.join(unknown)} in the edition "
                             f"(its lessons are {' '.join(known)})")
    if args.scratch is not None:
        if not args.scratch.is_dir():
            raise UsageError(f"--scratch: no directory {args.scratch}")
        if not os.access(args.scratch, os.W_OK | os.X_OK):
            raise UsageError(f"--scratch: {args.scratch} is not writable")
    try:
        out = safe_output.check_output_dir(args.out, TOOL, protect=[REPO, edition, submission],
                                           replace=True)
    except safe_output.OutputRefused as err:
        raise UsageError(f"--out: {err}") from None
    return edition, submission, out


def grade(args: argparse.Namespace) -> int:
    started = time.monotonic()
    try:
        edition, submission, out = check_inputs(args)
    except UsageError as err:
        print(f"grade_submission.py: error: {err}", file=sys.stderr)
        return 2
    safe_output.write_mark(out, TOOL)
    (out / "results.json").unlink(missing_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="course-grade-", dir=args.scratch))
    src, build = scratch / "src", scratch / "build"
    try:
        shutil.copytree(edition, src, ignore=shutil.ignore_patterns(".git", "build"))
        files = skeleton_files(src, args.lessons)
        taken = overlay(submission, src, files)
        (out / "submission.json").write_text(
            json.dumps({"submission": str(submission), "files": taken}, indent=2) + "\n", encoding="utf-8")

        # Relative paths under the scratch root, so that every submission shares ccache's entries.
        env = dict(os.environ, CCACHE_BASEDIR=str(scratch))
        env.pop("COURSE_CPU_ONLY", None)
        configure = ["cmake", "-S", str(src), "-B", str(build), "-G", args.generator,
                     "-DCOURSE_BUILD_SOLUTIONS=OFF", "-DCOURSE_BUILD_MUTANTS=OFF"]
        if args.lessons:
            configure.append(f"-DCOURSE_LESSONS={';'.join(args.lessons)}")
        configure += args.cmake_arg or []
        build_command = ["cmake", "--build", str(build), "-j", str(args.jobs)]
        if args.generator == "Ninja":
            build_command += ["--", "-k", "0"]  # keep going: one broken lesson must not stop the rest
        with (out / "build.log").open("w", encoding="utf-8") as log:
            if run_logged(configure, log, env, BUILD_TIMEOUT_S) != 0:
                failure_results(out, "The configuration failed: nothing could be built or graded.",
                                time.monotonic() - started)
                return 0
            built = run_logged(build_command, log, env, BUILD_TIMEOUT_S)
            log.write(f"[grade_submission] build exit code {built}\n")

        grade_command = [sys.executable, str(GRADE_PY), "--build-dir", str(build),
                         "--source-dir", str(src), "--json", str(out / "results.json"),
                         "--build-log", str(out / "build.log"), "--color", "never"]
        if args.lessons:
            grade_command += ["--lessons", *args.lessons]
        with (out / "scoreboard.txt").open("w", encoding="utf-8") as board:
            try:
                code = subprocess.run(grade_command, stdout=board, stderr=subprocess.STDOUT, env=env,
                                      timeout=GRADE_TIMEOUT_S, check=False).returncode
            except subprocess.TimeoutExpired:
                code = 124
        if code != 0 or not (out / "results.json").is_file():
            failure_results(out, f"The grader could not score this submission (exit code {code}).",
                            time.monotonic() - started)
        return 0
    finally:
        if args.keep:
            print(f"kept the scratch tree {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Grade one submission against a student edition.")
    parser.add_argument("--edition", type=Path, required=True, help="the pristine student edition")
    parser.add_argument("--submission", type=Path, required=True, help="the student's directory")
    parser.add_argument("--out", type=Path, required=True, help="where results.json and logs go")
    parser.add_argument("--lessons", nargs="+", metavar="NN", help="grade only these lessons")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="build jobs")
    parser.add_argument("--generator", default="Ninja", help="CMake generator (default Ninja)")
    parser.add_argument("--scratch", type=Path, default=None,
                        help="where the build happens (default: $TMPDIR)")
    parser.add_argument("--cmake-arg", action="append", metavar="-DX=Y",
                        help="one more configure argument (repeatable)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch build tree")
    args = parser.parse_args(argv)
    if args.lessons:
        bad = [n for n in args.lessons if not re.fullmatch(r"\d{2}", n)]
        if bad:
            parser.error(f"--lessons takes two-digit numbers, not {bad}")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    try:
        return grade(args)
    except OSError as err:
        print(f"grade_submission.py: error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
