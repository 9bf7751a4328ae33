"""Running a tool (ctest, the build) with its output going to a log, and one status line of its
progress on a terminal."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

from .model import UsageError


class StatusLine:
    """One line of progress, rewritten in place, on a terminal only (nothing goes to a file or a
    pipe, where the scoreboard may be read by a program)."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.enabled = bool(getattr(stream, "isatty", lambda: False)())
        self.shown = False

    def show(self, text: str) -> None:
        if not self.enabled:
            return
        width = max(20, shutil.get_terminal_size((100, 24)).columns - 1)
        self.stream.write("\r\033[K" + text[:width])
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False

    def print(self, line: str) -> None:
        """A line that stays (a compiler error), above the status line."""
        self.clear()
        self.stream.write(line + "\n")
        self.stream.flush()


def run_streamed(command: List[str], log_path: Path, env: Dict[str, str],
                 on_line: Callable[[str], None], missing_hint: str = "") -> Tuple[int, float]:
    """Run command with its output going to log_path, each line also handed to on_line; return
    its exit code and the wall time in seconds. missing_hint: what to say when there is no
    command[0]."""
    started = time.monotonic()
    try:
        with log_path.open("w", encoding="utf-8") as log:
            log.write("$ " + shlex.join(command) + "\n")
            log.flush()
            with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                                  text=True, encoding="utf-8", errors="replace") as process:
                assert process.stdout is not None
                for line in process.stdout:
                    log.write(line)
                    on_line(line.rstrip("\n"))
                code = process.wait()
    except FileNotFoundError:
        raise UsageError(f"cannot run {command[0]!r}: not found{missing_hint}") from None
    except OSError as err:
        raise UsageError(f"cannot run {command[0]} or write {log_path}: {err}") from None
    return code, time.monotonic() - started
