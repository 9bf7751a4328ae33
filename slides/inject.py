#!/usr/bin/env python3
"""Expands the directives of the Marp decks into plain Markdown, so that no code is ever pasted.

    inject.py --source-dir REPO --out BUILD/slides/src [--edition student|instructor]
              [--results-dir slides/results/<gpu>] DECK.md...

Directives, each alone on its line:

    <!-- snippet: lessons/02_transpose/transpose_given.cu naive_kernel -->
        The lines between the two `//! [naive_kernel]` markers of that file (a path relative to
        the repository), as a ```cpp block, indentation removed. Add `no-comments` after the name
        to drop the comment-only lines. Add `lines=3-12,20-24` to show only those lines of the
        snippet (1-based, counted after `no-comments`), each gap shown as one `// ...` line: a
        slide holds about 22 lines of code (test_code_size.py), so a long kernel is shown with
        its unchanged lines elided. Comment lines over 100 columns are rewrapped. In the student
        edition a snippet of a file under solutions/ shows the exercise instead: the skeleton's stub and its TODO(student) hints
        for the same rung (slides/exercise.py says how it is found), with the file it is in.

    <!-- results: lessons/02_transpose -->
        The lesson's measured ladder, from RESULTS_DIR/02_transpose.json (the output of
        `lesson02_demo_solution --json`), as one Markdown table per ladder with a caption naming
        the GPU; without that file, a line saying how to make it. A sweep's table (chart.py says
        which tables are sweeps), e.g. `lessons/11_sorting_sweep_size` from
        RESULTS_DIR/11_sorting_sweep_size.json, has one row per swept value and two columns
        (metric, share) per rung.

    <!-- chart: lessons/02_transpose -->
        The same ladders drawn by chart.py: one inline SVG bar chart per table (rung x share of
        the ceiling), or a line chart for a sweep, stacked in a box that fits one slide (the
        decks are rendered with Marp's --html); without the results file, the same line saying
        how to make it.

    <!-- roofline: lessons/03_matmul [K] -->
        The roofline of the lesson's K-th table that has one (default the first), drawn by
        chart.py from the same JSON: the rungs at their operations per DRAM byte and achieved
        rate under the memory and compute roofs measured in the same run; without the file, or
        when it predates the rooflines, a line saying how to make it.

Edition markers (tools/edition_text.py) choose text per edition: an
`<!-- instructor:begin -->` ... `<!-- instructor:end -->` block is left out of the student
decks, a `<!-- student:begin` ... `student:end -->` block is shown only there.

Every deck is written to OUT/<same name>. OUT must be new, empty or an earlier OUT of this script,
outside the repository or where git ignores (tools/safe_output.py): exit code 2 otherwise. A
missing file or marker, a marker found once or three
times, or unreadable results stop the script with exit code 1 and a message naming the deck
and line.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent / "tools"))
import chart as chart_svg  # noqa: E402  (slides/chart.py)
import edition_text  # noqa: E402  (tools/edition_text.py)
import safe_output  # noqa: E402  (tools/safe_output.py)
import exercise  # noqa: E402  (slides/exercise.py)
from deck_tools import RESULTS_GPU  # noqa: E402  (the committed set shown by default)

SNIPPET = re.compile(r"^\s*<!--\s*snippet:\s*(?P<args>.*?)\s*-->\s*$")
RESULTS = re.compile(r"^\s*<!--\s*results:\s*(?P<args>.*?)\s*-->\s*$")
CHART = re.compile(r"^\s*<!--\s*chart:\s*(?P<args>.*?)\s*-->\s*$")
ROOFLINE = re.compile(r"^\s*<!--\s*roofline:\s*(?P<args>.*?)\s*-->\s*$")
EXERCISE_CAPTION = "<small>Your exercise, in `{path}` (the instructor edition shows the solution).</small>"
EXERCISE_ELSEWHERE = "*Your exercise: the `TODO(student)` comments in `{path}`.*"


class DeckError(Exception):
    pass


def markers(path: Path) -> dict[str, list[int]]:
    """Marker name -> the line indices of its `//! [name]` lines."""
    found: dict[str, list[int]] = {}
    for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        match = re.match(r"^\s*//!\s*\[([^\]]+)\]\s*$", line)
        if match:
            found.setdefault(match.group(1), []).append(index)
    return found


def snippet(source_dir: Path, relative: str, name: str, comments: bool,
            ranges: str | None = None) -> list[str]:
    path = source_dir / relative
    if not path.is_file():
        raise DeckError(f"no file {relative} (looked for {path})")
    found = markers(path)
    lines = found.get(name)
    if not lines:
        known = ", ".join(sorted(found)) or "none"
        raise DeckError(f"no marker '//! [{name}]' in {relative} (its markers: {known})")
    if len(lines) != 2:
        raise DeckError(f"'//! [{name}]' appears {len(lines)} times in {relative}; it must "
                        f"open and close one region")
    text = path.read_text(encoding="utf-8").splitlines()[lines[0] + 1:lines[1]]
    if not comments:
        text = [line for line in text if not line.strip().startswith("//")]
    body = textwrap.dedent("\n".join(text)).strip("\n")
    if not body:
        raise DeckError(f"the region [{name}] of {relative} is empty")
    lines = body.splitlines()
    return ["```cpp", *fit_comments(select(lines, ranges) if ranges else lines), "```"]


def fit_comments(lines: list[str], width: int = 100) -> list[str]:
    """Comment-only lines wider than `width` rewrapped: one long line would make Marp shrink
    the whole block below a readable size (test_code_size.py)."""
    out: list[str] = []
    for line in lines:
        text = line.lstrip()
        if len(line) <= width or not text.startswith("// "):
            out.append(line)
            continue
        prefix = line[:len(line) - len(text)] + "// "
        out.extend(textwrap.wrap(text[3:], width, initial_indent=prefix,
                                 subsequent_indent=prefix, break_long_words=False))
    return out


def select(body: list[str], ranges: str) -> list[str]:
    """The lines `ranges` ("3-12,20") names, each gap (also before and after) as `// ...`."""
    keep: list[int] = []
    for part in ranges.split(","):
        first, _, last = part.partition("-")
        if not first.isdigit() or not (last or first).isdigit():
            raise DeckError(f"lines={ranges}: write lines=A-B[,C-D...], 1-based")
        keep.extend(range(int(first), int(last or first) + 1))
    if keep != sorted(set(keep)) or keep[0] < 1 or keep[-1] > len(body):
        raise DeckError(f"lines={ranges}: not increasing ranges within the snippet's "
                        f"{len(body)} lines")
    def elided(first: int, last: int) -> str:    # indented like the first line it stands for
        line = next((body[i] for i in range(first, last) if body[i].strip()), "")
        return line[:len(line) - len(line.lstrip())] + "// ..."
    out: list[str] = []
    shown = 0                                     # lines 1..shown are shown or elided
    for index in keep:
        if index > shown + 1:
            out.append(elided(shown, index - 1))
        out.append(body[index - 1])
        shown = index
    if shown < len(body):
        out.append(elided(shown, len(body)))
    return out


def number(value, digits: int, suffix: str = "") -> str:
    if not isinstance(value, (int, float)) or value <= 0:
        return "—"
    return f"{value:.{digits}f}{suffix}"


def student_exercise(source_dir: Path, relative: str, name: str) -> list[str]:
    """What the student edition shows for a solution's snippet: the rung's exercise."""
    found = exercise.find(source_dir, relative, name)
    if found is None:
        lesson_dir = Path("lessons", *Path(relative).parts[1:-1])
        return [EXERCISE_ELSEWHERE.format(path=f"{lesson_dir.as_posix()}/")]
    return ["```cpp", *fit_comments(found.lines), "```", "",
            EXERCISE_CAPTION.format(path=found.path)]


def results(results_dir: Path, lesson_dir: str, edition: str = "instructor") -> list[str]:
    lesson = Path(lesson_dir).name                    # 02_transpose
    tag = "lesson" + lesson[:2]                       # lesson02
    path = results_dir / f"{lesson}.json"
    if not path.is_file():
        return missing(lesson, tag, "table", edition)
    try:
        text = path.read_text(encoding="utf-8")
        # Tolerate lines the demo prints before its JSON (e.g. "[course] ceiling: ...").
        start = re.search(r"^\{", text, re.M)
        doc = json.loads(text[start.start():] if start else text)
        gpu = doc["gpu"]
        out: list[str] = []
        for table in doc["tables"]:
            unit = table["metric_unit"]
            ceiling = table["ceiling"]
            if out:
                out.append("")
            found = chart_svg.sweep(table)
            if found:
                out.extend(sweep_table(table, gpu, found))
                continue
            out.append(f"**{table['title']}** — measured on {gpu}")
            out.append("")
            out.append(f"| rung | kind | status | median ms | {unit} | speedup over "
                       f"`{table['baseline']}` | share of {ceiling['name']} |")
            out.append("|---|---|---|--:|--:|--:|--:|")
            for row in table.get("rows", []):
                out.append(f"| `{row['rung']}` | {row['kind']} | {row['status']} | "
                           f"{number(row.get('median_ms'), 3)} | {number(row.get('metric'), 1)} | "
                           f"{number(row.get('speedup'), 2, '×')} | "
                           f"{number(row.get('share'), 2)} |")
            out.append("")
            out.append(f"<small>Ceiling: {ceiling['name']} = {number(ceiling['value'], 1)} "
                       f"{ceiling['unit']} ({ceiling['what']}).</small>")
        return out
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DeckError(f"{path}: not the output of `{tag}_demo_solution --json` "
                        f"({type(error).__name__}: {error})") from error


def sweep_table(table: dict, gpu: str, found: chart_svg.Sweep) -> list[str]:
    """A sweep as one Markdown table: a row per swept value, the metric and share of each rung."""
    unit = table["metric_unit"]
    ceiling = table["ceiling"]
    varying, fixed = chart_svg.other_columns(found)
    lines = {rung: {chart_svg.integer(row["extra"][found.column]): row for row in rows}
             for rung, rows in found.lines.items()}
    head = [found.column, *varying]
    for rung in lines:
        head += [f"`{rung}` {unit}", f"share of {ceiling['name']}"]
    out = [f"**{table['title']}** — measured on {gpu}", "",
           "| " + " | ".join(head) + " |", "|" + "--:|" * len(head)]
    for x in chart_svg.x_values(found):
        at_x = [rows[x] for rows in lines.values() if x in rows]
        cells = [str(x)] + [str(at_x[0]["extra"].get(name, "")) for name in varying]
        for rows in lines.values():
            row = rows.get(x, {})
            metric = number(row.get("metric"), 1)
            cells += [metric if row.get("status", "ok") == "ok" else row["status"],
                      number((row.get("share") or 0) * 100, 1, " %")]
        out.append("| " + " | ".join(cells) + " |")
    notes = [f"`{row['rung']}` (not swept): {number(row.get('metric'), 1)} {unit}, "
             f"{number((row.get('share') or 0) * 100, 1, ' %')} of {ceiling['name']}."
             for row in found.references]
    if fixed:
        notes.append(", ".join(f"{k} = {v}" for k, v in fixed.items()) + " at every point.")
    notes.append(f"Ceiling: {ceiling['name']} = {number(ceiling['value'], 1)} {ceiling['unit']} "
                 f"({ceiling['what']}).")
    notes += map(str, table.get("notes", []))
    return [*out, "", f"<small>{' '.join(notes)}</small>"]


def missing(lesson: str, tag: str, what: str, edition: str = "instructor") -> list[str]:
    flavour = "solution" if edition == "instructor" else "student"
    return [f"Run `{tag}_demo_{flavour} --json` to fill this {what}.",
            "",
            f"<small>(save its output as `slides/results/<gpu>/{lesson}.json` and build the slides "
            f"again)</small>"]


def charts(results_dir: Path, lesson_dir: str, height: int = 540,
           edition: str = "instructor", roofline: int | None = None) -> list[str]:
    """The lesson's ladders as inline SVG charts, in one HTML block (no blank line inside); with
    ROOFLINE = K, the K-th roofline (1-based) instead."""
    lesson = Path(lesson_dir).name
    tag = "lesson" + lesson[:2]
    path = results_dir / f"{lesson}.json"
    what = "roofline" if roofline else "chart"
    if not path.is_file():
        return missing(lesson, tag, what, edition)
    try:
        doc = chart_svg.load(path)
        images = chart_svg.svgs(doc) if roofline is None else chart_svg.rooflines(doc)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DeckError(f"{path}: not the output of `{tag}_demo_solution --json` "
                        f"({type(error).__name__}: {error})") from error
    if roofline is not None:
        if len(images) < roofline:   # results measured before the demos counted their work
            return missing(lesson, tag, what, edition)
        images = [images[roofline - 1]]
    out = [f'<div class="charts" style="display:flex;flex-direction:column;gap:8px;'
           f'height:{height}px">']
    for image in images:
        natural = re.search(r'viewBox="0 0 \d+ (\d+)"', image).group(1)
        out.extend(image.replace(
            "<svg ", f'<svg style="flex:{natural} 1 0;min-height:0;width:100%" '
                     f'preserveAspectRatio="xMinYMin meet" ', 1).rstrip("\n").splitlines())
    out.append("</div>")
    return out


def expand(deck: Path, source_dir: Path, results_dir: Path, edition: str) -> tuple[str, int]:
    out: list[str] = []
    count = 0
    in_fence = False
    try:
        # Blank lines in place of the other edition's text: the line numbers stay the deck's.
        text = edition_text.apply(deck.read_text(encoding="utf-8"), edition, keep_lines=True,
                                  where=str(deck))
    except edition_text.MarkerError as error:
        raise DeckError(str(error)) from None
    shown: set[tuple[str, ...]] = set()   # the exercises already on this slide
    for number_, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if not in_fence and line.strip() == "---":
            shown.clear()
        snippet_match = None if in_fence else SNIPPET.match(line)
        results_match = None if in_fence else RESULTS.match(line)
        chart_match = None if in_fence else CHART.match(line)
        roofline_match = None if in_fence else ROOFLINE.match(line)
        try:
            if snippet_match:
                args = snippet_match.group("args").split()
                ranges = args.pop()[len("lines="):] if args[-1].startswith("lines=") else None
                if len(args) not in (2, 3) or (len(args) == 3 and args[2] != "no-comments"):
                    raise DeckError("write <!-- snippet: <file> <marker> [no-comments] "
                                    "[lines=A-B,...] -->")
                relative, name = args[0], args[1]
                if edition == "student" and Path(relative).parts[0] == "solutions":
                    # Two rungs of one exercise on a slide (a buffer and its kernel): show it once,
                    # or the slide would carry the same block twice and run off the bottom.
                    lines = student_exercise(source_dir, relative, name)
                    if tuple(lines) not in shown:
                        out.extend(lines)
                    shown.add(tuple(lines))
                else:
                    out.extend(snippet(source_dir, relative, name, comments=len(args) == 2,
                                       ranges=ranges))
                count += 1
            elif results_match:
                args = results_match.group("args").split()
                if len(args) != 1:
                    raise DeckError("write <!-- results: lessons/<NN_name> -->")
                out.extend(results(results_dir, args[0], edition))
                count += 1
            elif chart_match:
                args = chart_match.group("args").split()
                if len(args) != 1:
                    raise DeckError("write <!-- chart: lessons/<NN_name> -->")
                out.extend(charts(results_dir, args[0], edition=edition))
                count += 1
            elif roofline_match:
                args = roofline_match.group("args").split()
                if len(args) not in (1, 2) or (len(args) == 2 and not args[1].isdigit()) or \
                        (len(args) == 2 and int(args[1]) < 1):
                    raise DeckError("write <!-- roofline: lessons/<NN_name> [K] -->")
                out.extend(charts(results_dir, args[0], edition=edition,
                                  roofline=int(args[1]) if len(args) == 2 else 1))
                count += 1
            else:
                out.append(line)
        except DeckError as error:
            raise DeckError(f"{deck}:{number_}: {error}") from None
    return "\n".join(out) + "\n", count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("decks", nargs="+", type=Path, help="the decks (Markdown)")
    parser.add_argument("--source-dir", required=True, type=Path, help="the repository")
    parser.add_argument("--out", required=True, type=Path, help="where the expanded decks go")
    parser.add_argument("--edition", choices=("student", "instructor"), default="student")
    parser.add_argument("--results-dir", type=Path,
                        help=f"the demos' JSON outputs (default: <source-dir>/slides/results/{RESULTS_GPU})")
    args = parser.parse_args()
    results_dir = args.results_dir or args.source_dir / "slides" / "results" / RESULTS_GPU

    try:
        # Never over the decks themselves, nor any directory this script did not write.
        out = safe_output.check_output_dir(args.out, "inject.py", protect=[args.source_dir],
                                           replace=True)
    except safe_output.OutputRefused as error:
        print(f"inject.py: error: {error}", file=sys.stderr)
        return 2
    safe_output.write_mark(out, "inject.py")
    for deck in args.decks:
        try:
            text, count = expand(deck, args.source_dir, results_dir, args.edition)
        except DeckError as error:
            print(f"inject.py: error: {error}", file=sys.stderr)
            return 1
        (out / deck.name).write_text(text, encoding="utf-8")
        print(f"inject.py: {deck.name}: {count} directives expanded ({args.edition} edition)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
