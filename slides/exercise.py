#!/usr/bin/env python3
"""The exercise that stands where a solution snippet stands: what the student slides show.

A deck shows solution code with ``<!-- snippet: solutions/NN_name/file.cu marker -->``. The
student edition shows, in its place, the skeleton's code and hints for the same rung: the
``TODO(student)`` comment and the stub that follows it, from the twin file
``lessons/NN_name/file.cu`` (else another file of the lesson). ``find()`` picks it, trying for
each stem of the marker's name, longest first (``poly_constant_divergent_kernel``,
``poly_constant_divergent``, ``poly_constant``, ...):

1. a region ``//! [stem]`` or ``//! [stem_exercise]`` of the skeleton;
2. a function named ``stem`` that the skeleton defines, with the comment block above it;
3. the ``TODO(student)`` block of rung (or version) ``"stem"``, with the code after it;

then a rung named inside the marker's name (``pipeline_pinned``: rung ``pinned``); then, when the twin
file has a single exercise block, or as the last resort, its first one. A lesson that
wants another choice marks the skeleton's region with the solution's marker name (step 1).

    python3 slides/exercise.py REPO solutions/02_transpose/transpose.cu padded_kernel
"""

from __future__ import annotations

import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

CODE_SUFFIXES = (".cu", ".cuh", ".cpp", ".hpp")
MAX_LINES = 48
MARKER = re.compile(r"^\s*//!\s*\[([^\]]+)\]\s*$")
TODO = re.compile(r"//\s*TODO\(student\)")
RUNG_OF_TODO = re.compile(r"TODO\(student\)[^\"\n]*?(?:rung|version)\s+\"([a-z0-9_]+)\"")
FUNCTION_NAME = re.compile(
    r"^\s*(?:template\s*<[^>]*>\s*)?(?:(?:static|inline|constexpr|__global__|__device__|"
    r"__host__|__forceinline__|__launch_bounds__\([^)]*\))\s+)*[A-Za-z_][\w:<>,\s\*&]*?"
    r"[\s\*&]([A-Za-z_]\w*)\s*\(")
NOT_A_TYPE = {"return", "else", "if", "for", "while", "switch", "case", "new", "delete", "throw"}


@dataclass
class Exercise:
    """What a student slide shows: the lines (dedented, no markers) and where they come from."""

    path: str            # repository-relative, e.g. lessons/02_transpose/transpose.cu
    lines: List[str]
    how: str             # which rule found them (for the tests and for debugging)


def twin_and_candidates(source_dir: Path, solution: str) -> tuple[str, List[str]]:
    """The skeleton file with the solution's name, and every skeleton source of the lesson
    (the twin first)."""
    parts = Path(solution).parts
    lesson_dir = Path("lessons", *parts[1:-1])
    twin = str(lesson_dir / parts[-1])
    others = sorted(str(p.relative_to(source_dir)) for p in (source_dir / lesson_dir).glob("*")
                    if p.is_file() and p.suffix in CODE_SUFFIXES and str(p.relative_to(source_dir)) != twin)
    candidates = ([twin] if (source_dir / twin).is_file() else []) + others
    return twin, candidates


def stems(name: str) -> List[str]:
    words = name.split("_")
    return ["_".join(words[:n]) for n in range(len(words), 0, -1)]


def clean(lines: List[str]) -> List[str]:
    kept = [line.rstrip() for line in lines if not MARKER.match(line)]
    while kept and not kept[0].strip():
        kept.pop(0)
    while kept and not kept[-1].strip():
        kept.pop()
    if len(kept) > MAX_LINES:
        kept = kept[:MAX_LINES - 1] + ["// ... (the rest is in the file)"]
    return textwrap.dedent("\n".join(kept)).splitlines()


def marker_region(lines: List[str], name: str) -> Optional[List[str]]:
    where = [i for i, line in enumerate(lines) if (m := MARKER.match(line)) and m.group(1) == name]
    if len(where) != 2:
        return None
    return lines[where[0] + 1:where[1]]


def comment_block_above(lines: List[str], index: int) -> int:
    """The first line of the comments (and template line) right above lines[index]."""
    start = index
    while start > 0:
        above = lines[start - 1].strip()
        if above.startswith("//") and not MARKER.match(lines[start - 1]) or above.startswith("template"):
            start -= 1
        else:
            break
    return start


def code_after(lines: List[str], index: int) -> int:
    """The end (exclusive) of the code that starts at lines[index]: through the closing brace of
    a definition, else to the first blank line, marker or TODO at brace depth 0."""
    depth, opened, end = 0, False, index
    while end < len(lines):
        line = lines[end]
        stripped = line.strip()
        if end > index and depth == 0 and (not stripped or MARKER.match(line)
                                           or (TODO.search(line) and stripped.startswith("//"))):
            break
        code = line.split("//", 1)[0]
        depth += code.count("{") - code.count("}")
        opened = opened or "{" in code
        end += 1
        if opened and depth <= 0:
            break
        if not opened and code.rstrip().endswith(";") and depth == 0 and not stripped.startswith("//"):
            break
    return end


def function_definition(lines: List[str], name: str) -> Optional[List[str]]:
    for index, line in enumerate(lines):
        match = FUNCTION_NAME.match(line)
        if not match or match.group(1) != name or line.strip().split()[0] in NOT_A_TYPE:
            continue
        end = code_after(lines, index)
        body = "".join(part.split("//", 1)[0] for part in lines[index:end])
        if "{" not in body:
            continue  # a declaration
        return lines[comment_block_above(lines, index):end]
    return None


def todo_blocks(lines: List[str]) -> List[tuple[Optional[str], List[str]]]:
    """(rung, lines) of every TODO(student) comment block that starts a top-level exercise."""
    blocks = []
    depth = 0
    for index, line in enumerate(lines):
        stripped = line.strip()
        if depth == 0 and stripped.startswith("//") and TODO.search(line):
            rung = RUNG_OF_TODO.search(line)
            start = comment_block_above(lines, index)
            end = index + 1
            while end < len(lines) and lines[end].strip().startswith("//") and not MARKER.match(lines[end]) \
                    and not TODO.search(lines[end]):
                end += 1
            if end < len(lines) and lines[end].strip() and not MARKER.match(lines[end]):
                end = code_after(lines, end)
            blocks.append((rung.group(1) if rung else None, lines[start:end]))
        code = line.split("//", 1)[0]
        depth = max(0, depth + code.count("{") - code.count("}"))
        if re.match(r"^\s*namespace\b.*\{", code):
            depth -= 1  # a namespace is not a scope that hides an exercise
    return blocks


def find(source_dir: Path, solution: str, name: str) -> Optional[Exercise]:
    """The exercise for the snippet `solution name`, or None if the lesson has none at all.
    Only the skeleton is read, never the solution: the student edition, which has no
    solutions/, finds the same exercise as this repository does."""
    twin, candidates = twin_and_candidates(source_dir, solution)
    texts = {path: (source_dir / path).read_text(encoding="utf-8").splitlines() for path in candidates}
    for stem in stems(name):
        for path in candidates:
            for marker in (stem, f"{stem}_exercise"):
                region = marker_region(texts[path], marker)
                if region and any(line.strip() for line in region):
                    return Exercise(path, clean(region), f"marker {marker}")
        for path in candidates:
            definition = function_definition(texts[path], stem)
            if definition:
                return Exercise(path, clean(definition), f"function {stem}")
        for path in candidates:
            for rung, block in todo_blocks(texts[path]):
                if rung == stem:
                    return Exercise(path, clean(block), f"rung {stem}")
    # A rung named inside the marker's name: pipeline_pinned, pipeline_streams_chunks.
    words = f"_{name}_"
    for path in candidates:
        named = [(rung, block) for rung, block in todo_blocks(texts[path])
                 if rung and f"_{rung}_" in words]
        if named:
            rung, block = max(named, key=lambda item: len(item[0]))
            return Exercise(path, clean(block), f"rung {rung} named in {name}")
    for path in candidates[:1] if candidates and candidates[0] == twin else []:
        blocks = [block for rung, block in todo_blocks(texts[path]) if rung]
        if blocks:
            how = "the file's only exercise" if len(blocks) == 1 else "the file's first exercise"
            return Exercise(path, clean(blocks[0]), how)
    return None


def main(argv: List[str]) -> int:
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    found = find(Path(argv[1]), argv[2], argv[3])
    if found is None:
        print("no exercise found", file=sys.stderr)
        return 1
    print(f"{found.path} ({found.how}):")
    print("\n".join(found.lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
