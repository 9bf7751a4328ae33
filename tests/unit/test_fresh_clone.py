#!/usr/bin/env python3
"""The README's docs and slides commands work from a fresh clone, as written.

    python3 tests/unit/test_fresh_clone.py --work DIR   (CTest: unit/fresh_clone, labels unit;cpu;docs)

DIR/clone gets the files of the working tree that git tracks or would add (as a fresh clone
has them: no build/, no node_modules/), and in it, each in a build directory that does not
exist yet:

1. ``cmake --workflow --preset docs``          -> build/dev/docs/html/index.html, the instructor
   edition (the README's "Grading a class" is there);
2. ``cmake --workflow --preset docs-student``  -> build/student/docs/html/index.html, the student
   edition (the student README's "Handing in" instead, no solution page);
3. ``cmake --workflow --preset slides`` and ``slides-student``: with Marp installed in this
   repository's slides/node_modules (linked into the clone, as `npm ci` would install it) the
   decks are rendered to HTML, and the student ones show the exercises where the instructor
   ones show the solutions; without Marp the same presets configure from scratch and the decks
   are injected (the build's slides/src/*.md), which needs neither Node nor the npm registry.

Without Doxygen, steps 1 and 2 check that each workflow configures from scratch and that its
target says how to install Doxygen. Exit code 0 when every step that could run passed, else 1.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import List

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import student_edition  # noqa: E402  (its list of the working tree's files)


class Failed(Exception):
    pass


def run(command: List[str], cwd: Path, log: Path, env: dict, expect_ok: bool = True) -> str:
    started = time.monotonic()
    with log.open("w", encoding="utf-8") as out:
        result = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env,
                                check=False)
    text = log.read_text(encoding="utf-8", errors="replace")
    print(f"  {' '.join(command)}: exit {result.returncode}, {time.monotonic() - started:.0f} s "
          f"(log: {log})", flush=True)
    if expect_ok and result.returncode != 0:
        raise Failed(f"{' '.join(command)} failed ({result.returncode}):\n"
                     + "\n".join(text.splitlines()[-30:]))
    return text if expect_ok else f"{result.returncode}\n{text}"


def fresh_clone(clone: Path) -> int:
    if clone.exists():
        shutil.rmtree(clone)  # this test's own scratch directory
    files = student_edition.worktree_files(REPO)
    for path in files:
        target = clone / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / path, target)
    return len(files)


def check_docs(clone: Path, work: Path, env: dict, have_doxygen: bool) -> None:
    for preset, build, present, absent in (
            ("docs", "build/dev", "Grading a class", "Handing in"),
            ("docs-student", "build/student", "Handing in", "Grading a class")):
        log = work / f"{preset}.log"
        if not have_doxygen:
            output = run(["cmake", "--workflow", "--preset", preset], clone, log, env, expect_ok=False)
            if not output.startswith("0\n") and "Doxygen (1.9 or newer) is needed" in output:
                print(f"  {preset}: configured from scratch; no Doxygen, and the target says how to install it")
                continue
            raise Failed(f"{preset} without Doxygen: expected the install hint:\n{output[-2000:]}")
        run(["cmake", "--workflow", "--preset", preset], clone, log, env)
        index = clone / build / "docs" / "html" / "index.html"
        if not index.is_file():
            raise Failed(f"{preset}: no {index}")
        text = index.read_text(encoding="utf-8", errors="replace")
        if present not in text or absent in text:
            raise Failed(f"{preset}: {index} should show '{present}' and not '{absent}'")
        solutions = list((clone / build / "docs" / "html").glob("*solutions*.html"))
        if preset == "docs-student" and solutions:
            raise Failed(f"{preset}: solution pages in the student docs: {solutions[:3]}")
        print(f"  {preset}: {index.relative_to(clone)}")


def check_slides(clone: Path, work: Path, env: dict) -> None:
    marp = REPO / "slides" / "node_modules" / ".bin" / "marp"
    have_node = shutil.which("npx") and shutil.which("npm")
    if have_node and marp.exists():
        (clone / "slides" / "node_modules").symlink_to(REPO / "slides" / "node_modules")
        for preset, build in (("slides", "build/dev"), ("slides-student", "build/student")):
            run(["cmake", "--workflow", "--preset", preset], clone, work / f"{preset}.log", env)
            html = clone / build / "slides" / "html" / "01_constant_memory.html"
            if not html.is_file():
                raise Failed(f"{preset}: no {html}")
            print(f"  {preset}: {html.relative_to(clone)}")
    else:
        why = "no Node.js" if not have_node else "Marp is not installed in slides/node_modules"
        print(f"  slides: {why}, so the decks are injected, not rendered")
        for preset, configure in (("slides", "dev"), ("slides-student", "student")):
            run(["cmake", "--preset", configure], clone, work / f"{preset}-configure.log", env)
            if not have_node:
                continue  # the slides target only says how to install Node; no decks to inject
            build = clone / "build" / configure
            decks = sorted(p.name for p in (clone / "slides" / "decks").glob("*.md"))
            run(["cmake", "--build", str(build), "--target", *[f"slides/src/{d}" for d in decks]],
                clone, work / f"{preset}-inject.log", env)
    for build, shows, hides in (("build/dev", None, None),
                                ("build/student", "Your exercise", "solution shown in the instructor edition")):
        deck = clone / build / "slides" / "src" / "02_transpose.md"
        if not deck.is_file():
            continue
        text = deck.read_text(encoding="utf-8")
        if shows and (shows not in text or hides in text):
            raise Failed(f"{deck}: the student deck should show the exercises")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="scratch directory (replaced)")
    args = parser.parse_args()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    clone = work / "clone"
    env = dict(os.environ)
    for name in ("COURSE_CPU_ONLY", "CMAKE_BUILD_PARALLEL_LEVEL"):
        env.pop(name, None)
    print(f"fresh clone check in {work}", flush=True)
    count = fresh_clone(clone)
    print(f"  {count} files copied, as a clone has them")
    try:
        check_docs(clone, work, env, shutil.which("doxygen") is not None)
        check_slides(clone, work, env)
    except Failed as err:
        print(f"FAILED: {err}", file=sys.stderr)
        return 1
    print("fresh clone: the docs and slides commands work as the README writes them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
