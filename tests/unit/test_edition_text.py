#!/usr/bin/env python3
"""The student edition describes itself: its texts name no file it lacks.

    python3 tests/unit/test_edition_text.py      (CTest: unit/edition_text, labels unit;cpu)

1. tools/edition_text.py: instructor blocks leave the student edition, student blocks appear
   only there, line numbers can be kept, and markers that do not pair up fail with their line.
2. The edition's texts, as students read them: every Markdown file the edition holds (the
   README, the lesson READMEs, the docs pages, ...) through the edition markers, and the decks
   as the student slides show them (slides/inject.py --edition student). Every path these texts
   name that this repository has (a file or directory, root-relative or relative to the text,
   placeholders such as NN_name and <name> read as wildcards; or a bare file name such as
   gpu_check.sh) must exist in the edition too, and no text may name a program that only the
   instructor build makes (lessonNN_demo_solution). Each offence is listed with its file and
   line; the fix is an instructor block around the passage (README.md shows how).

Nothing is written but a scratch directory for the expanded decks; needs neither CMake nor CUDA.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path, PurePosixPath
from typing import Dict, Iterable, List, Set, Tuple

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
import edition_text  # noqa: E402
import student_edition  # noqa: E402

URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
PATH = re.compile(r"(?<![\w/.$<>*-])((?:\.\.?/)*[\w.*<>-]+(?:(?:/[\w.*<>-]+)+/?|/(?![\w.*<>-])))")
BARE_FILE = re.compile(r"(?<![\w/.-])([\w-]+\.(?:cu|cuh|hpp|cpp|h|py|sh|md|json|patch|cmake|sbatch|pbs|txt))\b")
INSTRUCTOR_PROGRAM = re.compile(r"\blesson\d\d_(?:demo|test)_solution\b")


class Markers(unittest.TestCase):
    TEXT = ("a\n<!-- instructor:begin -->\nfor instructors\n<!-- instructor:end -->\n"
            "<!-- student:begin\nfor students\nstudent:end -->\nz\n")

    def test_each_edition_reads_its_own_text(self) -> None:
        self.assertEqual(edition_text.apply(self.TEXT, "student"), "a\nfor students\nz\n")
        self.assertEqual(edition_text.apply(self.TEXT, "instructor"), "a\nfor instructors\nz\n")
        kept = edition_text.apply(self.TEXT, "student", keep_lines=True)
        self.assertEqual(kept.split("\n"), ["a", "", "", "", "", "for students", "", "z", ""])

    def test_markers_in_code_are_only_text(self) -> None:
        text = ("Write `<!-- instructor:begin -->` to start a block.\n```\n<!-- instructor:begin -->\n```\n")
        self.assertEqual(edition_text.apply(text, "student"), text)

    def test_bad_markers_name_their_line(self) -> None:
        for text, words in (("x\n<!-- instructor:begin -->\nnever closed\n", "2: the instructor block is never closed"),
                            ("<!-- instructor:end -->\n", "1: <!-- instructor:end --> without its begin"),
                            ("<!-- instructor:begin -->\n<!-- student:begin\n", "2: <!-- student:begin inside"),
                            ("text <!-- instructor:begin --> text\n", "1: an edition marker must stand alone"),
                            ("<!-- student:begin\na --> b\nstudent:end -->\n", "2: a student block may not hold")):
            with self.subTest(text=text), self.assertRaisesRegex(edition_text.MarkerError, words):
                edition_text.apply(text, "student", where="f.md")

    def test_every_text_of_this_repository_has_well_formed_markers(self) -> None:
        for name in student_edition.worktree_files(REPO):
            if not name.endswith(edition_text.SUFFIXES):
                continue
            path = REPO / name
            with self.subTest(path=name):
                edition_text.apply(path.read_text(encoding="utf-8"), "student", where=str(path))


def placeholder_glob(path: str) -> str:
    """lessons/NN_name/README.md -> lessons/[0-9][0-9]_*/README.md; <x> -> *."""
    path = re.sub(r"<[^>/]*>", "*", path)
    path = re.sub(r"\bNN_name\b|\bNN_\*", "[0-9][0-9]_*", path)
    return re.sub(r"\bNN\b", "[0-9][0-9]", path)


class Tree:
    """The files and directories of one tree, for glob matching."""

    def __init__(self, files: Iterable[str]) -> None:
        self.files = set(files)
        self.dirs: Set[str] = set()
        for file in self.files:
            parent = PurePosixPath(file).parent
            while str(parent) != ".":
                self.dirs.add(str(parent))
                parent = parent.parent
        self.names = {PurePosixPath(file).name for file in self.files}

    def has(self, pattern: str) -> bool:
        pattern = pattern.rstrip("/")
        if not any(ch in pattern for ch in "*?["):
            return pattern in self.files or pattern in self.dirs
        return any(fnmatch.fnmatchcase(entry, pattern) for entry in (*self.files, *self.dirs))


def named_paths(text: str) -> Iterable[Tuple[int, str, str]]:
    """(line, kind, token) for every path, bare file name and instructor program in text."""
    for number, line in enumerate(text.splitlines(), start=1):
        line = URL.sub(" ", line)
        for match in PATH.finditer(line):
            yield number, "path", match.group(1).rstrip(".,:;)")
        for match in BARE_FILE.finditer(line):
            yield number, "file", match.group(1)
        for match in INSTRUCTOR_PROGRAM.finditer(line):
            yield number, "program", match.group(0)


def blank_comments(text: str) -> str:
    """HTML comments (never shown) as blank lines, so that line numbers stay."""
    return HTML_COMMENT.sub(lambda match: "\n" * match.group(0).count("\n"), text)


def offences(where: str, text: str, instructor: Tree, edition: Tree) -> List[str]:
    found = []
    directory = posixpath.dirname(where)
    for number, kind, token in named_paths(blank_comments(text)):
        if kind == "program":
            found.append(f"{where}:{number}: names {token}, which only the instructor build makes")
            continue
        if kind == "file":
            if token in instructor.names and token not in edition.names:
                found.append(f"{where}:{number}: names {token}, which the edition lacks")
            continue
        pattern = placeholder_glob(token)
        candidates = [posixpath.normpath(posixpath.join(directory, pattern))]
        if not pattern.startswith("."):
            candidates.insert(0, posixpath.normpath(pattern))
        for candidate in candidates:
            if candidate.startswith("..") or not instructor.has(candidate):
                continue
            if not edition.has(candidate):
                found.append(f"{where}:{number}: names {token}, which the edition lacks")
            break
    return found


def student_decks(edition: Tree) -> Dict[str, str]:
    """The decks as the student slides show them."""
    decks = sorted(REPO / path for path in edition.files
                   if path.startswith("slides/decks/") and path.endswith(".md"))
    if not decks:
        return {}
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([sys.executable, str(REPO / "slides" / "inject.py"), "--source-dir",
                               str(REPO), "--out", out, "--edition", "student", *map(str, decks)],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise AssertionError(f"slides/inject.py --edition student failed: {done.stderr.strip()}")
        return {f"slides/decks/{p.name} (as the student slides show it)": p.read_text(encoding="utf-8")
                for p in sorted(Path(out).glob("*.md"))}


class EditionNamesOnlyWhatItHas(unittest.TestCase):
    def test_every_path_the_edition_names_exists_there(self) -> None:
        files = student_edition.worktree_files(REPO)
        instructor = Tree(files)
        edition = Tree(path for path in files if not student_edition.is_excluded(path))
        problems: List[str] = []
        for path in sorted(edition.files):
            if not path.endswith(edition_text.SUFFIXES) or path.startswith("slides/decks/"):
                continue
            text = edition_text.apply((REPO / path).read_text(encoding="utf-8"), "student",
                                      keep_lines=True, where=path)  # the source's line numbers
            problems += offences(path, text, instructor, edition)
        for where, text in student_decks(edition).items():
            problems += offences(where, text, instructor, edition)
        self.assertEqual(problems, [], "the student edition names what it lacks (put the passage "
                         "in an instructor block, <!-- instructor:begin --> ... <!-- instructor:end -->):\n  "
                         + "\n  ".join(problems))

    def test_the_checker_sees_what_it_must(self) -> None:
        instructor = Tree(["lessons/05_reduction/README.md", "tests/05_reduction/mutants/a.patch",
                           "tools/gpu_check.sh", "tools/grade.py", "solutions/05_reduction/r.cu",
                           "lessons/05_reduction/reduction.cu"])
        edition = Tree(["lessons/05_reduction/README.md", "tools/grade.py", "lessons/05_reduction/reduction.cu"])
        text = ("Mutants (`tests/05_reduction/mutants/`), `tools/gpu_check.sh`, `solutions/`,\n"
                "see [grade](../../tools/grade.py), `lessons/NN_name/README.md`, `reduction.cu`,\n"
                "GB/s, build/student/x, `lesson05_demo_solution`, gpu_check.sh\n"
                "<!-- not shown: solutions/05_reduction/r.cu -->\n")
        found = offences("lessons/05_reduction/README.md", text, instructor, edition)
        self.assertEqual(found, [
            "lessons/05_reduction/README.md:1: names tests/05_reduction/mutants/, which the edition lacks",
            "lessons/05_reduction/README.md:1: names tools/gpu_check.sh, which the edition lacks",
            "lessons/05_reduction/README.md:1: names solutions/, which the edition lacks",
            "lessons/05_reduction/README.md:3: names gpu_check.sh, which the edition lacks",
            "lessons/05_reduction/README.md:3: names lesson05_demo_solution, which only the instructor build makes"])


MARKDOWN_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")


def layout_entry(readme: str, directory: str) -> str:
    """The text of one entry of the README's Layout block, e.g. "tools/" and its continuation
    lines."""
    section = readme.split("## Layout", 1)[1]
    block = section.split("```", 2)[1]
    lines = block.splitlines()
    for index, line in enumerate(lines):
        if line.startswith(directory):
            entry = [line]
            for more in lines[index + 1:]:
                if not more.startswith(" "):
                    break
                entry.append(more)
            return " ".join(entry)
    raise AssertionError(f"the Layout block has no entry {directory}")


class TextsSayWhatIsThere(unittest.TestCase):
    """What the texts promise about the repository itself (issue 28, item 8)."""

    def test_relative_links_lead_to_a_file_of_the_repository(self) -> None:
        # The docs' index linked to build/dev/docs/html/index.html: a build output, in no clone.
        files = student_edition.worktree_files(REPO)
        tree = Tree(files)
        broken: List[str] = []
        for path in files:
            if not path.endswith(".md"):
                continue
            text = blank_comments((REPO / path).read_text(encoding="utf-8"))
            for number, line in enumerate(text.splitlines(), start=1):
                for match in MARKDOWN_LINK.finditer(line):
                    target = match.group(1).split("#", 1)[0]
                    if not target or URL.match(target) or target.startswith("mailto:"):
                        continue
                    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
                    if resolved.startswith("..") or not tree.has(resolved):
                        broken.append(f"{path}:{number}: links to {match.group(1)}")
        self.assertEqual(broken, [], "links to nothing in a clone:\n  " + "\n  ".join(broken))

    def test_the_layout_names_every_tool_of_each_edition(self) -> None:
        files = student_edition.worktree_files(REPO)
        readme = (REPO / "README.md").read_text(encoding="utf-8")
        for edition in ("instructor", "student"):
            with self.subTest(edition=edition):
                shown = [path for path in files
                         if edition == "instructor" or not student_edition.is_excluded(path)]
                tools = sorted({path.split("/")[1] + ("/" if path.count("/") > 1 else "")
                                for path in shown if path.startswith("tools/")})
                entry = layout_entry(edition_text.apply(readme, edition), "tools/")
                unnamed = [tool for tool in tools if tool not in entry]
                self.assertEqual(unnamed, [], f"the {edition} README's Layout, tools/: {entry}")
                absent = [name for name in re.findall(r"[\w-]+\.(?:py|sh)|[\w-]+/", entry)
                          if name not in tools and name != "tools/"]
                self.assertEqual(absent, [], f"the {edition} README's Layout names what it lacks")

    def test_a_build_without_a_gpu_is_said_to_lack_the_tensor_core_rungs(self) -> None:
        # PTX for 7.5 runs on any newer GPU, but holds no tensor-core code: a text that says the
        # first must say the second, for both lessons that have such rungs (12 and 13).
        for path in ("README.md", "docs/pages/setup.md"):
            text = (REPO / path).read_text(encoding="utf-8")
            claims = [paragraph for paragraph in re.split(r"\n\s*\n", text)
                      if "PTX" in paragraph and re.search(r"any (newer )?GPU", paragraph)]
            with self.subTest(path=path):
                self.assertTrue(claims, f"{path} no longer says where a no-GPU build runs")
                for paragraph in claims:
                    self.assertIn("lesson 12's", paragraph)
                    self.assertIn("lesson 13's", paragraph)
                    self.assertIn("tensor-core", paragraph)


if __name__ == "__main__":
    unittest.main(verbosity=2)
