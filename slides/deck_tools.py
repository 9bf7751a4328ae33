"""What the slides' tests share: the decks as the build expands them, the editions there are, and
the renderers (Chromium, Marp) or the reason a test that needs them is skipped."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

SLIDES = Path(__file__).resolve().parent
REPO = SLIDES.parent
DECKS = sorted((SLIDES / "decks").glob("*.md"))
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
MARP = SLIDES / "node_modules" / ".bin" / "marp"


# The committed results the decks and the docs show: slides/results/<GPU model>/ (see the README
# there); the build's COURSE_RESULTS_GPU names the same set (cmake/CourseResults.cmake).
RESULTS_GPU = "h100-80gb-hbm3"
RESULTS = SLIDES / "results" / RESULTS_GPU


def editions() -> list[str]:
    """The student edition, and the instructor's where the solutions are (not in the edition)."""
    return ["student"] + (["instructor"] if (REPO / "solutions").is_dir() else [])


def inject(edition: str, out: Path, decks: list[Path], results: bool = True) -> None:
    """Expands @p decks into @p out as slides/CMakeLists.txt runs inject.py; raises on failure."""
    command = [sys.executable, str(SLIDES / "inject.py"), "--source-dir", str(REPO), "--out",
               str(out), "--edition", edition]
    if results:
        command += ["--results-dir", str(RESULTS)]
    done = subprocess.run([*command, *map(str, decks)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"inject.py --edition {edition} failed:\n{done.stdout}{done.stderr}")


def renderers() -> tuple[Optional[str], Optional[str]]:
    """(browser, None) when Chromium (or Chrome, or $CHROME_PATH) and Marp are found, else
    (None, the "[course] SKIPPED: ..." line to print before exiting 77)."""
    browser = os.environ.get("CHROME_PATH") or next(filter(None, map(shutil.which, BROWSERS)),
                                                    None)
    if not browser:
        return None, "[course] SKIPPED: no Chromium (or Chrome) found to render the slides"
    if not MARP.exists():
        return None, "[course] SKIPPED: no Marp in slides/node_modules (run `npm ci` in slides/)"
    return browser, None


def verdict(measured: list[str], failures: list[str], problem: str, fine: str) -> int:
    """Prints what was measured (a line per deck), then the failures under "FAIL: <problem> (how
    to mend it):", or @p fine when there are none; returns the exit code."""
    print("\n".join(measured))
    if failures:
        print(f"FAIL: {problem} (split the slide, or elide the unchanged lines with `// ...`):")
        print("\n".join(f"  {f}" for f in failures))
        return 1
    print(fine)
    return 0
