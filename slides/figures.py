#!/usr/bin/env python3
"""Checks every measured figure in the course's texts against the committed results, and
rewrites them from the results with --fix.

    figures.py [--fix] [--root REPO] [FILE.md...]      (default: every text of the course)

A measured figure in a README, a deck, an answer key or a docs page carries a marker right after
it, and the text names its GPU once before the first figure, with a marker after the name:

    Measured on an NVIDIA H100 80GB HBM3<!-- gpu: h100-80gb-hbm3 --> ...
    coarsened_atomic reaches 96.9 %<!-- fig: 05_reduction coarsened_atomic share --> of CUB

`gpu: FOLDER` names the committed set slides/results/FOLDER/ (its run.json says which GPU made
it, with the driver, the CUDA version, the date and the commit); the text before the marker, on
its line, must name that GPU's model ("H100"). Every later `fig:` marker of the file reads that
set, until the next `gpu:` marker. `fig: SET ROW FIELD` reads one value of SET.json (a lesson's
demo output, e.g. 05_reduction or 11_sorting_sweep_size; SET#2 picks the file's second table
when ROW is in more than one): ROW is a rung, or `-` for the table itself; a name with spaces is
written with "_" (cuBLAS_BF16), and one point of a sweep as RUNG@COLUMN=VALUE, COLUMN one of its
extra columns or its note (bitonic@array_length=1048576, jacobi@note=kernel_tuned: name a row
by what a new measurement keeps, not by a figure). FIELD is one of

    share        the rung's share of the table's ceiling, in per cent
    speedup      the speedup over the table's baseline rung
    step         the speedup over the row above
    over:RUNG    RUNG's time divided by this rung's (how many times faster than RUNG)
    ms, us       the median time
    metric       the rate (GB/s, GFLOP/s, ... as the table says); metric/1000 in T-units
    extra:NAME   a column of the table's own (e.g. extra:seed_ms)
    ceiling      (ROW -) the ceiling's rate; ceiling/1000 in T-units
    roof:memory, roof:compute   (ROW -) the roofline's roofs; /1000 as above

The figure is the last number before the marker on its line (a unit may stand between them); it
must equal the value rounded to as many decimals as the figure shows. A figure that does not, a
marker that names nothing, or a figure before any `gpu:` marker fails the check, with the file,
line, figure and source. --fix writes each figure from its source instead (same decimals).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"<!--\s*(?P<kind>fig|gpu):\s*(?P<args>[^>]*?)\s*-->")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
CODE_SPAN = re.compile(r"`[^`]*`")
UNIT_GAP = 16    # characters (a unit, a space, markup) allowed between a figure and its marker


def texts(root: Path) -> list[Path]:
    """Every text of the course that may quote a measurement."""
    found = [root / "README.md", root / "slides" / "results" / "README.md"]
    for pattern in ("lessons/*/README.md", "slides/decks/*.md", "docs/pages/**/*.md"):
        found += sorted(root.glob(pattern))
    return [path for path in found if path.is_file()]


class FigureError(Exception):
    pass


def load_set(root: Path, folder: str, name: str, cache: dict) -> dict:
    key = (folder, name)
    if key not in cache:
        path = root / "slides" / "results" / folder / f"{name}.json"
        if not path.is_file():
            raise FigureError(f"no committed results {path.relative_to(root)}")
        cache[key] = json.loads(path.read_text(encoding="utf-8"))
    return cache[key]


def gpu_model(root: Path, folder: str) -> str:
    """The model a text must name for FOLDER's set: "H100" of "NVIDIA H100 80GB HBM3 (...)"."""
    run = root / "slides" / "results" / folder / "run.json"
    if not run.is_file():
        raise FigureError(f"no committed results slides/results/{folder}/ (its run.json)")
    gpu = json.loads(run.read_text(encoding="utf-8"))["gpu"]
    words = re.sub(r"^NVIDIA ", "", gpu).split()
    return next((word for word in words if re.search(r"\d", word)), words[0])


def scaled(value: Optional[float], field: str) -> float:
    if value is None:
        raise FigureError(f"{field}: the results have no such value")
    return value / 1000 if field.endswith("/1000") else value


def spaced(name: str) -> str:
    """A name as a marker writes it: "_" for each space ("cuBLAS_BF16")."""
    return str(name).replace(" ", "_")


def matches(row: dict, spec: str) -> bool:
    """Whether ROW is the row SPEC names: RUNG, or RUNG@COLUMN=VALUE for one point of a sweep
    (COLUMN one of the row's extra columns, e.g. bitonic@array_length=1048576)."""
    rung, _, where = spec.partition("@")
    if spaced(row["rung"]) != rung:
        return False
    if not where:
        return True
    column, _, value = where.partition("=")
    extra = {spaced(key): str(text) for key, text in (row.get("extra") or {}).items()}
    extra["note"] = str(row.get("note", ""))
    return spaced(extra.get(column, "")) == value


def value_of(doc: dict, set_arg: str, row: str, field: str) -> float:
    name, _, index = set_arg.partition("#")
    tables = doc["tables"]
    if index:
        chosen = [tables[int(index) - 1]]
    elif row == "-":
        chosen = tables[:1]
    else:
        chosen = [t for t in tables if any(matches(r, row) for r in t["rows"])]
    if not chosen:
        raise FigureError(f"no row {row} in {name}")
    if len(chosen) > 1:
        raise FigureError(f"{row} is in {len(chosen)} tables of {name}: write {name}#N")
    table = chosen[0]
    base = field.removesuffix("/1000")
    if row == "-":
        if base == "ceiling":
            return scaled(table["ceiling"]["value"], field)
        if base in ("roof:memory", "roof:compute"):
            roof = (table.get("roofline") or {}).get(base.split(":")[1]) or {}
            return scaled(roof.get("value"), field)
        raise FigureError(f"{field}: not a field of a table")
    rows = [r for r in table["rows"] if matches(r, row)]
    if len(rows) != 1:
        raise FigureError(f"no single row {row} in {name}")
    at = table["rows"].index(rows[0])
    current = rows[0]
    if base == "share":
        return 100.0 * current["share"]
    if base in ("speedup", "ms", "metric"):
        return scaled(current["median_ms" if base == "ms" else base], field)
    if base == "us":
        return 1000.0 * current["median_ms"]
    if base == "step":
        if at == 0:
            raise FigureError(f"{row} is the first row: no step")
        return table["rows"][at - 1]["median_ms"] / current["median_ms"]
    if base.startswith("over:"):
        other = [r for r in table["rows"] if matches(r, base[5:])]
        if not other:
            raise FigureError(f"no row {base[5:]} in {name}")
        return other[0]["median_ms"] / current["median_ms"]
    if base.startswith("extra:"):
        extra = {spaced(key): str(text) for key, text in current["extra"].items()}
        number = NUMBER.search(extra[base[6:]])    # "109.1 %" reads as 109.1
        if not number:
            raise FigureError(f"{field}: {extra[base[6:]]!r} is not a number")
        return scaled(float(number[0]), field)
    raise FigureError(f"unknown field {field}")


def check_file(path: Path, root: Path, fix: bool, cache: dict) -> tuple[list[str], str, int]:
    """(errors, the text with every figure written from its source, how many figures)."""
    errors: list[str] = []
    figures = 0
    lines = path.read_text(encoding="utf-8").split("\n")
    folder: Optional[str] = None
    where = path.relative_to(root) if path.is_relative_to(root) else path
    fenced = False
    for number, line in enumerate(lines, 1):
        edits: list[tuple[int, int, str]] = []
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if fenced:
            continue
        code = [span.span() for span in CODE_SPAN.finditer(line)]
        for marker in MARKER.finditer(line):
            if any(start <= marker.start() < end for start, end in code):
                continue    # an example of the syntax, not a figure
            args = marker["args"].split()
            try:
                if marker["kind"] == "gpu":
                    if len(args) != 1:
                        raise FigureError("write <!-- gpu: FOLDER --> (slides/results/FOLDER)")
                    model = gpu_model(root, args[0])
                    if model not in line[:marker.start()]:
                        raise FigureError(f"the text before <!-- gpu: {args[0]} --> must name "
                                          f"the GPU ({model})")
                    folder = args[0]
                    continue
                figures += 1
                if len(args) != 3:
                    raise FigureError("write <!-- fig: SET ROW FIELD -->")
                if folder is None:
                    raise FigureError("a figure before the text names its GPU "
                                      "(<!-- gpu: FOLDER --> after the GPU's name)")
                before = line[:marker.start()]
                found = list(NUMBER.finditer(before))
                if not found or marker.start() - found[-1].end() > UNIT_GAP:
                    raise FigureError("no figure right before the marker")
                figure = found[-1]
                decimals = len(figure[0].partition(".")[2])
                value = value_of(load_set(root, folder, args[0].partition("#")[0], cache),
                                 args[0], args[1], args[2])
                expected = f"{value:.{decimals}f}"
                if expected != figure[0]:
                    if fix:
                        edits.append((figure.start(), figure.end(), expected))
                    else:
                        errors.append(f"{where}:{number}: {figure[0]} should be {expected} "
                                      f"({folder}/{' '.join(args)} = {value:.6g})")
            except (FigureError, KeyError, ValueError, IndexError) as error:
                errors.append(f"{where}:{number}: {marker[0]}: {error}")
        for start, end, text in sorted(edits, reverse=True):
            line = line[:start] + text + line[end:]
        lines[number - 1] = line
    return errors, "\n".join(lines), figures


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="texts (default: all of the course's)")
    parser.add_argument("--root", type=Path, default=REPO, help="the course (default: this one)")
    parser.add_argument("--fix", action="store_true",
                        help="write every figure from its source instead of checking it")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    if not (root / "slides" / "results").is_dir():
        parser.error(f"{root} is not the course (it has no slides/results)")
    files = [f.resolve() for f in args.files] or texts(root)
    for path in files:
        if not path.is_file():
            parser.error(f"no file {path}")
    cache: dict = {}
    errors: list[str] = []
    figures = 0
    for path in files:
        found, fixed, count = check_file(path, root, args.fix, cache)
        figures += count
        errors += found
        if args.fix and fixed != path.read_text(encoding="utf-8"):
            path.write_text(fixed, encoding="utf-8")
            print(f"figures.py: rewrote {path}")
    for error in errors:
        print(error, file=sys.stderr)
    print(f"figures.py: {figures} figures in {len(files)} text(s), {len(errors)} wrong")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
