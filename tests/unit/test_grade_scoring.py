#!/usr/bin/env python3
"""Unit tests of tools/grade.py's rows and points (course_grade.scoring): the integrity check
withholds a lesson's exercise and stretch points when it fails.

Run from the repository root:  python3 tests/unit/test_grade_scoring.py
"""

from __future__ import annotations

import unittest
from typing import List

import grade_fixtures  # noqa: F401  (tools/ on sys.path)
from course_grade.model import FAIL, PASS, Measurement, Row, TestResult
from course_grade.scoring import INTEGRITY, integrity_row


class IntegrityRow(unittest.TestCase):
    """lessonNN/student/integrity: a borrowed library withholds the lesson's exercise points."""

    def result(self, status: str) -> "TestResult":
        return TestResult(ctest_name="lesson05/student/integrity", lesson="05",
                                name=INTEGRITY, status=status,
                                reason="integrity: uses CUB: cub::DeviceReduce::Sum", duration=0.1,
                                output="", measurement=Measurement())

    def rows(self) -> List["Row"]:
        return [Row("05", "given.correct", "given", PASS, 1, 1),
                Row("05", "fast.correct", "exercise", PASS, 3, 3),
                Row("05", "fast.speed", "stretch", PASS, 2, 2)]

    def test_failure_withholds_exercise_and_stretch_points(self) -> None:
        rows = self.rows()
        row = integrity_row(self.result(FAIL), rows)
        self.assertEqual([r.points_got for r in rows], [1, 0, 0])
        self.assertIn("integrity", rows[1].reason)
        self.assertEqual(row.name, "integrity")
        self.assertIsNone(row.points_max)

    def test_pass_keeps_points(self) -> None:
        rows = self.rows()
        integrity_row(self.result(PASS), rows)
        self.assertEqual([r.points_got for r in rows], [1, 3, 2])


if __name__ == "__main__":
    unittest.main(verbosity=2)
