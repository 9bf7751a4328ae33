"""Building the graded lessons first (``--build``), which test programs are older than their
sources, and the build log's first error in a lesson.

With ``--build`` the grader first builds the graded lessons' test programs and demos
(``cmake --build BUILD --target lessonNN_test_student lessonNN_demo_student ...``), going on past
a lesson that does not compile (``-k 0``), with the build's output on the terminal (on a terminal
its progress in one status line) and in ``BUILD/grade-build.log``, which then serves as
``--build-log``.  The ``grade`` target of the build runs the grader this way, and ``grade-NN``
the same for lesson NN alone.

Before ctest runs, the grader asks the build tool which test programs are out of date (``ninja
-n``, the presets' generator; with another generator it cannot tell and says so).  A lesson
whose test program is older than its sources, e.g. because its last build failed, is not run:
its rows are NOT BUILT, with the build log's first error in the lesson when there is one, else
with the source that changed.  A stale program is never graded."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .buildtree import BuildTree
from .model import BUILD_LOG_NAME, UsageError, shorten, shown_path
from .process import StatusLine, run_streamed

# A build log's error lines (the compiler's, the build tool's), and the path in one from lessons/.
BUILD_ERROR_RE = re.compile(r"\berror\b|\bError \d+\b|FAILED:", re.IGNORECASE)
BUILD_PATH_RE = re.compile(r"^\S*?/(lessons/\S+)")
# ninja's status line, "[12/80] Building CUDA object ...", in a build's output or its dry run.
BUILD_STATUS_RE = re.compile(r"^\[\d+/\d+\] (.*)$")
# What a dry run would compile: "Building CUDA object lessons/02_transpose/CMakeFiles/
# lesson02_student.dir/transpose.cu.o" -> transpose.cu.
PENDING_OBJECT_RE = re.compile(r"^Building \w+ object \S*?\.dir/(\S+?)\.(?:o|obj)$")


def student_targets(lesson: str) -> List[str]:
    """The targets of a lesson's student build, as cmake/CourseLesson.cmake names them."""
    return [f"lesson{lesson}_test_student", f"lesson{lesson}_demo_student"]


def keep_going(generator: str) -> List[str]:
    """The build tool's options to go on past a failed step (one broken lesson must not stop the
    others)."""
    if generator.startswith("Ninja"):
        return ["-k", "0"]
    if "Makefiles" in generator:
        return ["-k"]
    return []


def build_lessons(tree: BuildTree, lessons: List[str], log_path: Path, status: StatusLine) -> bool:
    """Build the lessons' test programs and demos, going on past a failure; the build's output
    goes to log_path and to stderr (its status lines to the status line on a terminal). True
    when everything built."""
    targets = [target for lesson in lessons for target in student_targets(lesson)]
    command = [tree.cmake, "--build", str(tree.path), "--target", *targets]
    options = keep_going(tree.generator)
    if options:
        command += ["--", *options]
    print(f"Building lesson{'s' if len(lessons) > 1 else ''} {' '.join(lessons)}; "
          f"the build's output goes to {shown_path(tree.path)}/{log_path.name}", flush=True)

    def on_line(line: str) -> None:
        if status.enabled and BUILD_STATUS_RE.match(line):
            status.show(f"building: {line}")
        elif status.enabled:
            status.print(line)
        else:
            print(line, file=sys.stderr, flush=True)

    try:
        code, _ = run_streamed(command, log_path, dict(os.environ), on_line)
    finally:
        status.clear()
    return code == 0


def ninja_path(path: Path) -> str:
    """path escaped for a ninja manifest ('$', ' ' and ':' are special there)."""
    return str(path).replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


def pending_steps(tree: BuildTree, targets: List[str]) -> Tuple[Optional[List[str]], str]:
    """The build steps that building targets would run now (ninja's dry run), or None and why
    the grader cannot tell. The dry run reads the build's manifest through one of its own that
    includes it, so that ninja does not first stop at re-running CMake (which a build with
    CONFIGURE_DEPENDS globs always offers in a dry run)."""
    if not tree.generator:
        return None, ""  # not a CMake cache that names its generator: nothing to ask
    if not tree.generator.startswith("Ninja") or not tree.make_program:
        return None, (f"cannot tell whether the test programs are up to date with the generator "
                      f"{tree.generator}: build them before grading (or use --build)")
    manifest = tree.path / "build.ninja"
    with tempfile.TemporaryDirectory(prefix="course-grade-") as scratch:
        query = Path(scratch) / "query.ninja"
        query.write_text(f"include {ninja_path(manifest)}\n", encoding="utf-8")
        try:
            done = subprocess.run([tree.make_program, "-C", str(tree.path), "-f", str(query), "-n",
                                   *targets], capture_output=True, text=True, check=False)
        except OSError as err:
            return None, f"cannot tell whether the test programs are up to date: {err}"
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["ninja -n failed"])[-1]
        return None, f"cannot tell whether the test programs are up to date ({why})"
    return [match.group(1) for match in map(BUILD_STATUS_RE.match, done.stdout.splitlines())
            if match], ""


def out_of_date(tree: BuildTree, lessons: List[str], build_log: str,
                warnings: List[str]) -> Dict[str, str]:
    """Lesson -> why its test program may not be graded: it is older than its sources (its last
    build failed, or it was not built since an edit). The reason is the build log's first error
    in the lesson when there is one, else the first source that changed."""
    steps, why = pending_steps(tree, [f"lesson{lesson}_test_student" for lesson in lessons])
    if steps is None:
        if why:
            warnings.append(why)
        return {}
    stale: Dict[str, str] = {}
    for lesson in lessons:
        # The lesson's steps: its objects and programs are under lessons/NN_*/ or named lessonNN_.
        own = [step for step in steps if re.search(rf"\blessons/{lesson}_|\blesson{lesson}_", step)]
        if not own:
            continue
        sources = [m.group(1).lstrip("_/") for m in map(PENDING_OBJECT_RE.match, own) if m]
        # The build's first error in this lesson; when none of its own files is to be compiled
        # (the harness it links did not build), the build's first error at all.
        error = first_build_error(build_log, lesson, own_only=bool(sources)) if build_log else None
        if error:
            stale[lesson] = f"not built: {error}"
            continue
        changed = f"{Path(sources[0]).name} changed" if sources else "what it links changed"
        stale[lesson] = (f"out of date: {changed} since the test program was built (a failed "
                         f"build?); cmake --build {shown_path(tree.path)} --target grade-{lesson}")
    return stale


def first_build_error(log: str, lesson: str, own_only: bool = False) -> Optional[str]:
    """The first error line of a build log about lessons/NN_*, else (unless own_only) the first
    error line at all; paths start at lessons/."""
    errors = [line.strip() for line in log.splitlines() if BUILD_ERROR_RE.search(line)]
    # The compiler's own words first, then the build tool's ("FAILED: <object file>").
    errors.sort(key=lambda line: line.startswith(("FAILED:", "ninja:", "make")))
    own = [line for line in errors if re.search(rf"lessons/{lesson}_", line)]
    chosen = (own or ([] if own_only else errors) or [None])[0]
    return shorten(BUILD_PATH_RE.sub(r"\1", chosen)) if chosen else None


def read_build_log(path: Optional[Path]) -> str:
    if path is None:
        return ""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise UsageError(f"cannot read the build log {path}: {err.strerror}") from None


def build_failed_line(tree: BuildTree, stale: Dict[str, str]) -> str:
    """The last line of a --build run whose build failed."""
    log = f"{shown_path(tree.path)}/{BUILD_LOG_NAME}"
    if stale:
        numbers = sorted(stale)
        which = f"lesson{'s' if len(numbers) > 1 else ''} {', '.join(numbers)}"
        return (f"grade.py: the build failed: {which} did not build (NOT BUILT above, with the "
                f"first error); the other lessons were graded. The build's output: {log}")
    return f"grade.py: the build failed (see {log}); the lessons above were graded"
