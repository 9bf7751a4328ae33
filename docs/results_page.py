#!/usr/bin/env python3
"""Writes the docs' page `results`: every lesson's measured ladders, as the tables of the slides
(slides/inject.py) and the bar charts of slides/chart.py, from the demos' JSON outputs.

    results_page.py [--results-dir slides/results/<gpu>] --out BUILD/docs/results
        ->  OUT/results.md (a Doxygen page) and OUT/images/<NN_name>-<k>.svg (its IMAGE_PATH)

A lesson without a results file gets a line saying how to make it. A lesson's other sets,
NN_name_<option>_<value>.json (the demo run with `--<option> <value> --json`, e.g.
11_sorting_sweep_size.json), follow its ladders; a sweep is drawn as lines (see chart.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "slides"))
import chart  # noqa: E402
import inject  # noqa: E402
from deck_tools import RESULTS  # noqa: E402


def page(results_dir: Path, images: Path) -> str:
    lessons = sorted(p.name for p in (REPO / "lessons").iterdir()
                     if p.is_dir() and p.name[:2].isdigit())
    out = ["# Measured results {#results}", "",
           "Each lesson's ladders as its demo measured them (`lessonNN_demo_solution --json`): "
           f"the committed set in `slides/results/{results_dir.name}/`, which the slides show "
           f"too: {run_of(results_dir)}. Each chart draws "
           "a rung's share of the table's ceiling; the dashed line is 100 %. A sweep (the same "
           "rungs at each array length, say) is drawn as one line per rung. A table whose rungs "
           "count their work also gets a roofline: each rung at its operations per byte that "
           "must cross DRAM and its achieved rate, under the memory roof (the device copy) and, "
           "for FP32 arithmetic, the compute roof (an FP32 FMA peak; lesson 12's, a BF16 "
           "tensor-core peak), both measured in the same "
           "run; the percentage beside a rung is its share of the roof above it. Lesson 06's "
           "timeline shows its streams rung's copies and kernels as the GPU ran them. To measure on your "
           "own GPU, build the demos and run `cmake --build --preset dev --target results`, then "
           "build the docs again (see `slides/results/README.md`).", ""]
    images.mkdir(parents=True, exist_ok=True)
    for lesson in lessons:
        out += [f"## Lesson {lesson[:2]}: {lesson[3:].replace('_', ' ')} "
                f"{{#results_{lesson[:2]}}}", ""]
        path = results_dir / f"{lesson}.json"
        if not path.is_file():
            out += [f"No results yet: run `lesson{lesson[:2]}_demo_solution --json` and save its "
                    f"output as `slides/results/<gpu>/{lesson}.json`.", ""]
            continue
        out += inject.results(results_dir, f"lessons/{lesson}") + [""]
        for svg in chart.write(path, images):
            out += [f"\\image html {svg.name}", ""]
        for extra, options in other_sets(results_dir, lesson):
            out += [f"### Lesson {lesson[:2]}, {options.lstrip('-')} "
                    f"{{#results_{extra.stem}}}", "",
                    f"`lesson{lesson[:2]}_demo_solution {options} --json`, saved as "
                    f"`slides/results/{results_dir.name}/{extra.name}`:", "",
                    *inject.results(results_dir, f"lessons/{extra.stem}"), ""]
            for svg in chart.write(extra, images):
                out += [f"\\image html {svg.name}", ""]
    return "\n".join(out)


def run_of(results_dir: Path) -> str:
    """What made the set: its run.json, in words."""
    path = results_dir / "run.json"
    if not path.is_file():
        return "no run.json says where it was measured"
    run = json.loads(path.read_text(encoding="utf-8"))
    return (f"measured on an {run['gpu']}, driver {run['driver']}, CUDA {run['cuda']}, "
            f"on {run['date']}, at commit {run['commit']}")


def other_sets(results_dir: Path, lesson: str) -> list[tuple[Path, str]]:
    """The lesson's sets besides its ladders: (file NN_name_<option>_<value>.json, the demo's
    options `--<option> <value>`), by name."""
    out = []
    for path in sorted(results_dir.glob(f"{lesson}_*.json")):
        option, _, value = path.stem[len(lesson) + 1:].partition("_")
        out.append((path, f"--{option} {value}".strip()))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    try:
        text = page(args.results_dir, args.out / "images")
    except (inject.DeckError, OSError, ValueError, KeyError, TypeError) as error:
        print(f"results_page.py: error: {error}", file=sys.stderr)
        return 1
    (args.out / "results.md").write_text(text, encoding="utf-8")
    print(f"results_page.py: {args.out / 'results.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
