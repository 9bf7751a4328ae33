#!/usr/bin/env python3
"""Tests of chart.py: each table of a demo's JSON becomes one SVG, which parses as XML, holds one
bar per rung, and draws bars whose widths are proportional to the rungs' shares; a sweep becomes
a line chart with one line per swept rung and a reference line per other rung and the ceiling.
A table with its work and roofs also gets a roofline whose points sit where the rungs' intensity
and rate put them, under the lower of the two roofs; a table with a timeline is drawn as lanes.
Also draws every committed set in slides/results/<gpu>/.

    python3 slides/test_chart.py            (CTest: slides/chart, labels unit;cpu;slides)
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

SLIDES = Path(__file__).resolve().parent
sys.path.insert(0, str(SLIDES))
import chart  # noqa: E402
from deck_tools import RESULTS  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"

DOC = {"lesson": "02_transpose", "gpu": "NVIDIA Test GPU (cc 9.0, 132 SMs)",
       "tables": [{"title": "transpose <8192 x 8192> & friends", "metric_unit": "GB/s",
                   "baseline": "naive",
                   "ceiling": {"name": "device copy", "value": 3000.0, "unit": "GB/s",
                               "what": "1 GiB cudaMemcpy"},
                   "rows": [{"rung": "naive", "kind": "given", "status": "ok", "share": 0.12},
                            {"rung": "tiled", "kind": "exercise", "status": "ok", "share": 0.36},
                            {"rung": "wide", "kind": "stretch", "status": "ok", "share": 0.9},
                            {"rung": "cuBLAS A*A^T", "kind": "ceiling", "status": "ok",
                             "share": 1.5},
                            {"rung": "broken", "kind": "exercise", "status": "todo",
                             "share": None}]},
                  {"title": "second", "metric_unit": "GB/s", "baseline": "a",
                   "ceiling": {"name": "c", "value": 1.0, "unit": "GB/s", "what": "w"},
                   "rows": [{"rung": "a", "kind": "lab", "status": "ok", "share": 0.5}]}]}



def sweep_row(rung: str, length: int, share: float | None, kind: str = "exercise") -> dict:
    return {"rung": rung, "kind": kind, "status": "ok" if share else "todo", "share": share,
            "metric": share * 1000 if share else None,
            "extra": {"array length": str(length), "arrays": str(4096 // length),
                      "threads/block": "256"}}


SWEEP = {"title": "a sweep", "metric_unit": "Mkeys/s", "baseline": "library",
         "ceiling": {"name": "CUB", "value": 1000.0, "unit": "Mkeys/s", "what": "w"},
         "notes": ["a note"],
         "rows": [sweep_row("library", 4096, 0.8, "given"),
                  *[sweep_row("net", n, s) for n, s in ((16, 1.6), (64, 1.2), (256, 0.5))],
                  *[sweep_row("other", n, s) for n, s in ((16, 1.5), (64, None), (256, 0.2))]]}


def lines(text: str) -> list[ET.Element]:
    return [e for e in ET.fromstring(text).iter(f"{SVG}polyline") if e.get("class") == "curve"]


def bars(text: str) -> list[ET.Element]:
    root = ET.fromstring(text)
    return [e for e in root.iter(f"{SVG}rect") if e.get("class") == "bar"]


class Chart(unittest.TestCase):
    def test_one_svg_per_table_one_bar_per_row(self):
        images = chart.svgs(DOC)
        self.assertEqual(len(images), 2)
        for image, table in zip(images, DOC["tables"]):
            found = bars(image)
            self.assertEqual([b.get("data-rung") for b in found],
                             [row["rung"] for row in table["rows"]])
            self.assertNotIn("\n\n", image)  # a blank line would end Marp's HTML block

    def test_widths_are_proportional_to_shares(self):
        found = bars(chart.svgs(DOC)[0])
        ratios = [float(b.get("width")) / row["share"]
                  for b, row in zip(found, DOC["tables"][0]["rows"]) if row["share"]]
        self.assertEqual(len(ratios), 4)
        for ratio in ratios:
            self.assertAlmostEqual(ratio, ratios[0], delta=ratios[0] * 1e-3)
        self.assertEqual(float(found[-1].get("width")), 0.0)  # no share, no bar

    def test_reference_line_at_100_percent_and_colours_by_kind(self):
        text = chart.svgs(DOC)[0]
        root = ET.fromstring(text)
        found = bars(text)
        line = [e for e in root.iter(f"{SVG}line") if e.get("class") == "reference"]
        self.assertEqual(len(line), 1)
        x0 = float(found[0].get("x"))
        width_per_share = float(found[0].get("width")) / 0.12
        self.assertAlmostEqual(float(line[0].get("x1")), x0 + width_per_share, delta=0.2)
        fills = {b.get("data-kind"): b.get("fill") for b in found}
        self.assertEqual(len(set(fills.values())), 4, fills)
        texts = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
        self.assertIn("transpose <8192 x 8192> & friends", texts)  # the title, escaped
        self.assertIn("NVIDIA Test GPU (cc 9.0, 132 SMs)", texts)  # the caption
        self.assertIn("150 %", texts)
        self.assertIn("100 %", texts)

    def test_command_line_writes_one_file_per_table(self):
        with tempfile.TemporaryDirectory() as work:
            results = Path(work) / "02_transpose.json"
            results.write_text("[course] ceiling: ...\n" + json.dumps(DOC), encoding="utf-8")
            done = subprocess.run([sys.executable, str(SLIDES / "chart.py"), str(results),
                                   "--out", str(Path(work) / "out")], capture_output=True,
                                  text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(sorted(p.name for p in (Path(work) / "out").iterdir()),
                             ["02_transpose-1.svg", "02_transpose-2.svg"])

    def test_sweep_is_a_line_chart(self):
        found = chart.sweep(SWEEP)
        self.assertEqual(found.column, "array length")   # not "arrays": it decreases
        self.assertEqual([r["rung"] for r in found.references], ["library"])
        image = chart.svgs({"gpu": "G", "tables": [SWEEP]})[0]
        root = ET.fromstring(image)
        self.assertEqual(bars(image), [])
        self.assertEqual([c.get("data-rung") for c in lines(image)], ["net", "other"])
        self.assertEqual([len(c.get("points").split()) for c in lines(image)], [3, 2])
        references = {e.get("data-rung"): float(e.get("y1")) for e in root.iter(f"{SVG}line")
                      if e.get("class") == "reference"}
        self.assertEqual(set(references), {"library", "CUB"})
        # Shares map linearly to y (y of 0 from the lines at 100 % and 80 %): net's 0.5 is halfway.
        net = [tuple(map(float, p.split(","))) for p in lines(image)[0].get("points").split()]
        zero = references["CUB"] + (references["library"] - references["CUB"]) / 0.2
        self.assertAlmostEqual((zero - net[2][1]) / (zero - references["CUB"]), 0.5, delta=0.01)
        # x: log2 of the array length, so 16 -> 64 and 64 -> 256 are equal steps.
        self.assertAlmostEqual(net[1][0] - net[0][0], net[2][0] - net[1][0], delta=0.2)
        texts = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
        for words in ("array length (log scale)", "threads/block = 256", "a note", "256"):
            self.assertIn(words, texts)
        self.assertNotIn("\n\n", image)

    def test_ladders_are_not_sweeps(self):
        self.assertIsNone(chart.sweep(DOC["tables"][0]))
        twice = {"rows": [{"rung": "jacobi", "extra": {"n": "1"}},
                          {"rung": "jacobi", "extra": {"n": "2"}}]}
        self.assertIsNone(chart.sweep(twice))             # two rows are not a sweep
        falling = {"rows": [{"rung": "a", "extra": {"n": str(n)}} for n in (3, 2, 1)]}
        self.assertIsNone(chart.sweep(falling))           # nor values that do not increase

    def test_committed_sweep_draws_one_line_per_network(self):
        doc = chart.load(RESULTS / "11_sorting_sweep_size.json")
        image = chart.svgs(doc)[0]
        self.assertEqual([c.get("data-rung") for c in lines(image)],
                         ["bitonic", "odd_even_merge"])
        for curve in lines(image):
            self.assertEqual(len(curve.get("points").split()), 10)
        texts = " ".join("".join(t.itertext()) for t in ET.fromstring(image).iter(f"{SVG}text"))
        for tick in ("2⁶", "2¹⁰", "2²⁴"):
            self.assertIn(tick, texts)

    def test_committed_results_draw(self):
        for path in sorted((SLIDES / "results").glob("*/[0-9][0-9]_*.json")):
            doc = chart.load(path)
            for image, table in zip(chart.svgs(doc), doc["tables"]):
                found = chart.sweep(table)
                if table.get("timeline"):
                    spans = [e for e in ET.fromstring(image).iter(f"{SVG}rect")
                             if e.get("class") == "span"]
                    self.assertEqual(len(spans), len(table["timeline"]["spans"]), path.name)
                elif found:
                    self.assertEqual(len(lines(image)), len(found.lines), path.name)
                else:
                    self.assertEqual(len(bars(image)), len(table["rows"]), path.name)
            for image in chart.rooflines(doc):   # every counted rung that ran is a point
                ET.fromstring(image)
            counted = [t for t in doc["tables"] if chart.has_roofline(t) and not chart.sweep(t)]
            points = sum(1 for image in chart.rooflines(doc) for e in ET.fromstring(image).iter()
                         if e.get("class") == "point")
            self.assertEqual(points, sum(1 for t in counted for r in t["rows"] if chart.point(r)),
                             path.name)

    def test_roofline_points_sit_at_intensity_and_rate(self):
        table = json.loads(json.dumps(DOC["tables"][0]))
        table["rows"][0].update(median_ms=2.0, work={"ops": 8e9, "bytes": 4e9})   # 2 ops/B, 4000
        table["rows"][1].update(median_ms=1.0, work={"ops": 64e9, "bytes": 1e9})  # 64, 64000
        table["roofline"] = {"ops_unit": "FLOP",
                             "memory": {"name": "device copy", "value": 3000.0, "unit": "GB/s",
                                        "what": "w"},
                             "compute": {"name": "FP32 FMA peak", "value": 60000.0,
                                         "unit": "GFLOP/s", "what": "w"}}
        doc = dict(DOC, tables=[table, DOC["tables"][1]])
        images = chart.rooflines(doc)
        self.assertEqual(len(images), 1)   # the second table counts no work
        points = [e for e in ET.fromstring(images[0]).iter(f"{SVG}circle")
                  if e.get("class") == "point"]
        self.assertEqual([p.get("data-rung") for p in points], ["naive", "tiled"])
        self.assertAlmostEqual(float(points[0].get("data-intensity")), 2.0)
        self.assertAlmostEqual(float(points[0].get("data-rate")), 4000.0)
        # naive: 4000 of 3000 x 2 = 6000 attainable; tiled: 64000 of the 60000 compute roof.
        self.assertAlmostEqual(float(points[0].get("data-of-roof")), 4000 / 6000, places=4)
        self.assertAlmostEqual(float(points[1].get("data-of-roof")), 64000 / 60000, places=4)
        self.assertIn("ridge 20.0 FLOP/B", images[0])
        memory_only = json.loads(json.dumps(table))
        memory_only["roofline"].update(ops_unit="element", compute=None)
        text = chart.roofline_svg(memory_only, "GPU")
        self.assertNotIn("ridge", text)
        self.assertIn("no compute roof", text)

    def test_timeline_is_drawn_as_lanes(self):
        table = {"title": "trip", "metric_unit": "GB/s", "baseline": "pinned",
                 "ceiling": {"name": "c", "value": 1.0, "unit": "GB/s", "what": "w"},
                 "rows": [{"rung": "streams", "kind": "exercise", "status": "ok", "share": 0.5}],
                 "timeline": {"lanes": 2, "wall_ms": 4.0, "busy_ms": 6.0, "spans": [
                     {"lane": 0, "kind": "H2D", "name": "", "start_ms": 0.0, "end_ms": 2.0},
                     {"lane": 1, "kind": "kernel", "name": "k", "start_ms": 2.0, "end_ms": 4.0},
                     {"lane": 0, "kind": "D2H", "name": "", "start_ms": 2.0, "end_ms": 4.0}]}}
        [image] = chart.svgs(dict(DOC, tables=[table]))
        spans = [e for e in ET.fromstring(image).iter(f"{SVG}rect") if e.get("class") == "span"]
        self.assertEqual([(s.get("data-kind"), s.get("data-lane")) for s in spans],
                         [("H2D", "0"), ("kernel", "1"), ("D2H", "0")])
        self.assertAlmostEqual(float(spans[1].get("width")), float(spans[2].get("width")))
        self.assertIn("2.00 ms overlapped", image)


if __name__ == "__main__":
    unittest.main(verbosity=2)
