#!/usr/bin/env python3
"""Collect the results.json of every graded submission into one CSV.

    collect.py RESULTS_DIR [--list LIST] [--csv grades.csv]

RESULTS_DIR holds one directory per submission (<name>/results.json, as grade_task.sh writes
them). With --list (one submission path per line, as submit.sh writes it) every listed
submission gets a row, also one whose task never wrote its results ("missing").

Columns: submission, status (graded | not graded | missing), score (points earned, bonus
included), max (the sum of the tests' max_score: stretch points are extra credit, not in it),
then one column per test ("lesson01 poly_constant.correct", ...) with the points it earned.
Without --csv the CSV goes to stdout. Every input is checked before anything is written: a
RESULTS_DIR that is not a directory (or, without --list, holds no submission), a --list that is
missing, unreadable or empty, a --csv that cannot be written (its directory is missing, it is a
directory, or a source file of the course) each get one line and exit code 2.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import safe_output  # noqa: E402  (tools/safe_output.py)

FIXED = ["submission", "status", "score", "max"]


def row_of(name: str, results: Path) -> Dict[str, object]:
    """One CSV row from a results.json (or what is known without one)."""
    if not results.is_file():
        return {"submission": name, "status": "missing"}
    try:
        data = json.loads(results.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        return {"submission": name, "status": f"unreadable results.json ({err})"}
    tests = data.get("tests") or []
    row: Dict[str, object] = {
        "submission": name,
        "status": "graded" if tests else "not graded",
        "score": data.get("score", sum(t.get("score", 0) for t in tests)),
        "max": sum(t.get("max_score", 0) for t in tests),
    }
    for test in tests:
        row[test["name"]] = test.get("score", 0)
    return row


def collect(results_dir: Path, listed: Optional[List[str]]) -> List[Dict[str, object]]:
    names = listed if listed is not None else sorted(p.name for p in results_dir.iterdir() if p.is_dir())
    return [row_of(name, results_dir / name / "results.json") for name in names]


def write_csv(rows: List[Dict[str, object]], stream) -> None:
    tests: List[str] = []
    for row in rows:
        tests += [key for key in row if key not in FIXED and key not in tests]
    writer = csv.DictWriter(stream, fieldnames=FIXED + tests, restval="", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="All results.json files -> one CSV.")
    parser.add_argument("results_dir", type=Path, metavar="RESULTS_DIR")
    parser.add_argument("--list", type=Path, help="the submissions, one path per line")
    parser.add_argument("--csv", type=Path, help="write here instead of stdout")
    return parser.parse_args(argv)


class UsageError(Exception):
    """Bad input; one line, exit code 2."""


def read_list(path: Path) -> List[str]:
    """The submission names of a list (one path per line)."""
    if not path.exists():
        raise UsageError(f"no list file {path}")
    if not path.is_file():
        raise UsageError(f"{path} is not a file (--list: one submission path per line)")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None
    names = [Path(line.strip()).name for line in lines if line.strip()]
    if not names:
        raise UsageError(f"no submissions in {path}")
    return names


def check_inputs(args: argparse.Namespace) -> Optional[List[str]]:
    """Every input checked, nothing written; the listed names (None without --list)."""
    if not args.results_dir.exists():
        raise UsageError(f"no directory {args.results_dir}")
    if not args.results_dir.is_dir():
        raise UsageError(f"{args.results_dir} is not a directory")
    listed = read_list(args.list) if args.list else None
    if listed is None and not any(p.is_dir() for p in args.results_dir.iterdir()):
        raise UsageError(f"no submission results in {args.results_dir} (one directory per "
                         f"submission, as grade_task.sh writes them)")
    if args.csv:
        try:
            args.csv = safe_output.check_output_file(args.csv, protect=[REPO])
        except safe_output.OutputRefused as err:
            raise UsageError(f"--csv: {err}") from None
    return listed


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    try:
        listed = check_inputs(args)
    except UsageError as err:
        print(f"collect.py: error: {err}", file=sys.stderr)
        return 2
    rows = collect(args.results_dir, listed)
    if args.csv:
        try:
            with args.csv.open("w", encoding="utf-8", newline="") as stream:
                write_csv(rows, stream)
        except OSError as err:
            print(f"collect.py: error: cannot write {args.csv}: {err.strerror}", file=sys.stderr)
            return 2
        print(f"collect: {len(rows)} submissions -> {args.csv}")
    else:
        write_csv(rows, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
