#!/usr/bin/env python3
"""Write the student edition of the course: the repository that students receive.

Usage
-----
    python3 tools/student_edition.py OUT_DIR            # OUT_DIR must not exist, or be empty
    python3 tools/student_edition.py OUT_DIR --force    # replace an edition written there before
    python3 tools/student_edition.py OUT_DIR --git-init # and make it a git repository, one commit
    python3 tools/student_edition.py OUT_DIR --worktree # from the working tree, not from HEAD
    cmake --build build/dev --target student_edition    # the same, into build/dev/student-edition

The edition holds the files of a commit (HEAD unless ``--rev``; ``git archive``), or with
``--worktree`` the files of the working tree that git tracks or would add (``git ls-files
--cached --others --exclude-standard``: uncommitted edits and new files included, ignored
files never), less what only instructors need:

* ``solutions/``                  the reference solutions;
* ``tests/*/mutants/``            deliberately broken solutions (they patch ``solutions/``);
* ``tests/hostile/``, ``tests/cluster/``  the grader's own integrity and cluster tests;
* ``docs/pages/instructor/``      the docs pages that show solution code;
* ``notes/``                      the instructors' performance notes on the solutions;
* ``slides/results/README.md``    how to measure the decks' results again with the solutions;
* ``tools/cluster/``, ``tools/make_mutant.sh``, ``tools/gpu_check.sh``, this script and the
  tests that need them.

The edition's texts (every ``.md`` file: the README, the lesson READMEs, the docs pages, the
decks) are written as students read them: ``<!-- instructor:begin -->`` ... ``<!-- instructor:end
-->`` blocks are removed and ``<!-- student:begin`` ... ``student:end -->`` blocks are shown
(tools/edition_text.py), so the edition describes itself and names no file it lacks.

Where it writes: OUT_DIR may not be the source tree, inside it (except where git ignores, e.g.
``build/``) or above it, ``/`` or the home directory, and it must be new or empty, or hold an
edition that this script wrote before (its mark, ``.course-output``), which ``--force``
replaces, but only if nobody worked in it since: the mark lists every file written with its
SHA-256 (and the one commit of ``--git-init``), and an edition with a file edited, added or
deleted (a student's solution, their notes, their ``build/``), a new commit or a stash is
refused, with what changed, so that a student's work is never reverted or deleted. The edition
is written beside OUT_DIR first and takes its place only once complete, so a failure leaves
OUT_DIR as it was.

Without ``solutions/`` the build switches the solutions, the mutants and the instructor editions
of the docs and slides off by itself, so the edition configures, builds and grades on its own
(``cmake --workflow --preset grade``).  The script refuses to write an edition that still holds
a solution file, byte for byte, under another name.

Exit code 0 on success, 1 if the edition could not be written, 2 for usage errors and refused
output directories.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path, PurePosixPath
from typing import Iterable, List, Optional, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
import edition_text  # noqa: E402  (tools/edition_text.py)
import safe_output  # noqa: E402  (tools/safe_output.py)

TOOL = "student_edition.py"

# Tracked paths that the edition leaves out: a directory prefix (ending in '/') or a file.
EXCLUDED = (
    "solutions/",
    "tests/hostile/",
    "tests/cluster/",
    "docs/pages/instructor/",
    "notes/",
    "slides/results/README.md",
    "tools/cluster/",
    "tools/make_mutant.sh",
    "tools/gpu_check.sh",
    "tools/student_edition.py",
    "tests/unit/test_student_edition.py",
    "tests/unit/test_edition_text.py",
    "tests/unit/test_outputs.py",
    "tests/unit/test_fresh_clone.py",
)
# Any directory of this name, at any depth (tests/NN_name/mutants/).
EXCLUDED_DIR_NAMES = ("mutants",)


class EditionError(Exception):
    """The edition cannot be written; reported with exit code 1."""


def first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return "(no message)"
    return lines[0] + (f" (and {len(lines) - 1} more lines)" if len(lines) > 1 else "")


def is_excluded(path: str) -> bool:
    """True if the tracked file at this repository-relative path is for instructors only."""
    for rule in EXCLUDED:
        if path == rule or (rule.endswith("/") and path.startswith(rule)):
            return True
    return any(part in EXCLUDED_DIR_NAMES for part in PurePosixPath(path).parts[:-1])


def git(source: Path, *args: str) -> bytes:
    try:
        return subprocess.run(["git", "-C", str(source), *args], check=True, capture_output=True).stdout
    except FileNotFoundError:
        raise EditionError("git is needed to list the course's files") from None
    except subprocess.CalledProcessError as err:
        command = " ".join(args[:2]) if len(args) > 2 else " ".join(args)
        raise EditionError(f"git {command} in {source}: "
                           f"{first_line(err.stderr.decode(errors='replace'))}") from None


def worktree_files(source: Path) -> List[str]:
    """Files git tracks or would add (not ignored), as they are in the working tree."""
    listed = git(source, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    paths = sorted({p for p in listed.decode("utf-8").split("\0") if p})
    return [p for p in paths if (source / p).is_file() and not (source / p).is_symlink()]


def commit_files(source: Path, rev: str) -> List[str]:
    listed = git(source, "ls-tree", "-r", "-z", "--name-only", rev)
    return [p for p in listed.decode("utf-8").split("\0") if p]


def edition_files(source: Path, rev: Optional[str]) -> List[str]:
    """The edition's files: of commit rev, or of the working tree when rev is None."""
    paths = worktree_files(source) if rev is None else commit_files(source, rev)
    return [path for path in paths if not is_excluded(path)]


def copy_files(source: Path, out: Path, paths: Iterable[str]) -> int:
    count = 0
    for path in paths:
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / path, target)  # keeps the executable bit of scripts
        count += 1
    return count


def extract_commit(source: Path, rev: str, out: Path, paths: List[str]) -> int:
    """Write the given paths of commit rev into out (git archive keeps the file modes)."""
    archive = git(source, "archive", "--format=tar", rev, "--", *paths) if paths else b""
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
        tar.extractall(out, members=members, filter="data")
    return len(members)


def leaked_solutions(source: Path, out: Path) -> List[str]:
    """Edition files whose bytes equal a solution file's (a solution under another name)."""
    solutions = source / "solutions"
    if not solutions.is_dir():
        return []
    solution_bytes = {p.read_bytes() for p in solutions.rglob("*") if p.is_file()}
    return sorted(str(p.relative_to(out)) for p in out.rglob("*")
                  if p.is_file() and p.read_bytes() in solution_bytes)


def apply_edition_markers(out: Path) -> int:
    """Rewrite every text of the edition as students read it; return how many changed."""
    changed = 0
    for path in sorted(out.rglob("*")):
        if path.suffix not in edition_text.SUFFIXES or not path.is_file() or path.is_symlink():
            continue
        text = path.read_text(encoding="utf-8")
        if not edition_text.has_markers(text):
            continue
        try:
            shown = edition_text.apply(text, "student", where=str(path.relative_to(out)))
        except edition_text.MarkerError as err:
            raise EditionError(str(err)) from None
        path.write_text(shown, encoding="utf-8")
        changed += 1
    return changed


def git_init(out: Path) -> str:
    """Make the edition a repository with one commit, as students would clone it (the mark of
    this script stays out of it); return the commit."""
    identity = ["-c", "user.name=course", "-c", "user.email=course@localhost"]
    try:
        subprocess.run(["git", "-C", str(out), "init", "-q"], check=True, capture_output=True)
        with (out / ".git" / "info" / "exclude").open("a", encoding="utf-8") as exclude:
            exclude.write(f"/{safe_output.MARK}\n")
        for command in (["add", "-A"], [*identity, "commit", "-q", "-m", "Student edition"]):
            subprocess.run(["git", "-C", str(out), *command], check=True, capture_output=True)
        return git(out, "rev-parse", "HEAD").decode().strip()
    except subprocess.CalledProcessError as err:
        raise EditionError(f"git {err.cmd[3]} in the edition: "
                           f"{first_line(err.stderr.decode(errors='replace'))}") from None


def check_out_dir(source: Path, out: Path, force: bool) -> Path:
    """The resolved OUT_DIR, or safe_output.OutputRefused (exit code 2)."""
    return safe_output.check_output_dir(out, TOOL, protect=[source], replace=force,
                                        replace_hint="use --force to replace it", untouched=True)


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def put_in_place(staged: Path, out: Path) -> None:
    """Move the complete edition staged beside out to out, replacing what check_out_dir allowed
    (nothing, an empty directory, or an edition this script wrote)."""
    if out.is_dir() and not any(out.iterdir()):
        out.rmdir()
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
        os.replace(out, old / "edition")
        os.replace(staged, out)
        shutil.rmtree(old)
    else:
        os.replace(staged, out)


def write_edition(source: Path, out: Path, force: bool = False, init: bool = False,
                  rev: Optional[str] = "HEAD") -> int:
    """Write the edition of source (commit rev; None: the working tree) into out; return the
    number of files written. Nothing is written or removed before every check has passed, and
    a failure leaves out as it was."""
    source = source.resolve()
    git(source, "rev-parse", "--git-dir")  # a repository, or one clear line
    out = check_out_dir(source, out, force)
    paths = edition_files(source, rev)
    if not paths:
        raise EditionError(f"no files in {source} ({rev or 'working tree'})")
    created = [d for d in (out.parent, *out.parent.parents) if not d.exists()]  # deepest first
    out.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        count = copy_files(source, staged, paths) if rev is None else \
            extract_commit(source, rev, staged, paths)
        apply_edition_markers(staged)
        leaks = leaked_solutions(source, staged)
        if leaks:
            raise EditionError("solution code would leak into the edition: " + ", ".join(leaks))
        files = safe_output.file_digests(staged)  # what this edition holds, for a later --force
        safe_output.write_mark(staged, TOOL, files)
        if init:
            safe_output.write_mark(staged, TOOL, files, commit=git_init(staged))
        staged.chmod(0o777 & ~current_umask())  # mkdtemp makes it private
        put_in_place(staged, out)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        for directory in created:  # the parents made for OUT_DIR, if still empty
            try:
                directory.rmdir()
            except OSError:
                break
        raise
    return count


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Write the student edition of the course.")
    parser.add_argument("out", type=Path, nargs="?", metavar="OUT_DIR", help="where to write the edition")
    parser.add_argument("--source-dir", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the course repository (default: the parent of tools/)")
    parser.add_argument("--force", action="store_true",
                        help="replace OUT_DIR if it holds an edition this script wrote before")
    parser.add_argument("--git-init", action="store_true",
                        help="make OUT_DIR a git repository holding the edition in one commit")
    parser.add_argument("--list", action="store_true",
                        help="only print the files the edition would hold")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--rev", default="HEAD", help="the commit to export (default: HEAD)")
    source.add_argument("--worktree", action="store_true",
                        help="export the working tree (tracked and new, not ignored files) instead")
    args = parser.parse_args(argv)
    if args.out is None and not args.list:
        parser.error("OUT_DIR is required (unless --list)")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        rev = None if args.worktree else args.rev
        if args.list:
            print("\n".join(edition_files(args.source_dir.resolve(), rev)))
            return 0
        count = write_edition(args.source_dir, args.out, args.force, args.git_init, rev)
    except safe_output.OutputRefused as err:
        print(f"student_edition.py: error: {err}", file=sys.stderr)
        return 2
    except (EditionError, OSError, tarfile.TarError, subprocess.CalledProcessError) as err:
        print(f"student_edition.py: error: {first_line(str(err))}", file=sys.stderr)
        return 1
    print(f"student edition: {count} files in {args.out.resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
