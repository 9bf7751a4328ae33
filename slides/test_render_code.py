#!/usr/bin/env python3
"""Renders every deck (both editions) to HTML with Marp, loads each in headless Chromium with a
measuring script, and fails when a code block is set below MIN_PX at the slide's 1280 x 720, or
runs off the bottom of its slide (its last lines cut), naming deck and slide.

    python3 slides/test_render_code.py      (CTest: slides/render_code, label slides)

Why MIN_PX = 18 (issue #18): it is the deck's own fine print (`small`, tables: 0.7 em of the
26 px text), and about 1/40 of the slide's height, the usual floor for text read from the back
of a room. The theme sets code at 18.2 px; what can make it smaller is Marp's auto-scaling,
which shrinks a block whose longest line is wider than the slide (a 45-line kernel on a `dense`
slide came out at about 9 px).

The size is measured, not read from CSS: an absolutely placed probe of 100 px height inside each
`pre code` is drawn through every scale above it (Marp's <marp-pre> SVG, the slide's SVG), so
its drawn height / 100 x the code's font-size, over the slide's drawn width / 1280, is the size
at 1280 x 720. Exit code 77 when Chromium (or Chrome) or Marp is missing.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from deck_tools import DECKS, MARP, SLIDES, editions, inject, renderers, verdict
MIN_PX = 18.0
PROBLEM = f"code below {MIN_PX} px or cut off"
FINE = f"every code block at least {MIN_PX} px and on its slide"

# Runs after Marp's own scripts have laid out and auto-scaled the slides (they turn each
# <pre is="marp-pre"> into a <marp-pre> element, whose shadow SVG scales the code); writes one
# [slide, px, overflow px] per code block into <pre id="code-sizes">.
MEASURE = """<script>
function measure() {
  const out = [];
  document.querySelectorAll('section').forEach((section, index) => {
    const slide = section.getBoundingClientRect();
    const slideScale = slide.width / section.offsetWidth;
    section.querySelectorAll('pre > code, marp-pre > code').forEach((code) => {
      const probe = document.createElement('span');
      probe.style.cssText = 'position:absolute;width:0;height:100px';
      code.appendChild(probe);
      const scale = probe.getBoundingClientRect().height / 100;
      probe.remove();
      const px = parseFloat(getComputedStyle(code).fontSize) * scale / slideScale;
      const below = (code.getBoundingClientRect().bottom - slide.bottom) / slideScale;  // last line
      out.push([index + 1, Math.round(px * 100) / 100, Math.round(below)]);
    });
  });
  return JSON.stringify(out);
}
// Marp's auto-scaling settles over a few frames (a ResizeObserver per block). The page runs on
// Chromium's virtual clock with every compositor stage run before a frame is drawn (see
// measure() below), so layout keeps pace with the timers even on a loaded machine; the result
// is written once three readings 200 ms apart agree.
async function settle() {
  await document.fonts.ready;
  const readings = [measure()];
  const settled = () => readings.length >= 3 && readings.slice(-3).every((r) => r === readings.at(-1));
  for (let i = 0; i < 30 && !settled(); ++i) {
    await new Promise((done) => setTimeout(done, 200));
    readings.push(measure());
  }
  const now = readings.at(-1);
  const pre = document.createElement('pre');
  pre.id = 'code-sizes';
  pre.textContent = now;
  document.body.appendChild(pre);
}
window.addEventListener('load', () => setTimeout(settle, 300));
</script>"""


def measure(browser: str, page: Path) -> list[list[float]]:
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"),
                    encoding="utf-8")
    done = subprocess.run([browser, "--headless", "--disable-gpu", "--no-sandbox",
                           "--window-size=1280,720", "--virtual-time-budget=20000",
                           "--run-all-compositor-stages-before-draw",
                           "--dump-dom", page.as_uri()], capture_output=True, text=True,
                          timeout=120)
    found = re.search(r'<pre id="code-sizes">(.*?)</pre>', done.stdout, re.S)
    if not found:
        raise RuntimeError(f"{page.name}: no measurement from {browser}:\n{done.stderr[-2000:]}")
    return json.loads(found.group(1))


def main() -> int:
    browser, skipped = renderers()
    if skipped:
        print(skipped)
        return 77
    failures, smallest = [], {}
    with tempfile.TemporaryDirectory() as work:
        for edition in editions():
            src, html = Path(work) / edition, Path(work) / f"{edition}-html"
            # The build's own steps: inject.py as slides/CMakeLists.txt runs it, then Marp with
            # render.cmake's options; the bare template lays every slide out at once.
            inject(edition, src, DECKS)
            done = subprocess.run([str(MARP), "--no-stdin", "--theme-set",
                                   str(SLIDES / "theme"), "--html", "--template", "bare",
                                   "--input-dir", str(src), "--output", str(html)],
                                  cwd=SLIDES, capture_output=True, text=True, timeout=240)
            if done.returncode != 0:
                print(f"Marp failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
                return 1
            for page in sorted(html.glob("*.html")):
                for slide, px, below in measure(browser, page):
                    deck = page.stem + ".md"
                    smallest[deck] = min(smallest.get(deck, px), px)
                    if px < MIN_PX:
                        failures.append(f"{deck} slide {slide} ({edition}): code at {px} px")
                    if below > 0:
                        failures.append(f"{deck} slide {slide} ({edition}): code runs {below} px "
                                        f"off the slide")
    measured = [f"{deck}: smallest code {px} px at 1280 x 720"
                for deck, px in sorted(smallest.items())]
    return verdict(measured, failures, PROBLEM, f"{FINE} ({', '.join(editions())})")


if __name__ == "__main__":
    sys.exit(main())
