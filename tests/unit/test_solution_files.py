#!/usr/bin/env python3
"""A lesson's solution is what a student could hand in: the skeleton's own files, nothing more.

    python3 tests/unit/test_solution_files.py [--root COURSE]   (CTest: unit/solution_files, unit;cpu)

A student hands in the files of a lesson that carry ``TODO(student)``; the grader builds them with
the rest of the edition, and nothing else counts. The instructor build compiles solutions/NN_name/
with that directory on the include path, so a solution could lean on a header of its own that no
student can hand in, and pass every instructor test while failing to build as a submission (lesson
03's register-staged fallback and lesson 13's softmax header once did: tools/gpu_check.sh's "full"
step, the solutions graded as a student's work, found them NOT BUILT). This test holds, for every
lesson, without a GPU:

1. every file in solutions/NN_name/ has a file of the same name in lessons/NN_name/ that carries
   ``TODO(student)``;
2. every ``#include "..."`` of a solution file names a file a submission can reach: one of the
   lesson's own (lessons/NN_name/) or the harness's (common/include/), never one under solutions/.

TheCheckFails adds a header of its own to a copy of a lesson's solution, in turn, and expects
this test to name it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import unittest
from pathlib import Path
from typing import List

REPO = Path(__file__).resolve().parents[2]
ROOT = REPO
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def problems(root: Path) -> List[str]:
    found = []
    for solution_dir in sorted((root / "solutions").glob("[0-9][0-9]_*")):
        lesson_dir = root / "lessons" / solution_dir.name
        for solution in sorted(p for p in solution_dir.iterdir() if p.is_file()):
            shown = solution.relative_to(root)
            skeleton = lesson_dir / solution.name
            if not skeleton.is_file():
                found.append(f"{shown}: lessons/{solution_dir.name}/ has no {solution.name}, so a "
                             "student cannot hand it in")
                continue
            if "TODO(student)" not in skeleton.read_text(encoding="utf-8"):
                found.append(f"{shown}: lessons/{solution_dir.name}/{solution.name} has no "
                             "TODO(student), so it is not a file a student hands in")
            for name in INCLUDE.findall(solution.read_text(encoding="utf-8")):
                reachable = (lesson_dir / name).is_file() or (root / "common" / "include" / name).is_file()
                if not reachable:
                    found.append(f'{shown}: #include "{name}" is neither in lessons/'
                                 f"{solution_dir.name}/ nor in common/include/: a submission "
                                 "would not build")
    return found


class SolutionFiles(unittest.TestCase):
    def test_every_solution_is_a_submission(self):
        found = problems(ROOT)
        self.assertEqual(found, [], "\n".join(found))


class TheCheckFails(unittest.TestCase):
    """A copy of lesson 02 with a header only the solution has, included or not."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="solution-files."))
        for part in ("lessons/02_transpose", "solutions/02_transpose", "common/include"):
            shutil.copytree(REPO / part, self.tmp / part)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_the_copy_passes(self):
        self.assertEqual(problems(self.tmp), [])

    def test_a_header_of_its_own(self):
        (self.tmp / "solutions/02_transpose/helpers.cuh").write_text("#pragma once\n")
        found = problems(self.tmp)
        self.assertEqual(len(found), 1, found)
        self.assertIn("solutions/02_transpose/helpers.cuh: lessons/02_transpose/ has no", found[0])

    def test_an_include_no_submission_reaches(self):
        solution = self.tmp / "solutions/02_transpose/transpose.cu"
        solution.write_text('#include "helpers.cuh"\n' + solution.read_text(encoding="utf-8"))
        found = problems(self.tmp)
        self.assertEqual(len(found), 1, found)
        self.assertIn('#include "helpers.cuh" is neither in lessons/02_transpose/', found[0])

    def test_a_skeleton_without_a_todo(self):
        skeleton = self.tmp / "lessons/02_transpose/transpose.cu"
        skeleton.write_text(skeleton.read_text(encoding="utf-8").replace("TODO(student)", "TODO"))
        found = problems(self.tmp)
        self.assertTrue(any("has no TODO(student)" in line for line in found), found)


def main() -> int:
    global ROOT
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=REPO, help="the course to check")
    args, rest = parser.parse_known_args()
    ROOT = args.root.resolve()
    return 0 if unittest.main(argv=[sys.argv[0]] + rest, exit=False).result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
