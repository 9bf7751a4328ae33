#!/usr/bin/env python3
"""The student edition stands on its own: export it, configure it, build it, grade it.

    python3 tests/unit/test_student_edition.py --work DIR [--jobs N]

1. tools/student_edition.py writes the edition of the working tree (uncommitted changes
   included) into DIR/src, replacing what was there;
2. the edition holds no solution, mutant, instructor page or instructor tool, and its texts are
   the students' (the edition markers applied: no instructor block, the student blocks shown);
   no answer key either: no file named *answers*.md, and no file with the line that marks every
   answer page (docs/pages/instructor/lessonNN_answers.md);
3. it configures with -DCOURSE_LESSONS=01 and the solutions, mutants and instructor docs are off;
4. it builds lesson 01 and the harness (targets lesson01_test_student, lesson01_demo_student);
   the demo's usage names the binary;
5. its student tests pass or fail by their exit code alone (no PASS/FAIL/SKIP regular
   expression, no WILL_FAIL), with a TIMEOUT and SKIP_RETURN_CODE 77;
6. its own tools/grade.py grades it and writes a results.json; without a GPU the scoreboard is
   the short one, with the reason once.

Build cost: only lesson 01 and the harness are built (nvcc is slow and CI has two cores; the
whole clean build must stay within 15 minutes), through ccache when the build finds it, with
CCACHE_BASEDIR set to DIR so that a rerun in the same place hits the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import List

REPO = Path(__file__).resolve().parents[2]
LESSON = "01"
TARGETS = [f"lesson{LESSON}_test_student", f"lesson{LESSON}_demo_student"]
MUST_BE_ABSENT = ["solutions", "tests/01_constant_memory/mutants", "tests/02_transpose/mutants",
                  "tests/hostile", "tests/cluster", "docs/pages/instructor", "notes",
                  "tools/cluster", "tools/make_mutant.sh", "tools/gpu_check.sh",
                  "tools/student_edition.py", "tests/unit/test_student_edition.py",
                  "tests/unit/test_outputs.py", "tests/unit/test_edition_text.py",
                  "tests/unit/test_fresh_clone.py", "slides/results/README.md"]
MUST_BE_PRESENT = ["CMakeLists.txt", "CMakePresets.json", "README.md", "tools/grade.py",
                   "tools/course_grade/cli.py", "tests/unit/grade_fixtures.py",
                   "tests/unit/test_rung_kinds.py",
                   "common/src/test_main.cpp", "lessons/01_constant_memory/constant_memory.cu",
                   "tests/01_constant_memory/test_constant_memory.cpp", "tools/safe_output.py",
                   "tools/edition_text.py", ".course-output"]
# Every answer page (docs/pages/instructor/lessonNN_answers.md) carries this line; no file of the
# edition may.
ANSWER_MARKER = "Answer key (instructor edition only)"
sys.path.insert(0, str(REPO / "tools"))
import edition_text  # noqa: E402
import safe_output  # noqa: E402


def run(command: List[str], log: Path, env: dict) -> None:
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as out:
        result = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=env, check=False)
    print(f"  {Path(command[0]).name} {' '.join(command[1:3])} ... "
          f"{time.monotonic() - started:.0f} s (log: {log})", flush=True)
    if result.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-30:]
        raise AssertionError(f"{' '.join(command)} failed ({result.returncode}):\n" + "\n".join(tail))


def check_layout(src: Path) -> None:
    absent = [path for path in MUST_BE_ABSENT if (src / path).exists()]
    assert not absent, f"the edition holds instructor files: {absent}"
    missing = [path for path in MUST_BE_PRESENT if not (src / path).is_file()]
    assert not missing, f"the edition lacks {missing}"
    stray = [str(p.relative_to(src)) for p in src.rglob("*.patch")]
    assert not stray, f"the edition holds patches: {stray}"


def check_texts(src: Path) -> None:
    """Every text of the edition is the students' edition of this repository's text."""
    for path in sorted(src.rglob("*.md")):
        relative = path.relative_to(src)
        source = REPO / relative
        if not source.is_file():
            continue
        expected = edition_text.apply(source.read_text(encoding="utf-8"), "student")
        assert path.read_text(encoding="utf-8") == expected, f"{relative}: not the student text"
    readme = (src / "README.md").read_text(encoding="utf-8")
    assert "This is the **student edition**" in readme, "the edition's README does not say what it is"
    for instructor_only in ("## Grading a class", "tools/student_edition.py", "solutions/NN_name"):
        assert instructor_only not in readme, f"the edition's README names {instructor_only}"


def check_no_answers(src: Path) -> None:
    """The answer keys stay with the instructors: no answer page by name, and no file holding the
    marker line of one (an answer page copied or pasted elsewhere)."""
    pages = sorted((REPO / "docs/pages/instructor").glob("*answers*.md"))
    assert pages, "no answer pages in docs/pages/instructor: nothing to check"
    unmarked = [page.name for page in pages
                if ANSWER_MARKER not in page.read_text(encoding="utf-8")]
    assert not unmarked, f"answer pages without the line {ANSWER_MARKER!r}: {unmarked}"
    named = [str(path.relative_to(src)) for path in src.rglob("*answers*.md")]
    assert not named, f"the edition holds answer pages: {named}"
    marker = ANSWER_MARKER.encode("utf-8")
    holding = [str(path.relative_to(src)) for path in sorted(src.rglob("*"))
               if path.is_file() and not path.is_symlink() and marker in path.read_bytes()]
    assert not holding, f"the edition holds answer text ({ANSWER_MARKER!r}): {holding}"


def check_cache(build: Path) -> None:
    cache = (build / "CMakeCache.txt").read_text(encoding="utf-8")
    for line in ("COURSE_BUILD_SOLUTIONS:BOOL=OFF", "COURSE_BUILD_MUTANTS:BOOL=OFF",
                 "COURSE_DOCS_EDITION:STRING=student", "SLIDES_EDITION:STRING=student"):
        assert line in cache, f"the edition's configuration lacks {line}"


def check_student_tests(build: Path, env: dict) -> int:
    shown = subprocess.run(["ctest", "--test-dir", str(build), "--show-only=json-v1"], env=env,
                           check=True, capture_output=True, text=True)
    tests = json.loads(shown.stdout)["tests"]
    names = [test["name"] for test in tests]
    assert not [n for n in names if "/solution/" in n or "/mutant/" in n], names
    student = [test for test in tests if test["name"].startswith(f"lesson{LESSON}/student/")]
    assert student, f"no lesson{LESSON}/student tests in {names}"
    for test in student:
        props = {prop["name"]: prop["value"] for prop in test.get("properties", [])}
        for forbidden in ("PASS_REGULAR_EXPRESSION", "FAIL_REGULAR_EXPRESSION",
                          "SKIP_REGULAR_EXPRESSION", "WILL_FAIL"):
            assert not props.get(forbidden), f"{test['name']} has {forbidden}: {props[forbidden]}"
        assert props.get("SKIP_RETURN_CODE") == 77, f"{test['name']}: {props}"
        assert props.get("TIMEOUT", 0) > 0, f"{test['name']} has no TIMEOUT"
    return len(student)


def check_demo_usage(build: Path, env: dict) -> None:
    demo = build / "lessons" / "01_constant_memory" / TARGETS[1]
    shown = subprocess.run([str(demo), "--help"], env=env, capture_output=True, text=True, check=False)
    assert shown.returncode == 0, (f"{demo.name} --help exited with {shown.returncode}:\n"
                                   f"{shown.stdout}{shown.stderr}")
    assert f"{TARGETS[1]} [OPTIONS]" in shown.stdout, f"the usage does not name {TARGETS[1]}:\n{shown.stdout}"


def check_grade(src: Path, build: Path, work: Path, env: dict) -> None:
    results = work / "results.json"
    # --quick: correctness rows only. The skeleton's timed rows would fail at once ("not
    # implemented"), and leaving them out lets this test share the GPU with the others.
    run([sys.executable, str(src / "tools/grade.py"), "--build-dir", str(build), "--source-dir",
         str(src), "--lessons", LESSON, "--json", str(results), "--color", "never", "--quick"],
        work / "grade.log", env)
    data = json.loads(results.read_text(encoding="utf-8"))
    names = {test["name"]: test for test in data["tests"]}
    bad_arguments = names[f"lesson{LESSON} launcher.bad_arguments"]
    assert bad_arguments["status"] == "passed", bad_arguments  # a CPU test: passes everywhere
    assert all(name.startswith(f"lesson{LESSON} ") for name in names), list(names)
    board = (work / "grade.log").read_text(encoding="utf-8")
    if "GPU: none usable" in board:  # the short scoreboard: a line per lesson, the reason once
        assert "No GPU was usable, so no kernel was checked" in board, board
        assert "Without a GPU you can still:" in board and "a lab machine" in board, board
        assert "SKIP" not in board, board
    print(board)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="scratch directory (replaced)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--generator", default="Ninja")
    args = parser.parse_args()
    work = args.work.resolve()
    src, build = work / "src", work / "build"
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, CCACHE_BASEDIR=str(work))
    env.pop("COURSE_CPU_ONLY", None)  # the grade run decides by itself whether there is a GPU

    print(f"student edition check in {work}", flush=True)
    if src.exists() and safe_output.changes_since_mark(src) is None:
        # An edition from before editions were marked, or listed their files (which --force
        # then refuses to replace): this test's own scratch, removed by hand.
        subprocess.run(["cmake", "-E", "rm", "-rf", str(src)], check=True)
    run([sys.executable, str(REPO / "tools/student_edition.py"), str(src), "--force", "--worktree"],
        work / "export.log", env)
    check_layout(src)
    check_texts(src)
    check_no_answers(src)
    if build.exists():
        subprocess.run(["cmake", "-E", "rm", "-rf", str(build)], check=True)
    run(["cmake", "-S", str(src), "-B", str(build), "-G", args.generator,
         f"-DCOURSE_LESSONS={LESSON}"], work / "configure.log", env)
    check_cache(build)
    run(["cmake", "--build", str(build), "-j", str(args.jobs), "--target", *TARGETS],
        work / "build.log", env)
    check_demo_usage(build, env)
    count = check_student_tests(build, env)
    check_grade(src, build, work, env)
    print(f"student edition: exported, configured, built and graded ({count} student tests)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as err:
        print(f"FAILED: {err}", file=sys.stderr)
        sys.exit(1)
