#!/usr/bin/env python3
"""Course grader: turns CTest's results for the student tests into a scoreboard.

Usage
-----
    python3 tools/grade.py --build-dir build                  # run ctest, then score
    python3 tools/grade.py --build-dir build --build          # build the lessons first
    python3 tools/grade.py --build-dir build --lessons 02 --build  # one lesson, rebuilt and graded
    python3 tools/grade.py --build-dir build --lessons 01 02  # only some lessons
    python3 tools/grade.py --build-dir build --no-run         # re-score the last run
    python3 tools/grade.py --build-dir build --json results.json   # Gradescope
    python3 tools/grade.py --build-dir build --build-log build.log # name compile errors
    python3 tools/grade.py --build-dir build --no-run --all-rows   # every row, even without a GPU

The grader builds the lessons (with ``--build``), runs ctest over the student tests (unless
``--no-run``: then it reads an existing JUnit file, ``--junit FILE``, default
``BUILD/grade-junit.xml``), and prints the scoreboard: the points of each lesson's README grading
table that CTest's pass/fail status earned, with the reason under every row that did not pass.
``--json PATH`` also writes Gradescope's results.json.

The code is the package beside this file, tools/course_grade/, one concern a module (its
__init__.py lists them): what the README tables say (tables), what is checked before anything
is written (buildtree), the build (build), running ctest (ctest), reading its results (results,
reasons), points (scoring), and the outputs (render, gradescope).

Outputs and exit code
---------------------
Exit code 0 whenever the scoreboard was produced (failing tests are normal),
except with ``--build``: 1 when the build failed (the scoreboard shows what did not build, and
a last line says so); 2 for usage errors, a build directory that is not a configured build of
the course, an output that cannot be written (``--json``: not a directory, not a source file),
or a missing/unreadable JUnit file (the previous one is kept).  Each of these says why in one
line.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from course_grade.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
