#!/usr/bin/env python3
"""Collect the results.json of every graded submission into one CSV.

    collect.py RESULTS_DIR [--list LIST] [--csv grades.csv]

RESULTS_DIR holds one directory per submission (<name>/results.json, as grade_task.sh writes
them). With --list (one submission path per line, as submit.sh writes it) every listed
submission gets a row, also one whose task never wrote its results ("missing").

Columns: submission, status (graded | not graded | missing), score (points earned, bonus
included), max (the sum of the tests' max_score: stretch points are extra credit, not in it),
then one column per test ("lesson01 poly_constant.correct", ...) with the points it earned.
Without --csv the CSV goes to stdout. Exit code 0, or 2 for usage errors.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

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


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    if not args.results_dir.is_dir():
        print(f"collect.py: no directory {args.results_dir}", file=sys.stderr)
        return 2
    listed = None
    if args.list:
        lines = args.list.read_text(encoding="utf-8").splitlines()
        listed = [Path(line.strip()).name for line in lines if line.strip()]
    rows = collect(args.results_dir, listed)
    if args.csv:
        with args.csv.open("w", encoding="utf-8", newline="") as stream:
            write_csv(rows, stream)
        print(f"collect: {len(rows)} submissions -> {args.csv}")
    else:
        write_csv(rows, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
