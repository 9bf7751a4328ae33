#!/usr/bin/env python3
"""Write the student edition of the course: the repository that students receive.

Usage
-----
    python3 tools/student_edition.py OUT_DIR            # OUT_DIR must not exist, or be empty
    python3 tools/student_edition.py OUT_DIR --force    # replace OUT_DIR
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
* ``tools/cluster/``, ``tools/make_mutant.sh``, ``tools/gpu_check.sh``, this script and its test.

Without ``solutions/`` the build switches the solutions, the mutants and the instructor editions
of the docs and slides off by itself, so the edition configures, builds and grades on its own
(``cmake --workflow --preset grade``).  The script refuses to write an edition that still holds
a solution file, byte for byte, under another name.

Exit code 0 on success, 1 if the edition could not be written, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path, PurePosixPath
from typing import Iterable, List, Optional, Sequence

# Tracked paths that the edition leaves out: a directory prefix (ending in '/') or a file.
EXCLUDED = (
    "solutions/",
    "tests/hostile/",
    "tests/cluster/",
    "docs/pages/instructor/",
    "notes/",
    "tools/cluster/",
    "tools/make_mutant.sh",
    "tools/gpu_check.sh",
    "tools/student_edition.py",
    "tests/unit/test_student_edition.py",
)
# Any directory of this name, at any depth (tests/NN_name/mutants/).
EXCLUDED_DIR_NAMES = ("mutants",)


class EditionError(Exception):
    """The edition cannot be written; reported with exit code 1."""


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
        raise EditionError(f"git {' '.join(args)} in {source}: {err.stderr.decode().strip()}") from None


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


def prepare_out_dir(out: Path, force: bool) -> None:
    if out.exists() and any(out.iterdir()):
        if not force:
            raise EditionError(f"{out} exists and is not empty (use --force to replace it)")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)


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


def git_init(out: Path) -> None:
    """Make the edition a repository with one commit, as students would clone it."""
    identity = ["-c", "user.name=course", "-c", "user.email=course@localhost"]
    for command in (["init", "-q"], ["add", "-A"], [*identity, "commit", "-q", "-m", "Student edition"]):
        subprocess.run(["git", "-C", str(out), *command], check=True)


def write_edition(source: Path, out: Path, force: bool = False, init: bool = False,
                  rev: Optional[str] = "HEAD") -> int:
    """Write the edition of source (commit rev; None: the working tree) into out; return the
    number of files written."""
    source = source.resolve()
    out = out.resolve()
    if out == source or source in out.parents and not str(out.relative_to(source)).startswith("build"):
        raise EditionError(f"write the edition outside the source tree, or under its build/ ({out})")
    paths = edition_files(source, rev)
    if not paths:
        raise EditionError(f"no files in {source} ({rev or 'working tree'})")
    prepare_out_dir(out, force)
    count = copy_files(source, out, paths) if rev is None else extract_commit(source, rev, out, paths)
    leaks = leaked_solutions(source, out)
    if leaks:
        shutil.rmtree(out)
        raise EditionError("solution code would leak into the edition: " + ", ".join(leaks))
    if init:
        git_init(out)
    return count


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Write the student edition of the course.")
    parser.add_argument("out", type=Path, nargs="?", metavar="OUT_DIR", help="where to write the edition")
    parser.add_argument("--source-dir", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the course repository (default: the parent of tools/)")
    parser.add_argument("--force", action="store_true", help="replace OUT_DIR if it is not empty")
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
    except (EditionError, OSError, tarfile.TarError, subprocess.CalledProcessError) as err:
        print(f"student_edition.py: error: {err}", file=sys.stderr)
        return 1
    print(f"student edition: {count} files in {args.out.resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
