#!/usr/bin/env python3
"""Tests of figures.py: the course's texts agree with the committed results, and the check fails
when either side changes.

    python3 slides/test_figures.py            (CTest: slides/figures, labels unit;cpu;slides)
"""

from __future__ import annotations

import io
import json
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

SLIDES = Path(__file__).resolve().parent
sys.path.insert(0, str(SLIDES))
import figures  # noqa: E402  (slides/figures.py)

RUN = {"gpu": "NVIDIA Test H100 80GB HBM3 (cc 9.0, 132 SMs)", "driver": "580.1", "cuda": "13.0",
       "date": "2026-11-27", "commit": "abc"}
SET = {"gpu": RUN["gpu"], "tables": [{
    "ceiling": {"name": "device copy", "unit": "GB/s", "value": 3005.2},
    "rows": [
        {"rung": "naive", "median_ms": 1.0, "speedup": 1.0, "share": 0.1, "metric": 300.5,
         "extra": {}},
        {"rung": "tiled", "median_ms": 0.25, "speedup": 4.0, "share": 0.4012, "metric": 1202.1,
         "extra": {"seed ms": "2.50", "of SSYRK": "109.1 %"}},
        {"rung": "cuBLAS SGEMM", "median_ms": 0.2, "speedup": 5.0, "share": 0.5, "metric": 1500.0,
         "extra": {}},
        {"rung": "swept", "median_ms": 2.0, "speedup": 0.5, "share": 0.05, "metric": 150.0,
         "extra": {"array length": "1024"}},
        {"rung": "swept", "median_ms": 3.0, "speedup": 0.33, "share": 0.033, "metric": 100.0,
         "extra": {"array length": "2048"}},
    ]}]}
TEXT = ("Measured on an NVIDIA H100<!-- gpu: test-h100 -->:\n"
        "tiled takes 0.250 ms<!-- fig: 02_transpose tiled ms -->, 40.1 %<!-- fig: 02_transpose "
        "tiled share --> of the copy,\n"
        "4×<!-- fig: 02_transpose tiled step --> naive; the copy moves 3.0 TB/s<!-- fig: "
        "02_transpose - ceiling/1000 -->.\n")


def run(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = figures.main(list(args))
    return code, out.getvalue() + err.getvalue()


class FiguresTest(unittest.TestCase):
    def setUp(self):
        self.work = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.work)
        results = self.work / "slides" / "results" / "test-h100"
        results.mkdir(parents=True)
        (results / "run.json").write_text(json.dumps(RUN), encoding="utf-8")
        (results / "02_transpose.json").write_text(json.dumps(SET), encoding="utf-8")
        self.text = self.work / "README.md"
        self.text.write_text(TEXT, encoding="utf-8")

    def check(self, *extra: str) -> tuple[int, str]:
        return run("--root", str(self.work), *extra)

    def test_the_course_agrees_with_its_results(self):
        code, output = run()
        self.assertEqual(code, 0, output)

    def test_figures_that_match_pass(self):
        code, output = self.check()
        self.assertEqual(code, 0, output)
        self.assertIn("4 figures in 1 text(s), 0 wrong", output)

    def test_a_changed_result_fails_naming_file_line_figure_and_source(self):
        doc = json.loads(json.dumps(SET))
        doc["tables"][0]["rows"][1]["share"] = 0.4234
        (self.work / "slides/results/test-h100/02_transpose.json").write_text(json.dumps(doc))
        code, output = self.check()
        self.assertEqual(code, 1)
        self.assertIn("README.md:2: 40.1 should be 42.3 (test-h100/02_transpose tiled share", output)

    def test_a_changed_figure_fails(self):
        self.text.write_text(TEXT.replace("0.250 ms", "0.260 ms"), encoding="utf-8")
        code, output = self.check()
        self.assertEqual(code, 1)
        self.assertIn("README.md:2: 0.260 should be 0.250", output)

    def test_fix_writes_figures_from_their_source(self):
        self.text.write_text(TEXT.replace("40.1 %", "38.7 %").replace("4×", "3×"))
        code, output = self.check("--fix")
        self.assertEqual(code, 0, output)
        self.assertEqual(self.text.read_text(encoding="utf-8"), TEXT)

    def test_a_figure_must_follow_its_gpu(self):
        self.text.write_text(TEXT.replace("an NVIDIA H100<!-- gpu: test-h100 -->", "a GPU"))
        code, output = self.check()
        self.assertEqual(code, 1)
        self.assertIn("a figure before the text names its GPU", output)

    def test_the_gpu_marker_must_follow_the_gpus_name(self):
        self.text.write_text(TEXT.replace("an NVIDIA H100", "an NVIDIA H200"))
        code, output = self.check()
        self.assertEqual(code, 1)
        self.assertIn("must name the GPU (H100)", output)

    def test_names_with_spaces_and_points_of_a_sweep(self):
        self.text.write_text(TEXT + "cuBLAS takes 0.20 ms<!-- fig: 02_transpose cuBLAS_SGEMM ms "
                             "-->, swept 3.0 ms<!-- fig: 02_transpose swept@array_length=2048 ms "
                             "--> and seed 2.5<!-- fig: 02_transpose tiled extra:seed_ms -->, 109 %<!-- fig: "
                             "02_transpose tiled extra:of_SSYRK -->.\n")
        code, output = self.check()
        self.assertEqual(code, 0, output)
        self.assertIn("8 figures", output)
        self.text.write_text(TEXT + "swept 3.0 ms<!-- fig: 02_transpose swept ms -->\n")
        code, output = self.check()
        self.assertEqual(code, 1)
        self.assertIn("no single row swept", output)

    def test_bad_input_is_refused_before_anything_is_written(self):
        for args in (["--root", str(self.work / "nowhere"), "--fix"],
                     ["--root", str(self.work), "--fix", str(self.work / "missing.md")]):
            with self.assertRaises(SystemExit) as exit_code, redirect_stderr(io.StringIO()):
                figures.main(args)
            self.assertEqual(exit_code.exception.code, 2)
        self.assertEqual(self.text.read_text(encoding="utf-8"), TEXT)

    def test_markers_in_code_are_examples(self):
        example = "`7 %<!-- fig: 02_transpose tiled share -->`\n```\n7 %<!-- fig: x y z -->\n```\n"
        self.text.write_text(example + TEXT, encoding="utf-8")
        code, output = self.check()
        self.assertEqual(code, 0, output)
        self.assertIn("4 figures", output)

    def test_markers_that_name_nothing_fail(self):
        for marker, message in (("tiles ms", "no row tiles in 02_transpose"),
                                ("tiled speed", "unknown field"),
                                ("tiled", "write <!-- fig: SET ROW FIELD -->")):
            wrong = TEXT.replace("02_transpose tiled ms", "02_transpose " + marker)
            self.text.write_text(wrong, encoding="utf-8")
            code, output = self.check()
            self.assertEqual(code, 1, marker)
            self.assertIn(message, output)


if __name__ == "__main__":
    unittest.main()
