#!/usr/bin/env python3
"""The student edition of the docs: built without a warning, and without a line of solution code.

Run by the CTest test docs/student_edition (docs/CMakeLists.txt):

    check_student_docs.py --doxygen DOXYGEN --doxyfile Doxyfile.student-check \
                          --html OUTPUT/html --source-dir REPO

1. Builds the student edition with Doxygen; any warning or error fails.
2. Collects the solution-only code (compared with all whitespace removed): a few hand-picked lines (DISTINCTIVE below), and every code
   line of solutions/ that appears nowhere in what students get (lessons/, common/, the
   student pages, README.md).
3. Reads every generated .html and .js file as text (tags stripped, entities decoded,
   whitespace collapsed) and fails if any of that code is there.
4. As a control, requires the code of every \\snippet of the student pages to be found in the
   HTML: the search does see code, and the snippets did render.
5. Fails if any prose line of an instructor block (<!-- instructor:begin --> ...
   <!-- instructor:end -->, tools/edition_text.py) of the README, a lesson README or a docs page
   is in the HTML: the student edition's text is the students'.

Exit code 0 when all holds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

# Lines that only a solution holds, one or more per solution kernel. If the solutions change and
# one of these disappears from solutions/, the check fails and asks for a new one.
DISTINCTIVE = [
    "__shared__ float tile[kTile][kTile + 1];",   # 02: padded and coarsened tiles
    "tile[threadIdx.x][threadIdx.y + j]",        # 02: coarsened store
    "tile[4 * quad + 1][local]",                 # 02: vectorized store
    "c_coefficients[k]",                         # 01: poly_constant_kernel
    "c[p] = c_coefficients +",                   # 01: poly_constant_divergent_kernel
    "cudaMemcpyFromSymbol(h_coefficients",       # 01: the read-back
]
CODE_SUFFIXES = {".cu", ".cuh", ".hpp", ".h", ".cpp"}
MIN_LINE = 24  # shorter derived lines are too generic to tell a solution apart
SNIPPET = re.compile(r"^\s*[\\@]snippet(?:\{[^}]*\})?\s+(\S+)\s+(\S+)", re.M)


def normalize(text: str) -> str:
    """Code without any whitespace: HTML markup moves spaces around, never the code itself."""
    return "".join(text.replace("\xa0", " ").split())


def html_text(path: Path) -> str:
    raw = path.read_text(encoding="utf-8", errors="replace")
    raw = re.sub(r"<[^>]*>", "", raw)
    return normalize(html.unescape(raw))


def code_lines(path: Path) -> list[str]:
    """The code lines of a source file: no comments, no snippet markers, no blank lines."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("//") or stripped.startswith("#"):
            continue
        lines.append(normalize(stripped))
    return lines


def snippet_region(path: Path, name: str) -> list[str] | None:
    marker = f"[{name}]"
    text = path.read_text(encoding="utf-8").splitlines()
    where = [i for i, line in enumerate(text) if line.strip().startswith("//!") and marker in line]
    if len(where) < 2:
        return None
    region = [normalize(line) for line in text[where[0] + 1:where[1]]]
    return [line for line in region if line and not line.startswith("//")]


def run_doxygen(doxygen: str, doxyfile: Path, html_dir: Path, source_dir: Path) -> list[str]:
    shutil.rmtree(html_dir, ignore_errors=True)
    result = subprocess.run([doxygen, str(doxyfile)], cwd=source_dir, capture_output=True,
                            text=True)
    output = (result.stdout + result.stderr).splitlines()
    problems = [line for line in output if re.search(r"\b(warning|error)\b", line, re.I)]
    if result.returncode != 0:
        problems.append(f"doxygen exited with code {result.returncode}")
    if not (html_dir / "index.html").is_file():
        problems.append(f"no {html_dir / 'index.html'} was generated")
    return problems


def forbidden_code(source_dir: Path) -> tuple[list[str], list[str]]:
    """(solution-only strings, problems)."""
    solutions = source_dir / "solutions"
    if not solutions.is_dir():
        return [], []  # a student checkout: nothing that could leak
    solution_files = [p for p in sorted(solutions.rglob("*")) if p.suffix in CODE_SUFFIXES]
    solution_text = "\n".join(normalize(p.read_text(encoding="utf-8")) for p in solution_files)

    public = [source_dir / "README.md"]
    for folder in ("lessons", "common"):
        public += [p for p in sorted((source_dir / folder).rglob("*")) if p.is_file()]
    public += sorted((source_dir / "docs" / "pages").glob("*.md"))
    public_text = "\n".join(normalize(p.read_text(encoding="utf-8", errors="replace"))
                            for p in public if p.is_file())

    problems = []
    strings = []
    for text in DISTINCTIVE:
        key = normalize(text)
        if key not in solution_text:
            problems.append(f"'{text}' is no longer in solutions/: pick a new distinctive line "
                            f"in {Path(__file__).name}")
        elif key in public_text:
            problems.append(f"'{text}' also appears outside solutions/: it cannot tell a "
                            f"solution apart; pick another in {Path(__file__).name}")
        else:
            strings.append(key)
    derived = {line for path in solution_files for line in code_lines(path)
               if len(line) >= MIN_LINE and line not in public_text}
    strings += sorted(derived - set(strings))
    return strings, problems


def expected_code(source_dir: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """(snippet, a line of its code) for every \\snippet of the student pages, and problems."""
    expected, problems = [], []
    for page in sorted((source_dir / "docs" / "pages").glob("*.md")):
        for file_name, name in SNIPPET.findall(page.read_text(encoding="utf-8")):
            if file_name.startswith("solutions/"):
                problems.append(f"{page.name}: \\snippet {file_name} {name}: a student page "
                                f"must not show solution code (docs/pages/instructor/ is for that)")
                continue
            region = snippet_region(source_dir / file_name, name)
            if not region:
                problems.append(f"{page.name}: no region [{name}] in {file_name}")
                continue
            expected.append((f"{file_name} {name}", max(region, key=len)))
    return expected, problems


def instructor_prose(source_dir: Path) -> list[tuple[str, str]]:
    """(where, normalized line) for the plain prose lines that only instructor blocks hold."""
    sys.path.insert(0, str(source_dir / "tools"))
    try:
        import edition_text  # tools/edition_text.py
    except ImportError:
        return []
    texts = [source_dir / "README.md", *sorted((source_dir / "lessons").glob("*/README.md")),
             *sorted((source_dir / "docs" / "pages").glob("*.md"))]
    found = []
    for path in texts:
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        instructor = edition_text.apply(text, "instructor", keep_lines=True).split("\n")
        student = edition_text.apply(text, "student", keep_lines=True).split("\n")
        student_text = normalize("\n".join(student))
        for number, (mine, theirs) in enumerate(zip(instructor, student), start=1):
            line = mine.strip()
            if mine == theirs or len(line) < 40 or re.search(r"[*_\[\]|<>#\\@{}]", line):
                continue
            key = normalize(line.replace("`", ""))
            if key and key not in student_text:
                found.append((f"{path.relative_to(source_dir)}:{number}", key))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--doxygen", required=True)
    parser.add_argument("--doxyfile", required=True, type=Path)
    parser.add_argument("--html", required=True, type=Path, help="the edition's html/ folder")
    parser.add_argument("--source-dir", required=True, type=Path)
    args = parser.parse_args()

    problems = run_doxygen(args.doxygen, args.doxyfile, args.html, args.source_dir)
    if problems:
        print("docs: the student edition does not build cleanly:")
        print("\n".join(f"  {line}" for line in problems))
        return 1

    forbidden, problems = forbidden_code(args.source_dir)
    expected, more = expected_code(args.source_dir)
    problems += more

    pages = sorted(p for p in args.html.rglob("*") if p.suffix in (".html", ".js"))
    texts = {page: html_text(page) for page in pages}
    for page, text in texts.items():
        for code in forbidden:
            if code in text:
                problems.append(f"{page.relative_to(args.html)} shows solution code: {code}")
    everything = "\n".join(texts.values())
    prose = instructor_prose(args.source_dir)
    for where, line in prose:
        if line in everything:
            problems.append(f"{where}: text of an instructor block is in the student docs")
    for where, line in expected:
        if line not in everything:
            problems.append(f"\\snippet {where}: its code ('{line}') is in no generated page")

    print(f"docs: student edition, {len(pages)} generated files, {len(forbidden)} solution-only "
          f"lines and {len(prose)} instructor-only lines searched for, {len(expected)} snippets found")
    if problems:
        print("docs: FAILED")
        print("\n".join(f"  {line}" for line in problems))
        return 1
    print("docs: no warning, no solution code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
