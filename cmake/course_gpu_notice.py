#!/usr/bin/env python3
"""After a CTest run, say so when no kernel was checked: no test ran on a GPU.

    course_gpu_notice.py BUILD_DIR     (CTest's CTEST_CUSTOM_POST_TEST: cmake/CourseGrade.cmake)

CTest counts a skipped test as passed ("100% tests passed") and shows no skipped test's output,
so a run without a GPU looks like a success. This reads the log of the run that just ended, as
CTest writes it (BUILD/Testing/Temporary/LastTest*.log.tmp, with a suffix since CMake 4; renamed
once CTest is done), and when tests were skipped with "[course] SKIPPED: <reason>" and no test
printed "[course] gpu:" (none ran on a GPU), prints

    [course] No kernel was checked: no test of this run had a GPU, and the N tests that need
             one were skipped (<reason>). "tests passed" counts only the tests that need none.

then where to grade on a GPU (course_grade's grade_on_a_gpu(), as the no-GPU scoreboard
says it). Otherwise it prints nothing: CTest runs it after `ctest -N` and `--show-only` too, whose
output a program may read. It always exits 0, since a failing post-test command fails the run.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional, Tuple

SOURCE_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(SOURCE_DIR / "tools"))
# The scoreboard's patterns and advice (tools/course_grade/, the grader's package).
from course_grade.reasons import SKIPPED_RE  # noqa: E402
from course_grade.render import grade_on_a_gpu  # noqa: E402
from course_grade.results import GPU_RE  # noqa: E402

OUTPUT_BEGIN = "Output:"
OUTPUT_END = "<end of output>"


def run_log(build_dir: Path) -> Optional[Path]:
    """The log of the CTest run in progress: the newest LastTest*.log.tmp (CMake 3) or
    LastTest*.log.tmp<suffix> (CMake 4 adds a random suffix)."""
    logs = list((build_dir / "Testing" / "Temporary").glob("LastTest*.log.tmp*"))
    return max(logs, key=lambda path: path.stat().st_mtime) if logs else None


def test_outputs(log: str) -> List[str]:
    """The output of every test in a CTest log (between "Output:" and "<end of output>")."""
    outputs: List[str] = []
    current: Optional[List[str]] = None
    for line in log.splitlines():
        if current is None and line == OUTPUT_BEGIN:
            current = []
        elif current is not None and line == OUTPUT_END:
            outputs.append("\n".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return outputs


def no_kernel_checked(outputs: List[str]) -> Optional[Tuple[int, str]]:
    """(tests skipped, the first reason) when tests were skipped and none ran on a GPU."""
    if any(GPU_RE.search(output) for output in outputs):
        return None
    reasons = [match.group(1).strip() for match in
               (SKIPPED_RE.search(output) for output in outputs) if match]
    return (len(reasons), reasons[0]) if reasons else None


def from_the_course(path: Path) -> str:
    """path as the README's commands write it: relative to the course's directory, where a
    student types them (CTest runs this command in the build directory, and says nothing of
    where it was started)."""
    try:
        return str(path.relative_to(SOURCE_DIR))
    except ValueError:
        return str(path)


def notice(build_dir: Path) -> List[str]:
    log = run_log(build_dir)
    if log is None:
        return []
    found = no_kernel_checked(test_outputs(log.read_text(encoding="utf-8", errors="replace")))
    if found is None:
        return []
    count, reason = found
    tests = "the test that needs one was" if count == 1 else f"the {count} tests that need one were"
    return ["",
            f"[course] No kernel was checked: no test of this run had a GPU, and {tests} skipped",
            f"         ({reason}). \"tests passed\" counts only the tests that need no GPU.",
            *grade_on_a_gpu(SOURCE_DIR, from_the_course(SOURCE_DIR / "tools" / "grade.py"),
                                  from_the_course(build_dir))]


def main(argv: List[str]) -> int:
    try:
        lines = notice(Path(argv[1]).resolve()) if len(argv) == 2 else []
    except Exception as error:  # noqa: BLE001  (a notice must never fail the CTest run)
        print(f"[course] (the no-GPU notice could not be made: {type(error).__name__}: {error})",
              file=sys.stderr)
        lines = []
    if lines:
        print("\n".join(lines), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
