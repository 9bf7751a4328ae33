#!/usr/bin/env python3
"""Where the course's tools may write, and what they may replace.

Every tool that deletes or overwrites (student_edition.py, tools/cluster/*, grade.py's --json)
asks this module first. An output directory is refused, with one line and exit code 2, when it is

* ``/`` or the home directory;
* a protected tree (the course's source tree, an edition, a submission), inside one (unless
  the place is one git ignores, e.g. ``build/``), or above one (it contains it);
* not a directory;
* not empty and not written by the same tool: a tool marks every directory it writes with a
  file ``.course-output`` (``{"tool": ...}``), and replaces only a directory that carries its
  own mark (student_edition.py only with ``--force``);
* changed since the tool wrote it, for a tool whose mark lists the files it wrote with their
  SHA-256 (``"files"``; student_edition.py's, with ``"commit"``, the one commit of its
  ``--git-init``): a file edited, added or deleted, a build made in it, a commit, a stash. An
  edition a student has worked in is never replaced; they move their work elsewhere first.

An output file is refused when it is a directory, a file that git tracks in a protected tree
(a source file), or its directory does not exist or cannot be written.

Command line, for the shell tools (tools/cluster/submit.sh, tools/gpu_check.sh):

    safe_output.py check-dir DIR --tool NAME [--protect TREE]... [--replace [--untouched]]
    safe_output.py mark DIR --tool NAME
    safe_output.py check-file FILE [--protect TREE]...

``check-dir`` exits 0 when DIR may be written (it does not exist, is empty, or carries NAME's
mark), else prints ``<NAME>: error: <why>`` to stderr and exits 2. ``mark`` creates DIR if needed
and writes the mark.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence

MARK = ".course-output"
EXIT_REFUSED = 2


class OutputRefused(Exception):
    """The output may not be written there; one line, exit code 2."""


def _resolve(path: Path) -> Path:
    return Path(os.path.abspath(os.path.expanduser(str(path)))).resolve()


def _home() -> Optional[Path]:
    try:
        return _resolve(Path.home())
    except (RuntimeError, KeyError, OSError):
        return None


def git_says(tree: Path, args: List[str]) -> Optional[bool]:
    """Whether `git -C tree <args>` succeeds; None when git cannot be run."""
    try:
        result = subprocess.run(["git", "-C", str(tree), *args], capture_output=True, check=False)
    except OSError:
        return None
    return result.returncode == 0


def git_ignores(tree: Path, path: Path) -> bool:
    """True when git ignores path (inside the repository tree), e.g. build/ of the course."""
    try:
        relative = path.relative_to(tree)
    except ValueError:
        return False
    in_build = relative.parts[:1] == ("build",)
    if not (tree / ".git").exists():
        # Not a repository (an unpacked edition): only its build/ directories are outputs.
        return in_build
    ignored = git_says(tree, ["check-ignore", "-q", "--no-index", str(relative) + "/"])
    return in_build if ignored is None else ignored


def git_tracks(tree: Path, path: Path) -> bool:
    """True when path is a file git tracks in the repository tree."""
    try:
        relative = path.relative_to(tree)
    except ValueError:
        return False
    if not (tree / ".git").exists():
        return False
    return bool(git_says(tree, ["ls-files", "--error-unmatch", "--", str(relative)]))


def read_mark_data(directory: Path) -> dict:
    """The contents of directory's mark ({} when it has none, or an unreadable one)."""
    mark = directory / MARK
    if mark.is_symlink() or not mark.is_file():
        return {}
    try:
        data = json.loads(mark.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def read_mark(directory: Path) -> Optional[str]:
    """The tool named by directory's mark, or None when it has none (or an unreadable one)."""
    tool = read_mark_data(directory).get("tool")
    return tool if isinstance(tool, str) else None


def write_mark(directory: Path, tool: str, files: Optional[Dict[str, str]] = None,
               commit: Optional[str] = None) -> None:
    """Mark directory as written by tool (creating it if needed); files: what it wrote there
    (path -> SHA-256, file_digests()), so that a later replace can see what changed since;
    commit: the one commit of a repository it made there."""
    directory.mkdir(parents=True, exist_ok=True)
    data: dict = {"tool": tool}
    if files is not None:
        data["files"] = files
    if commit is not None:
        data["commit"] = commit
    (directory / MARK).write_text(json.dumps(data, indent=0, sort_keys=True) + "\n", encoding="utf-8")


def _digest(path: Path) -> str:
    if path.is_symlink():
        return "link:" + os.readlink(path)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _walk(directory: Path, skip_git: bool) -> Iterable[str]:
    """Every file and link under directory (relative, '/'-separated), but the mark and, with
    skip_git, the top-level .git/."""
    for root, dirnames, filenames in os.walk(directory):
        base = Path(root)
        if skip_git and base == directory and ".git" in dirnames:
            dirnames.remove(".git")
        for name in filenames + [d for d in dirnames if (base / d).is_symlink()]:
            relative = (base / name).relative_to(directory).as_posix()
            if relative != MARK:
                yield relative


def file_digests(directory: Path) -> Dict[str, str]:
    """Path -> SHA-256 of every file under directory (links: their target), the mark and the
    top-level .git/ left out: what a tool records in its mark."""
    return {path: _digest(directory / path) for path in sorted(_walk(directory, skip_git=True))}


def _git_commits(directory: Path) -> Optional[List[str]]:
    """Every commit any ref of the repository in directory reaches (a stash too), or None."""
    try:
        done = subprocess.run(["git", "-C", str(directory), "rev-list", "--all"],
                              capture_output=True, text=True, check=False)
    except OSError:
        return None
    return done.stdout.split() if done.returncode == 0 else None


def _summary(kind: str, paths: List[str]) -> str:
    """'edited a.cu, b.cu and 3 more', with added directories shown once ('build/')."""
    shown: List[str] = []
    for path in paths:
        top = path.split("/", 1)[0] + "/" if kind == "added" and "/" in path else path
        if top not in shown:
            shown.append(top)
    names = ", ".join(shown[:3]) + (f" and {len(shown) - 3} more" if len(shown) > 3 else "")
    return f"{kind} {names}"


def changes_since_mark(directory: Path) -> Optional[List[str]]:
    """What changed in directory since its tool wrote it ('edited x', 'added build/', 'deleted
    y', 'a commit or a stash in .git'), [] when nothing did; None when its mark lists no files
    (the tool keeps none, or an older version of it wrote the directory)."""
    data = read_mark_data(directory)
    files = data.get("files")
    if not isinstance(files, dict):
        return None
    commit = data.get("commit")
    present = set(_walk(directory, skip_git=isinstance(commit, str)))
    edited = sorted(path for path in present & files.keys()
                    if _digest(directory / path) != files[path])
    added = sorted(present - files.keys())
    deleted = sorted(files.keys() - present)
    changes = [_summary(kind, paths) for kind, paths in
               (("edited", edited), ("added", added), ("deleted", deleted)) if paths]
    if isinstance(commit, str) and _git_commits(directory) != [commit]:
        changes.append("a commit or a stash in .git")
    return changes


def _protected(trees: Iterable[Optional[Path]]) -> list[Path]:
    return [_resolve(tree) for tree in trees if tree is not None]


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_output_dir(out: Path, tool: str, protect: Iterable[Optional[Path]] = (),
                     replace: bool = False, replace_hint: str = "",
                     untouched: bool = False) -> Path:
    """The resolved output directory, or OutputRefused saying why it may not be written.

    replace: the tool may replace a directory that carries its own mark; without it such a
    directory is refused too, with replace_hint (e.g. "use --force to replace it"). A directory
    whose mark lists its files is replaced only when nothing changed since; untouched: the mark
    must list them (one that does not, written by an older version of the tool, is refused:
    nobody can tell what in it is someone's work)."""
    given = out
    out = _resolve(out)
    if out == Path(out.anchor):
        raise OutputRefused(f"refusing to write to {out}: it is the root directory")
    home = _home()
    if home is not None and out == home:
        raise OutputRefused(f"refusing to write to {given}: it is the home directory")
    if home is not None and out in home.parents:
        raise OutputRefused(f"refusing to write to {given}: it contains the home directory")
    for tree in _protected(protect):
        if out == tree:
            raise OutputRefused(f"refusing to write to {given}: it is {tree} itself")
        if out in tree.parents:
            raise OutputRefused(f"refusing to write to {given}: it contains {tree}")
        if tree in out.parents and not git_ignores(tree, out):
            raise OutputRefused(f"refusing to write to {given}: it is inside {tree} "
                                f"(choose a directory outside it, or under its build/)")
    if out.exists() or out.is_symlink():
        if not out.is_dir():
            raise OutputRefused(f"refusing to write to {given}: it exists and is not a directory")
        try:
            entries = [entry.name for entry in out.iterdir()]
        except OSError as err:
            raise OutputRefused(f"cannot read {given}: {err.strerror}") from None
        if entries:
            owner = read_mark(out)
            if owner is None:
                raise OutputRefused(f"refusing to write to {given}: it is not empty and was not "
                                    f"written by {tool} (choose a new or empty directory)")
            if owner != tool:
                raise OutputRefused(f"refusing to write to {given}: it was written by {owner}, "
                                    f"not by {tool}")
            if not replace:
                hint = f" ({replace_hint})" if replace_hint else ""
                raise OutputRefused(f"refusing to replace {given}: it holds an earlier output "
                                    f"of {tool}{hint}")
            changes = changes_since_mark(out)
            if changes is None and untouched:
                raise OutputRefused(f"refusing to replace {given}: an older {tool} wrote it "
                                    f"without the list of its files, so whether anyone worked in "
                                    f"it since cannot be told (move it away, or choose a new "
                                    f"directory)")
            if changes:
                raise OutputRefused(f"refusing to replace {given}: it changed since {tool} wrote "
                                    f"it ({'; '.join(changes)}): that work would be lost. Move it "
                                    f"elsewhere first, or choose a new directory")
        if not os.access(out, os.W_OK | os.X_OK):
            raise OutputRefused(f"cannot write to {given}: permission denied")
    else:
        parent = _nearest_existing(out.parent)
        if not parent.is_dir():
            raise OutputRefused(f"cannot create {given}: {parent} is not a directory")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise OutputRefused(f"cannot create {given}: {parent} is not writable")
    return out


def check_output_file(path: Path, protect: Iterable[Optional[Path]] = ()) -> Path:
    """The resolved output file, or OutputRefused: a directory, a source file that git tracks in
    a protected tree, or a place that cannot be written."""
    given = path
    path = _resolve(path)
    if path.is_dir():
        raise OutputRefused(f"cannot write {given}: it is a directory")
    for tree in _protected(protect):
        if path.exists() and git_tracks(tree, path):
            raise OutputRefused(f"refusing to overwrite {given}: it is a source file of {tree}")
    if path.exists():
        if not os.access(path, os.W_OK):
            raise OutputRefused(f"cannot write {given}: permission denied")
    else:
        parent = path.parent
        if not parent.is_dir():
            raise OutputRefused(f"cannot write {given}: no directory {parent}")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise OutputRefused(f"cannot write {given}: {parent} is not writable")
    return path


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="May a course tool write here?")
    commands = parser.add_subparsers(dest="command", required=True)
    check_dir = commands.add_parser("check-dir", help="may DIR be written by --tool?")
    check_dir.add_argument("path", type=Path, metavar="DIR")
    check_dir.add_argument("--tool", required=True)
    check_dir.add_argument("--protect", type=Path, action="append", default=[], metavar="TREE")
    check_dir.add_argument("--replace", action="store_true",
                           help="a directory carrying the tool's own mark may be replaced")
    check_dir.add_argument("--untouched", action="store_true",
                           help="only if its mark lists its files and none changed since")
    mark = commands.add_parser("mark", help="mark DIR as written by --tool")
    mark.add_argument("path", type=Path, metavar="DIR")
    mark.add_argument("--tool", required=True)
    check_file = commands.add_parser("check-file", help="may FILE be written?")
    check_file.add_argument("path", type=Path, metavar="FILE")
    check_file.add_argument("--tool", default="safe_output.py")
    check_file.add_argument("--protect", type=Path, action="append", default=[], metavar="TREE")
    args = parser.parse_args(argv)
    try:
        if args.command == "check-dir":
            check_output_dir(args.path, args.tool, args.protect, replace=args.replace,
                             untouched=args.untouched)
        elif args.command == "mark":
            write_mark(_resolve(args.path), args.tool)
        else:
            check_output_file(args.path, args.protect)
    except OutputRefused as err:
        print(f"{args.tool}: error: {err}", file=sys.stderr)
        return EXIT_REFUSED
    except OSError as err:
        print(f"{args.tool}: error: {err}", file=sys.stderr)
        return EXIT_REFUSED
    return 0


if __name__ == "__main__":
    sys.exit(main())
