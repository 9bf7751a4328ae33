#!/usr/bin/env python3
"""Every rung of every lesson has one kind (given, exercise or stretch), wherever it is written.

    python3 tests/unit/test_rung_kinds.py [--root COURSE]     (CTest: unit/rung_kinds, unit;cpu)

A rung's kind is written in four places, and they must agree:

1. the interface (lessons/NN_name/*.cuh): the kind field of its entry in a rung list such as
   ``kVariants{{ {Variant::Tiled, "tiled", "exercise"}, ... }}`` (any ``std::array`` whose
   element type has a ``kind`` member: lesson 06 has two, ``kKernels`` and ``kMemories``);
2. the interface again: the doc comment of its enumerator, ``Tiled,  ///< exercise: ...``
   (lesson 05's row versions have only this one: ``kRowVersions`` pairs names and enumerators);
3. the README's rung table (``| rung | kind | ...``, the rung in backticks; lesson 06 has two,
   lesson 05 a second one of row versions, ``| row version | kind | ...``);
4. the README's grading table (course_grade.tables, the grader's own reader): every test
   ``<rung>.<check>`` has its rung's kind (a row version's tests are ``row_<version>.<check>``).

A failure names the lesson, the rung and the two places that disagree, with their lines. A
grading row that names no rung must be one of the lesson-wide rows (NOT_RUNGS); a rung only one
side lists must be an exception with its reason (README_ONLY). No graded test has a kind other
than its rung's today; one that must (a rung's speed row graded as a stretch, say) goes in
KIND_EXCEPTIONS with its reason. TheCheckFails changes one kind in a copy of lesson 02, in each
place in turn, and expects this test to say so.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import unittest
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parents[2]
HARNESS_TYPES = REPO / "common" / "include" / "course" / "variants.hpp"  # course::RungInfo
sys.path.insert(0, str(REPO / "tools"))
from course_grade.tables import KINDS, markdown_tables, parse_grading_table  # noqa: E402

ROOT = REPO  # the course RungKinds checks; --root gives another

# A README table of rungs: its first header cell -> the prefix of its rungs' graded tests.
RUNG_TABLES = {
    "rung": "",
    # Lesson 05's row reductions: tests/05_reduction grades `global` as row_global.correct.
    "row version": "row_",
}
# Grading rows of the lesson as a whole, not of a rung: what their first part names.
NOT_RUNGS = {
    "memory": "memory.sanitize: compute-sanitizer over every exercise and stretch rung",
    "launcher": "launcher.bad_arguments: the launchers' argument checks",
}
# Rungs in a README rung table that the interface lists without a kind: (lesson, rung) -> why.
README_ONLY = {
    ("08", "jacobi"): "the Jacobi driver is a function, jacobi(), not a Variant: the interface "
                      "names it (kJacobiName) in a comment, with no kind field",
}
# Graded tests whose kind is not their rung's: (lesson, test) -> why. None today.
KIND_EXCEPTIONS: Dict[Tuple[str, str], str] = {}

ENUM_RE = re.compile(r"enum class (\w+)[^{;]*\{(.*?)\};", re.S)
ENUMERATOR_RE = re.compile(r"^\s*(\w+)\s*(?:=[^,]*)?,\s*(?:///<\s*(\w+):)?")
STRUCT_RE = re.compile(r"struct (\w+)\s*\{(.*?)\};", re.S)
ALIAS_RE = re.compile(r"using (\w+)\s*=\s*(?:course::)?(\w+)<[^;]*>;")
MEMBER_RE = re.compile(r"^\s*[\w:<>]+\s+(\w+)\s*(?:=[^;]*)?;")
ARRAY_RE = re.compile(r"std::array<([^\n]+?),\s*\w+>\s+(k\w+)\s*\{\{(.*?)\}\};", re.S)
ENTRY_RE = re.compile(r'\{\s*(\w+)::(\w+)\s*,((?:[^{}"]|"[^"]*")*)\}')
FIELD_RE = re.compile(r'"([^"]*)"|([^,\s][^,]*)')
RUNG_CELL_RE = re.compile(r"^`([a-z0-9_]+)`$")


@dataclass
class Place:
    """Where a rung's kind is written, and what it says."""

    kind: str
    where: str  # "lessons/02_transpose/transpose.cuh:37 (kVariants)"


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def interface_places(lesson: Path, root: Path, problems: List[str]) -> Dict[str, List[Place]]:
    """Rung name -> the places of the lesson's interface headers that give its kind."""
    sources = {path: path.read_text(encoding="utf-8") for path in sorted(lesson.glob("*.cuh"))}
    enum_kinds: Dict[Tuple[str, str], Place] = {}
    fields: Dict[str, List[str]] = {}  # struct name -> its members, in order
    # The harness's own entry types (course::RungInfo), which an interface may name by an alias.
    for text in [HARNESS_TYPES.read_text(encoding="utf-8")] if HARNESS_TYPES.is_file() else []:
        for struct in STRUCT_RE.finditer(text):
            fields[struct.group(1)] = [m.group(1) for line in struct.group(2).split("\n")
                                       for m in [MEMBER_RE.match(line.split("///")[0])] if m]
    for path, text in sources.items():
        shown = path.relative_to(root)
        for enum in ENUM_RE.finditer(text):
            members = []  # (enumerator, its offset in text)
            offset = enum.start(2)
            for line in enum.group(2).split("\n"):
                match = ENUMERATOR_RE.match(line)
                if match:
                    members.append((match, offset))
                offset += len(line) + 1
            if not any(m.group(2) in KINDS for m, _ in members):
                continue  # not an enum of rungs (Op, RowOp)
            for match, offset in members:
                if match.group(2) not in KINDS:
                    problems.append(f"{shown}:{line_of(text, offset)}: {enum.group(1)}::"
                                    f"{match.group(1)}'s comment gives no kind (///< given: ...)")
                    continue
                enum_kinds[(enum.group(1), match.group(1))] = Place(
                    match.group(2), f"{shown}:{line_of(text, offset)} (enum {enum.group(1)})")
        for struct in STRUCT_RE.finditer(text):
            fields[struct.group(1)] = [m.group(1) for line in struct.group(2).split("\n")
                                       for m in [MEMBER_RE.match(line.split("///")[0])] if m]
        for alias in ALIAS_RE.finditer(text):
            if alias.group(2) in fields:
                fields[alias.group(1)] = fields[alias.group(2)]
    places: Dict[str, List[Place]] = {}
    for path, text in sources.items():
        for array in ARRAY_RE.finditer(text):
            members = fields.get(re.match(r"\w+", array.group(1)).group(0), [])
            name_at = members.index("name") if "name" in members else 1
            kind_at = members.index("kind") if "kind" in members else None
            if array.group(2) == "kVariants" and kind_at is None:
                # The rung table itself: its kinds must be read, never skipped unseen.
                problems.append(f"{path.relative_to(root)}:{line_of(text, array.start())}: "
                                f"kVariants' entry type {array.group(1)} has no field `kind` "
                                "this check can find")
            for entry in ENTRY_RE.finditer(array.group(3)):
                values = [m.group(1) if m.group(1) is not None else m.group(2).strip()
                          for m in FIELD_RE.finditer(entry.group(3))]
                if len(values) < name_at:
                    continue
                name = values[name_at - 1]
                found = places.setdefault(name, [])
                line = line_of(text, array.start(3) + entry.start())
                if kind_at is not None and len(values) >= kind_at:
                    found.append(Place(values[kind_at - 1], f"{path.relative_to(root)}:{line} "
                                                            f"({array.group(2)})"))
                enum_place = enum_kinds.get((entry.group(1), entry.group(2)))
                if enum_place is not None and enum_place not in found:
                    found.append(enum_place)
                if not found:
                    del places[name]  # a list of something else (kOps, kRowOps)
    return places


def readme_rungs(readme: Path, root: Path, problems: List[str]) -> Dict[str, Tuple[Place, str]]:
    """Rung name -> its kind in the README's rung tables, and the name its tests are graded by."""
    rungs: Dict[str, Tuple[Place, str]] = {}
    shown = readme.relative_to(root)
    for table in markdown_tables(readme.read_text(encoding="utf-8")):
        prefix = RUNG_TABLES.get(table.header[0])
        if prefix is None or table.header[1:2] != ["kind"]:
            continue
        for line, cells in table.rows:
            name = RUNG_CELL_RE.match(cells[0])
            if name is None or len(cells) < 2 or cells[1] not in KINDS:
                problems.append(f"{shown}:{line}: a rung table's row is not `rung` | kind: "
                                f"{cells[:2]}")
                continue
            if name.group(1) in rungs:
                problems.append(f"{shown}:{line}: rung `{name.group(1)}` is listed twice")
            rungs[name.group(1)] = (Place(cells[1], f"{shown}:{line} (rung table)"),
                                    prefix + name.group(1))
    return rungs


def lesson_problems(lesson: Path, root: Path) -> List[str]:
    """Every disagreement about a rung's kind in one lesson directory of the course at root, one
    line each."""
    number = lesson.name[:2]
    problems: List[str] = []
    interface = interface_places(lesson, root, problems)
    readme = lesson / "README.md"
    rungs = readme_rungs(readme, root, problems)
    if not interface:
        problems.append(f"no rung list with kinds in {lesson.relative_to(root)}/*.cuh")
    if not rungs:
        problems.append(f"{readme.relative_to(root)}: no rung table (| rung | kind | ...)")
    for name, places in interface.items():
        if name not in rungs:
            problems.append(f"rung `{name}` is in {places[0].where} but in no rung table of "
                            f"{readme.relative_to(root)}")
            continue
        told = rungs[name][0]
        problems += [f"rung `{name}` is {place.kind} in {place.where} but {told.kind} in "
                     f"{told.where}" for place in places if place.kind != told.kind]
    for name, (told, _) in rungs.items():
        why = README_ONLY.get((number, name))
        if name not in interface and why is None:
            problems.append(f"rung `{name}` is in {told.where} but in no rung list of the "
                            f"interface with its kind")
        elif name in interface and why is not None:
            problems.append(f"rung `{name}`: README_ONLY says the interface gives it no kind, but "
                            f"{interface[name][0].where} does")
    graded = {graded_as: (name, told) for name, (told, graded_as) in rungs.items()}
    tests, warnings = parse_grading_table(readme.read_text(encoding="utf-8"),
                                          str(readme.relative_to(root)))
    problems += warnings
    for test in tests:
        graded_as = test.name.split(".")[0]
        where = f"{readme.relative_to(root)}:{test.line} (grading table)"
        if graded_as not in graded:
            if graded_as not in NOT_RUNGS:
                problems.append(f"graded test `{test.name}` in {where} names no rung of the "
                                f"lesson's rung tables")
            continue
        rung, told = graded[graded_as]
        if test.kind != told.kind and (number, test.name) not in KIND_EXCEPTIONS:
            problems.append(f"rung `{rung}`: its graded test `{test.name}` is {test.kind} in "
                            f"{where} but the rung is {told.kind} in {told.where}")
    for (exception_lesson, name) in README_ONLY:
        if exception_lesson == number and name not in rungs:
            problems.append(f"README_ONLY names rung `{name}`, which no rung table lists")
    return [f"lesson {number} ({lesson.name}): {problem}" for problem in problems]


def lesson_dirs(root: Path) -> List[Path]:
    return [path for path in sorted((root / "lessons").iterdir())
            if path.is_dir() and re.match(r"\d{2}_", path.name)]


class RungKinds(unittest.TestCase):
    def test_every_lesson_says_each_rungs_kind_once(self) -> None:
        lessons = lesson_dirs(ROOT)
        self.assertTrue(lessons, f"no lessons under {ROOT}")
        for lesson in lessons:
            with self.subTest(lesson=lesson.name):
                problems = lesson_problems(lesson, ROOT)
                self.assertEqual(problems, [], "\n" + "\n".join(problems))


class TheCheckFails(unittest.TestCase):
    """Lesson 02 copied, one kind changed in one place: the check names the rung and both
    places."""

    # (file, pattern of tiled's kind there, what the change makes it)
    CHANGES = {
        "kVariants": ("transpose.cuh", r'(\{Variant::Tiled, "tiled", )"exercise"', r'\1"stretch"'),
        "enum Variant": ("transpose.cuh", r"(Tiled,\s*///< )exercise:", r"\1stretch:"),
        "rung table": ("README.md", r"(\| `tiled` \| )exercise \|", r"\1stretch |"),
        "grading table": ("README.md", r"(\| `tiled\.speed` \| )exercise \|", r"\1stretch |"),
    }

    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="course-rung-kinds-")
        self.root = Path(self._tmp.name)
        self.lesson = self.root / "lessons" / "02_transpose"
        self.lesson.mkdir(parents=True)
        for path in [REPO / "lessons/02_transpose/README.md",
                     *(REPO / "lessons/02_transpose").glob("*.cuh")]:
            shutil.copy2(path, self.lesson / path.name)

    def tearDown(self) -> None:
        self._tmp.cleanup()

    def test_the_copy_agrees(self) -> None:
        self.assertEqual(lesson_problems(self.lesson, self.root), [])

    def test_one_kind_changed_is_named(self) -> None:
        for place, (name, pattern, replacement) in self.CHANGES.items():
            with self.subTest(place=place):
                path = self.lesson / name
                original = path.read_text(encoding="utf-8")
                changed, count = re.subn(pattern, replacement, original, count=1)
                self.assertEqual(count, 1, f"{pattern!r} not found in {name}")
                path.write_text(changed, encoding="utf-8")
                try:
                    problems = lesson_problems(self.lesson, self.root)
                finally:
                    path.write_text(original, encoding="utf-8")
                self.assertTrue(problems, f"a changed kind in the {place} went unnoticed")
                for problem in problems:
                    self.assertRegex(problem, r"^lesson 02 \(02_transpose\): rung `tiled`")
                    self.assertRegex(problem, r"is (stretch|exercise) in \S+:\d+ \(.*\) but "
                                              r".*(stretch|exercise) in \S+:\d+ \(")
                self.assertTrue(any(f"({place})" in problem for problem in problems), problems)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO, help="the course to check")
    args, rest = parser.parse_known_args()
    ROOT = args.root.resolve()
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)
