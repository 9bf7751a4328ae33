#!/usr/bin/env python3
"""Grade one hostile skeleton's CTest tree and check that it cost its own lesson only.

    check_hostile.py --patch tests/hostile/NAME.patch --tree BUILD/tests/hostile/trees/NAME \\
                     --source-dir REPO [--ctest ctest]

The tree (written by tests/hostile/CMakeLists.txt) runs lesson 01 from the hostile binary and
lesson 02 from the untouched skeleton.  tools/grade.py grades it with --json, and from its
results.json this script asserts:

* lesson 01: every given row passes; every exercise and stretch row scores 0, with a status
  among the patch's ``Status:`` and a reason matching its ``Reason:``;
* lesson 02: every given row passes; every exercise and stretch row fails with "not implemented";
* the total is exactly the given points of both lessons: nothing the hostile code printed or did
  moved a point.

Without a GPU only the CPU rows run: it checks those (launcher.bad_arguments passes in both
lessons) and exits 77, which CTest reports as skipped.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

HOSTILE, CONTROL = "01", "02"
SKIPPED = 77
STATUS_WORDS = r"PASS|FAIL|SKIP|TIMEOUT|CRASH|EXIT|CUDA ERROR|NOT BUILT|NOT RUN"
ROW_RE = re.compile(rf"^\s+(\d\d)\s+(\S+)\s+(given|exercise|stretch|\?)\s+({STATUS_WORDS})\s")


def header(patch: Path) -> Dict[str, str]:
    fields: Dict[str, str] = {}
    for line in patch.read_text(encoding="utf-8").splitlines():
        if line.startswith("--- "):
            break
        key, sep, value = line.partition(": ")
        if sep:
            fields[key] = value.strip()
    for key in ("Hostile", "Status", "Reason"):
        if key not in fields:
            raise SystemExit(f"{patch}: no '{key}:' header line")
    return fields


def rows_of(scoreboard: str) -> Dict[Tuple[str, str], Tuple[str, str]]:
    """(lesson, test) -> (kind, status), read from the plain scoreboard."""
    rows = {}
    for line in scoreboard.splitlines():
        match = ROW_RE.match(line)
        if match:
            rows[(match.group(1), match.group(2))] = (match.group(3), match.group(4))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--patch", type=Path, required=True)
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--source-dir", type=Path, required=True)
    parser.add_argument("--ctest", default="ctest")
    args = parser.parse_args()
    expect = header(args.patch)
    allowed = set(expect["Status"].split("|"))
    reason_re = re.compile(expect["Reason"])
    results = args.tree / "results.json"
    print(f"hostile skeleton {args.patch.stem}: {expect['Hostile']}", flush=True)

    grade = [sys.executable, str(args.source_dir / "tools/grade.py"), "--build-dir", str(args.tree),
             "--source-dir", str(args.source_dir), "--lessons", HOSTILE, CONTROL,
             "--json", str(results), "--color", "never", "--ctest", args.ctest, "--all-rows"]
    proc = subprocess.run(grade, check=False)
    if proc.returncode != 0:
        print(f"FAILED: grade.py exited with {proc.returncode}")
        return 1
    data = json.loads(results.read_text(encoding="utf-8"))
    rows = rows_of(data["output"])
    tests = {t["name"]: t for t in data["tests"]}
    problems: List[str] = []

    def test_of(lesson: str, name: str) -> dict:
        return tests[f"lesson{lesson} {name}"]

    no_gpu = "No GPU was usable" in data["output"]
    for (lesson, name), (kind, status) in sorted(rows.items()):
        test = test_of(lesson, name)
        cpu_row = name.startswith("launcher.")
        if no_gpu and not cpu_row:
            continue
        if kind == "given":
            if status != "PASS":
                problems.append(f"lesson {lesson} {name}: a given row is {status}: {test['output']}")
        elif lesson == HOSTILE:
            if test["score"] != 0:
                problems.append(f"lesson {lesson} {name}: scored {test['score']}")
            if name == "memory.sanitize":
                continue  # the sanitizers' row runner reports any failure as FAIL, with its own words
            if status not in allowed:
                problems.append(f"lesson {lesson} {name}: status {status}, expected {expect['Status']}")
            if not reason_re.search(test["output"]):
                problems.append(f"lesson {lesson} {name}: reason {test['output']!r} does not match "
                                f"{expect['Reason']!r}")
        elif status != "FAIL" or test["output"] != "not implemented":
            problems.append(f"lesson {lesson} {name}: the untouched skeleton's row is {status}: "
                            f"{test['output']} (expected FAIL, not implemented)")
    if not {lesson for lesson, _ in rows} >= {HOSTILE, CONTROL}:
        problems.append(f"the scoreboard lacks a lesson: {sorted(rows)}")

    given_points = sum(t["max_score"] for (lesson, name), (kind, _) in rows.items()
                       if kind == "given" for t in [test_of(lesson, name)])
    if not no_gpu and data["score"] != given_points:
        problems.append(f"total score {data['score']}, expected the given points {given_points}")

    for problem in problems:
        print(f"FAILED: {problem}")
    if problems:
        return 1
    if no_gpu:
        print("[course] SKIPPED: no usable CUDA device; the CPU rows were graded as expected")
        return SKIPPED
    print(f"hostile skeleton {args.patch.stem}: lesson {HOSTILE} lost its exercise points "
          f"({', '.join(sorted(allowed))}), lesson {CONTROL} kept its own")
    return 0


if __name__ == "__main__":
    sys.exit(main())
