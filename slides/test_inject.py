#!/usr/bin/env python3
"""Tests of inject.py, and of the decks themselves: every directive of every deck expands, and
the student edition holds no solution code. Needs neither Node nor Marp.

    python3 slides/test_inject.py            (CTest: slides/inject, labels unit;cpu;slides)
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

SLIDES = Path(__file__).resolve().parent
REPO = SLIDES.parent
sys.path.insert(0, str(SLIDES))
import exercise  # noqa: E402  (slides/exercise.py)
from inject import fit_comments, snippet  # noqa: E402  (slides/inject.py)
from deck_tools import RESULTS  # noqa: E402  (the committed set the decks show)
INJECT = SLIDES / "inject.py"
DECKS = sorted((SLIDES / "decks").glob("*.md"))
LESSON_TEXT = "\n".join(p.read_text(encoding="utf-8", errors="replace")
                        for p in sorted((REPO / "lessons").rglob("*")) if p.is_file())


def run(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(INJECT), *map(str, args)], capture_output=True,
                          text=True)


def region(path: Path, name: str) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    where = [i for i, line in enumerate(lines) if line.strip() == f"//! [{name}]"]
    return lines[where[0] + 1:where[1]]


class Decks(unittest.TestCase):
    def expand(self, edition: str, results: Path) -> dict[str, str]:
        with tempfile.TemporaryDirectory() as out:
            done = run("--source-dir", REPO, "--out", out, "--edition", edition,
                       "--results-dir", results, *DECKS)
            self.assertEqual(done.returncode, 0, done.stderr)
            return {p.name: p.read_text(encoding="utf-8") for p in Path(out).glob("*.md")}

    def test_every_directive_expands_in_both_editions(self):
        self.assertTrue(DECKS, "no deck in slides/decks")
        have_solutions = (REPO / "solutions").is_dir()  # a student checkout has none
        with tempfile.TemporaryDirectory() as empty:
            student = self.expand("student", Path(empty))
            instructor = self.expand("instructor", Path(empty)) if have_solutions else student
        for deck in DECKS:
            text = deck.read_text(encoding="utf-8")
            directives = re.findall(
                r"<!--\s*snippet:\s*(\S+)\s+(\S+)(?:\s+no-comments)?(?:\s+lines=(\S+))?", text)
            for edition in (student, instructor):
                self.assertNotIn("<!-- snippet:", edition[deck.name])
                self.assertNotIn("<!-- results:", edition[deck.name])
                self.assertNotIn("<!-- chart:", edition[deck.name])
                self.assertNotIn("<!-- roofline:", edition[deck.name])
            for file_name, name, ranges in directives:
                if file_name.startswith("solutions/"):
                    # The student deck shows the rung's exercise: the skeleton's stub and hints.
                    found = exercise.find(REPO, file_name, name)
                    self.assertIsNotNone(found, f"{deck.name}: no exercise for {file_name} {name}")
                    self.assertIn("\n".join(fit_comments(found.lines)), student[deck.name],
                                  f"{file_name} {name}")
                    self.assertIn(f"Your exercise, in `{found.path}`", student[deck.name])
                if file_name.startswith("solutions/") and not have_solutions:
                    continue
                code = [line.strip() for line in region(REPO / file_name, name)
                        if line.strip() and not line.strip().startswith("//")]
                if ranges:  # an elided snippet: only the lines it shows
                    shown = {line.strip() for line in snippet(REPO, file_name, name, False, ranges)}
                    code = [line for line in code if line in shown]
                if file_name.startswith("solutions/"):
                    # Check a line that only the solution has; a region that the skeleton
                    # already spells out (e.g. the __constant__ declaration) has nothing to hide.
                    code = [line for line in code if line not in LESSON_TEXT] or code
                longest = max(code, key=len)
                self.assertIn(longest, instructor[deck.name], f"{file_name} {name}")
                if file_name.startswith("solutions/"):
                    self.assertNotIn("(solution shown in the instructor edition)",
                                     student[deck.name])
                    if longest not in LESSON_TEXT:
                        self.assertNotIn(longest, student[deck.name],
                                         f"student {deck.name} shows {file_name} {name}")
                else:
                    self.assertIn(longest, student[deck.name], f"{file_name} {name}")


class Directives(unittest.TestCase):
    def inject(self, deck_text: str, results: Path | None = None,
               edition: str = "instructor") -> tuple[subprocess.CompletedProcess, str]:
        with tempfile.TemporaryDirectory() as work:
            deck = Path(work) / "deck.md"
            deck.write_text(deck_text, encoding="utf-8")
            out = Path(work) / "out"
            done = run("--source-dir", REPO, "--out", out, "--edition", edition,
                       "--results-dir", results or Path(work) / "none", deck)
            produced = out / "deck.md"
            return done, produced.read_text(encoding="utf-8") if produced.is_file() else ""

    def test_snippet_becomes_a_cpp_block(self):
        done, text = self.inject(
            "a\n<!-- snippet: lessons/02_transpose/transpose_given.cu naive_kernel -->\nb\n")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("```cpp\n// The copy with the output index swapped.", text)
        self.assertIn("out[at(col, row, rows)] = in[at(row, col, cols)];", text)
        self.assertTrue(text.startswith("a\n```cpp") and text.endswith("```\nb\n"), text)

    def test_no_comments_drops_comment_lines(self):
        done, text = self.inject(
            "<!-- snippet: lessons/02_transpose/transpose_given.cu naive_kernel no-comments -->\n")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertNotIn("// The copy", text)
        self.assertIn("__global__ void naive_kernel", text)

    def test_student_edition_shows_the_exercise_instead_of_the_solution(self):
        done, text = self.inject(
            "# Padded\n<!-- snippet: solutions/02_transpose/transpose.cu padded_kernel no-comments -->\n",
            edition="student")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertNotIn("__shared__ float tile[kTile][kTile + 1];", text)  # the solution's line
        self.assertIn('// TODO(student): rung "padded".', text)            # the hints are kept
        self.assertIn("__global__ void padded_kernel(", text)                # the stub
        self.assertIn("Your exercise, in `lessons/02_transpose/transpose.cu`", text)
        self.assertGreater(len(text.splitlines()), 6, text)  # not a title and one line

    def test_exercise_rules(self):
        cases = {("solutions/02_transpose/transpose.cu", "tiled_kernel"): "function tiled_kernel",
                 ("solutions/02_transpose/transpose.cu", "vectorized_kernel"): "rung vectorized",
                 ("solutions/03_matmul/matmul_stretch.cu", "warptiled_loop"): "marker warptiled_exercise",
                 ("solutions/06_box_blur/box_blur.cu", "pipeline_streams_chunks"):
                     "rung streams named in pipeline_streams_chunks"}
        for (file_name, name), how in cases.items():
            with self.subTest(name=name):
                found = exercise.find(REPO, file_name, name)
                self.assertIsNotNone(found)
                self.assertEqual(found.how, how)
                self.assertTrue(any("TODO(student)" in line for line in found.lines), found.lines)
                self.assertFalse(any(line.lstrip().startswith("//! [") for line in found.lines))

    def test_edition_markers_in_a_deck(self):
        deck = ("# A\n<!-- instructor:begin -->\nfor instructors\n<!-- instructor:end -->\n"
                "<!-- student:begin\nfor students\nstudent:end -->\n"
                "<!-- snippet: lessons/nowhere.cu kernel -->\n")
        for edition, shown, hidden in (("student", "for students", "for instructors"),
                                       ("instructor", "for instructors", "for students")):
            done, text = self.inject(deck.rsplit("<!-- snippet", 1)[0], edition=edition)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn(shown, text)
            self.assertNotIn(hidden, text)
            self.assertNotIn("begin", text)
        done, _ = self.inject(deck, edition="student")  # errors keep the deck's line numbers
        self.assertIn("deck.md:8", done.stderr)
        done, _ = self.inject("<!-- instructor:begin -->\nnever closed\n")
        self.assertEqual(done.returncode, 1)
        self.assertIn("the instructor block is never closed", done.stderr)

    def test_missing_results_name_the_editions_demo(self):
        done, text = self.inject("<!-- results: lessons/02_transpose -->\n", edition="student")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("Run `lesson02_demo_student --json` to fill this table.", text)

    def test_missing_marker_fails_clearly(self):
        done, _ = self.inject(
            "x\n<!-- snippet: lessons/02_transpose/transpose_given.cu no_such_marker -->\n")
        self.assertEqual(done.returncode, 1)
        self.assertIn("deck.md:2", done.stderr)
        self.assertIn("no marker '//! [no_such_marker]'", done.stderr)
        self.assertIn("naive_kernel", done.stderr)  # the markers that do exist

    def test_missing_file_fails_clearly(self):
        done, _ = self.inject("<!-- snippet: lessons/nowhere.cu kernel -->\n")
        self.assertEqual(done.returncode, 1)
        self.assertIn("no file lessons/nowhere.cu", done.stderr)

    def test_results_without_a_file(self):
        done, text = self.inject("<!-- results: lessons/02_transpose -->\n")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("Run `lesson02_demo_solution --json` to fill this table.", text)

    def test_results_table(self):
        doc = {"lesson": "02_transpose", "gpu": "NVIDIA Test GPU (cc 9.0, 132 SMs)",
               "tables": [{"title": "transpose, 8192 x 8192 floats", "metric_unit": "GB/s",
                           "baseline": "naive",
                           "ceiling": {"name": "device copy", "value": 3000.0, "unit": "GB/s",
                                       "what": "1 GiB cudaMemcpy"},
                           "rows": [{"rung": "naive", "kind": "given", "status": "ok",
                                     "median_ms": 1.5, "metric": 357.9, "speedup": 1.0,
                                     "share": 0.12, "note": ""},
                                    {"rung": "tiled", "kind": "exercise", "status": "ok",
                                     "median_ms": 0.5, "metric": 1073.7, "speedup": 3.0,
                                     "share": 0.36, "note": ""}],
                           "notes": []}]}
        with tempfile.TemporaryDirectory() as results:
            (Path(results) / "02_transpose.json").write_text(json.dumps(doc), encoding="utf-8")
            done, text = self.inject("<!-- results: lessons/02_transpose -->\n", Path(results))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("measured on NVIDIA Test GPU (cc 9.0, 132 SMs)", text)
        self.assertIn("| `tiled` | exercise | ok | 0.500 | 1073.7 | 3.00× | 0.36 |", text)

    def test_sweep_table_has_a_row_per_swept_value(self):
        done, text = self.inject("<!-- results: lessons/11_sorting_sweep_size -->\n",
                                 RESULTS)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("| array length | arrays | `bitonic` Mkeys/s | share of CUB radix sort | "
                      "`odd_even_merge` Mkeys/s | share of CUB radix sort |", text)
        rows = [line for line in text.splitlines() if re.match(r"^\| \d+ \| \d+ \| ", line)]
        self.assertEqual([row.split(" | ")[0] for row in rows],
                         ["| " + str(2 ** k) for k in (6, 9, 10, 12, 14, 16, 18, 20, 22, 24)])
        self.assertIn("`thrust` (not swept):", text)
        self.assertIn("threads/block = 1024 at every point.", text)

    def test_chart_without_a_file(self):
        done, text = self.inject("<!-- chart: lessons/02_transpose -->\n")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("Run `lesson02_demo_solution --json` to fill this chart.", text)
        self.assertIn("slides/results/<gpu>/02_transpose.json", text)

    def test_chart_is_inline_svg_in_one_html_block(self):
        done, text = self.inject("a\n\n<!-- chart: lessons/05_reduction -->\n\nb\n",
                                 RESULTS)
        self.assertEqual(done.returncode, 0, done.stderr)
        block = text.split("\n\n")[1]
        self.assertTrue(block.startswith('<div class="charts"') and block.endswith("</div>"),
                        block[:200])
        tables = json.loads((RESULTS / "05_reduction.json").read_text())["tables"]
        self.assertEqual(block.count("<svg "), len(tables))
        self.assertEqual(block.count('class="bar"'), sum(len(t["rows"]) for t in tables))
        ET.fromstring(block)  # well-formed as a whole

    def test_every_deck_has_a_chart_after_its_results(self):
        for deck in DECKS:
            text = deck.read_text(encoding="utf-8")
            lesson = re.search(r"<!--\s*results:\s*(\S+)\s*-->", text)
            self.assertTrue(lesson, deck.name)
            after = text[lesson.end():]
            self.assertIn(f"<!-- chart: {lesson.group(1)} -->", after.split("\n---\n")[1],
                          f"{deck.name}: the slide after the results has no chart")

    def test_bad_results_fail_clearly(self):
        with tempfile.TemporaryDirectory() as results:
            (Path(results) / "02_transpose.json").write_text("{", encoding="utf-8")
            done, _ = self.inject("<!-- results: lessons/02_transpose -->\n", Path(results))
        self.assertEqual(done.returncode, 1)
        self.assertIn("not the output of `lesson02_demo_solution --json`", done.stderr)

    def test_roofline_directive(self):
        done, text = self.inject("<!-- roofline: lessons/02_transpose -->\n")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("Run `lesson02_demo_solution --json` to fill this roofline.", text)
        doc = json.loads((RESULTS / "02_transpose.json").read_text())
        table = doc["tables"][0]
        for row in table["rows"]:
            row["work"] = {"ops": 2.0 ** 26, "bytes": 2.0 ** 29}
        table["roofline"] = {"ops_unit": "element", "compute": None,
                             "memory": {"name": "device copy", "value": 3000.0, "unit": "GB/s",
                                        "what": "w"}}
        with tempfile.TemporaryDirectory() as results:
            (Path(results) / "02_transpose.json").write_text(json.dumps(doc), encoding="utf-8")
            done, text = self.inject("<!-- roofline: lessons/02_transpose -->\n", Path(results))
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(text.count("<svg "), 1)
            self.assertEqual(text.count('class="point"'), len(table["rows"]))
            done, text = self.inject("<!-- roofline: lessons/02_transpose 2 -->\n", Path(results))
            self.assertIn("to fill this roofline", text)   # there is one roofline only
        done, _ = self.inject("<!-- roofline: lessons/02_transpose zero -->\n")
        self.assertEqual(done.returncode, 1)
        self.assertIn("write <!-- roofline: lessons/<NN_name> [K] -->", done.stderr)

    def test_every_deck_has_a_roofline_after_its_chart(self):
        for deck in DECKS:
            text = deck.read_text(encoding="utf-8")
            lesson = re.search(r"<!--\s*chart:\s*(\S+)\s*-->", text)
            if lesson is None:
                continue
            self.assertIn(f"<!-- roofline: {lesson.group(1)} -->", text, deck.name)


if __name__ == "__main__":
    unittest.main(verbosity=2)
