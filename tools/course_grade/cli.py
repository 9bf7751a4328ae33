"""The grader's command line (tools/grade.py): its options, and one run from the checks to the
scoreboard and results.json."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import safe_output  # tools/safe_output.py: where outputs may go (tools/ is on sys.path)

from .build import build_failed_line, build_lessons, out_of_date, read_build_log
from .buildtree import check_build_dir, normalize_lessons, select_lessons
from .ctest import TIMEOUT_SCALE_ENV, run_ctest_for_junit
from .gradescope import gradescope_json, write_json
from .model import BUILD_LOG_NAME, JUNIT_NAME, TestResult, UsageError, shown_path
from .process import StatusLine
from .render import ansi_colour, grade_on_a_gpu, no_colour, render_scoreboard, use_colour
from .results import matching_ctest_log, parse_results, read_ctest_log, read_junit
from .scoring import build_scoreboard, mark_quick
from .tables import load_lessons

GRADER = Path(__file__).resolve().parents[1] / "grade.py"  # the command the scoreboard names
SOURCE_DIR = GRADER.parent.parent  # the course source tree that holds tools/

EXIT_OK = 0
EXIT_BUILD_FAILED = 1
EXIT_USAGE = 2


def default_jobs(cpus: Optional[int]) -> int:
    """Rows at once by default: three quarters of the CPUs, at most 12. A row that waits on the
    GPU spins a CPU, and a sanitizer row works on several: on an H200 machine of 16 CPUs the
    solved course graded in 170 s at 8 rows and 158 s at 12; at 16 every CPU was busy and 104 of
    the 190 rows were done after 153 s (docs/pages/grading.md)."""
    return max(1, min((cpus or 1) * 3 // 4, 12))


# Every option, in the order --help lists them: its flags, then argparse's keywords.
OPTIONS = (
    (("--build-dir",), dict(required=True, type=Path,
                            help="CMake build directory (where ctest runs)")),
    (("--source-dir",), dict(type=Path, default=SOURCE_DIR,
                             help="course source tree holding lessons/ (default: the parent of "
                                  "tools/)")),
    (("--lessons",), dict(nargs="+", metavar="NN",
                          help="only these lessons, e.g. --lessons 01 02")),
    (("--json",), dict(type=Path, metavar="PATH",
                       help="also write Gradescope's results.json here")),
    (("--junit",), dict(type=Path, metavar="FILE",
                        help=f"JUnit file to read with --no-run (default: BUILD/{JUNIT_NAME})")),
    (("--no-run",), dict(action="store_true",
                         help="do not run ctest; score an existing JUnit file")),
    (("--color",), dict(choices=("auto", "always", "never"), default="auto",
                        help="colour the status column (auto: only on a terminal without "
                             "NO_COLOR)")),
    (("--ctest",), dict(default="ctest", metavar="PATH",
                        help="the ctest executable (default: ctest on PATH)")),
    (("--build-log",), dict(type=Path, metavar="FILE",
                            help="the build's log: a lesson that did not build shows its first "
                                 "error")),
    (("--timeout-scale",), dict(type=float, metavar="F",
                                help=f"export {TIMEOUT_SCALE_ENV}=F to ctest, for slow GPUs")),
    (("--jobs", "-j"), dict(type=int, metavar="N", default=None,
                            help="rows run at once (default: three quarters of the CPUs, at "
                                 "most 12); timed rows always run alone")),
    (("--quick",), dict(action="store_true",
                        help="correctness only: skip the timed rows and the sanitizer row, for "
                             "iterating on one rung (the grade needs a full run)")),
    (("--all-rows",), dict(action="store_true",
                           help="show every row, also when no GPU was usable (default: one line "
                                "per lesson then)")),
    (("--build",), dict(action="store_true",
                        help="build the graded lessons first, going on past one that does not "
                             "compile (shown NOT BUILT with its first error); log: "
                             f"BUILD/{BUILD_LOG_NAME}")),
)


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Run the student tests through CTest and print the scoreboard.",
    )
    for flags, keywords in OPTIONS:
        parser.add_argument(*flags, **keywords)
    args = parser.parse_args(argv)
    if args.build and args.no_run:
        parser.error("--build and --no-run exclude each other")
    if args.build and args.build_log:
        parser.error(f"--build keeps its own build log (BUILD/{BUILD_LOG_NAME}); drop --build-log")
    if args.timeout_scale is not None and args.timeout_scale <= 0:
        parser.error("--timeout-scale must be positive")
    if args.jobs is None:
        args.jobs = default_jobs(os.cpu_count())
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.lessons:
        try:
            args.lessons = normalize_lessons(args.lessons)
        except UsageError as err:
            parser.error(str(err))
    return args


def obtain_results(args: argparse.Namespace, known_lessons: List[str],
                   stale: Optional[Dict[str, str]] = None,
                   status: Optional[StatusLine] = None) -> Tuple[List[TestResult], float]:
    """Run ctest (unless --no-run) over the lessons that are not stale and read its JUnit file;
    return results and seconds."""
    build_dir: Path = args.build_dir.resolve()
    stale = stale or {}
    if args.no_run:
        junit = (args.junit or build_dir / JUNIT_NAME).resolve()
        seconds: Optional[float] = None
    else:
        fresh = [number for number in known_lessons if number not in stale]
        if not fresh:
            return [], 0.0  # nothing to run: every lesson's program is out of date
        selection = fresh if stale else args.lessons
        junit, seconds = run_ctest_for_junit(args, build_dir, selection,
                                             status or StatusLine(sys.stderr))
    root = read_junit(junit)
    results = parse_results(root, read_ctest_log(matching_ctest_log(junit)))
    # The run's own fixtures (course/ceilings_fresh) are no student's row.
    results = [r for r in results if not r.ctest_name.startswith("course/")]
    if args.lessons:
        results = [r for r in results if r.lesson in args.lessons]
    else:
        results = [r for r in results if r.lesson is None or r.lesson in known_lessons]
    results = [r for r in results if r.lesson not in stale]
    if seconds is None:
        seconds = sum(result.duration for result in results)
    return results, seconds


def configure_stdout() -> None:
    """Never die on a terminal that cannot show '↳' or '·'."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="replace")
        except (ValueError, OSError):
            pass


def all_rows_command(args: argparse.Namespace) -> str:
    """The footer's command: this run's rows, every one of them."""
    command = ["python3", shown_path(GRADER), "--build-dir",
               shown_path(args.build_dir.resolve())]
    if args.lessons:
        command += ["--lessons", *args.lessons]
    return shlex.join(command + ["--no-run", "--all-rows"])


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    configure_stdout()
    try:
        source_dir = args.source_dir.resolve()
        tree = None if args.no_run else check_build_dir(args.build_dir.resolve(), source_dir)
        args.lessons = select_lessons(source_dir, args.lessons, tree.lessons if tree else None)
        if args.json:
            try:
                args.json = safe_output.check_output_file(args.json, protect=[source_dir])
            except safe_output.OutputRefused as err:
                raise UsageError(f"--json: {err}") from None
        lessons, warnings = load_lessons(source_dir, args.lessons)
        numbers = [lesson.number for lesson in lessons]
        status = StatusLine(sys.stderr)
        built = True
        if args.build:
            assert tree is not None
            built = build_lessons(tree, numbers, tree.path / BUILD_LOG_NAME, status)
            args.build_log = tree.path / BUILD_LOG_NAME
        build_log = read_build_log(args.build_log)
        stale = out_of_date(tree, numbers, build_log, warnings) if tree is not None else {}
        results, seconds = obtain_results(args, numbers, stale, status)
        board = build_scoreboard(lessons, results, warnings, build_log, stale)
        if args.quick:
            mark_quick(board)
        board.all_rows_command = all_rows_command(args)
        board.gpu_advice = grade_on_a_gpu(source_dir, shown_path(GRADER),
                                          shown_path(args.build_dir.resolve()))
        plain = render_scoreboard(board, no_colour, args.all_rows)
        coloured = use_colour(args.color, sys.stdout)
        sys.stdout.write(render_scoreboard(board, ansi_colour, args.all_rows) if coloured else plain)
        sys.stdout.flush()
        if args.json:
            write_json(args.json, gradescope_json(board, plain, seconds))
    except UsageError as err:
        print(f"grade.py: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    if not built:
        assert tree is not None
        print(build_failed_line(tree, stale), file=sys.stderr)
        return EXIT_BUILD_FAILED
    return EXIT_OK
