"""The build directory to grade and the lessons asked for, checked before anything is written.

Unless ``--no-run``, BUILD must be a configured CMake build of this course
(``CMakeCache.txt`` naming the project ``cuda_course`` and ``CTestTestfile.cmake``)
configured from SOURCE; the grader writes only ``grade-junit.xml`` and
``grade-ctest.log`` there.  A build configured with ``COURSE_LESSONS`` is graded
for those lessons only.  ``--lessons`` must name lessons that exist (and that the
build holds).  Each of these fails with one line and exit code 2."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional

from .model import UsageError
from .tables import find_lesson_dirs

PROJECT_NAME = "cuda_course"
CONFIGURE_HINT = "configure and build it first: cmake --workflow --preset grade"


def normalize_lessons(values: Iterable[str]) -> List[str]:
    """'1', '01', 'lesson01' -> '01'; anything else is a usage error."""
    numbers: List[str] = []
    for value in values:
        digits = value[len("lesson"):] if value.startswith("lesson") else value
        if not digits.isdigit() or len(digits) > 2:
            raise UsageError(f"--lessons: expected a lesson number like 01, got {value!r}")
        number = digits.zfill(2)
        if number not in numbers:
            numbers.append(number)
    return numbers


def read_cmake_cache(path: Path) -> Dict[str, str]:
    """NAME -> value of every entry of a CMakeCache.txt."""
    entries: Dict[str, str] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        match = re.match(r"^([A-Za-z_][\w.+-]*)(?::[A-Z_]+)?=(.*)$", line)
        if match:
            entries[match.group(1)] = match.group(2)
    return entries


@dataclass
class BuildTree:
    """What the grader needs of a configured build directory (from its CMakeCache.txt)."""

    path: Path
    lessons: Optional[List[str]]  # COURSE_LESSONS, or None: all
    generator: str = ""           # CMAKE_GENERATOR, e.g. "Ninja"
    make_program: str = ""        # CMAKE_MAKE_PROGRAM, e.g. /usr/bin/ninja
    cmake: str = "cmake"          # CMAKE_COMMAND


def check_build_dir(build_dir: Path, source_dir: Path) -> BuildTree:
    """Raise UsageError unless build_dir is a configured build of this course from source_dir;
    return what the grader needs of it (the lessons it was configured with, COURSE_LESSONS, or
    None for all; its generator and tools)."""
    if not build_dir.exists():
        raise UsageError(f"build directory {build_dir} does not exist ({CONFIGURE_HINT})")
    if not build_dir.is_dir():
        raise UsageError(f"{build_dir} is not a directory")
    cache_path = build_dir / "CMakeCache.txt"
    if not cache_path.is_file():
        raise UsageError(f"{build_dir} is not a configured CMake build directory "
                         f"(no CMakeCache.txt; {CONFIGURE_HINT})")
    try:
        cache = read_cmake_cache(cache_path)
    except OSError as err:
        raise UsageError(f"cannot read {cache_path}: {err.strerror}") from None
    if cache.get("CMAKE_PROJECT_NAME") != PROJECT_NAME:
        raise UsageError(f"{build_dir} is a build of {cache.get('CMAKE_PROJECT_NAME') or 'another project'}, "
                         f"not of this course ({PROJECT_NAME})")
    configured_from = cache.get(f"{PROJECT_NAME}_SOURCE_DIR") or cache.get("CMAKE_HOME_DIRECTORY")
    if configured_from and Path(configured_from).resolve() != source_dir.resolve():
        raise UsageError(f"{build_dir} was configured from {configured_from}, not from "
                         f"{source_dir} (pass --source-dir {configured_from})")
    if not (build_dir / "CTestTestfile.cmake").is_file():
        raise UsageError(f"{build_dir} has no CTestTestfile.cmake: its configuration did not "
                         f"finish ({CONFIGURE_HINT})")
    lessons = [item.strip() for item in cache.get("COURSE_LESSONS", "").split(";") if item.strip()]
    return BuildTree(path=build_dir, lessons=normalize_lessons(lessons) if lessons else None,
                     generator=cache.get("CMAKE_GENERATOR", ""),
                     make_program=cache.get("CMAKE_MAKE_PROGRAM", ""),
                     cmake=cache.get("CMAKE_COMMAND") or "cmake")


def select_lessons(source_dir: Path, asked: Optional[List[str]],
                   built: Optional[List[str]]) -> Optional[List[str]]:
    """The lessons to grade: those asked for, each of which must exist (and be in the build),
    else those the build holds, else all (None)."""
    lessons_root = source_dir / "lessons"
    if not lessons_root.is_dir():
        raise UsageError(f"no lessons/ directory under {source_dir} (use --source-dir)")
    known = sorted(find_lesson_dirs(lessons_root))
    if asked:
        unknown = [number for number in asked if number not in known]
        if unknown:
            raise UsageError(f"--lessons: no lesson {', '.join(unknown)} in {lessons_root} "
                             f"(the lessons are {' '.join(known) or 'none'})")
        if built is not None:
            absent = [number for number in asked if number not in built]
            if absent:
                raise UsageError(f"--lessons: lesson {', '.join(absent)} is not in this build "
                                 f"(configured with COURSE_LESSONS={';'.join(built)}; reconfigure "
                                 f"with -DCOURSE_LESSONS= to build every lesson)")
        return asked
    if built is not None:
        unknown = [number for number in built if number not in known]
        if unknown:
            raise UsageError(f"the build was configured with COURSE_LESSONS={';'.join(built)}, "
                             f"but {lessons_root} has no lesson {', '.join(unknown)}")
        return built
    return None
