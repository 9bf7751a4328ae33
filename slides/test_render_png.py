#!/usr/bin/env python3
"""Renders one deck (01) with Marp through headless Chromium to PNG, one image per slide, and
checks that no slide is blank: each PNG is decoded (zlib, standard library only) and must hold
more than one colour, with a fair share of pixels off the background.

    python3 slides/test_render_png.py       (CTest: slides/render_png, label slides)

Exit code 77 ("[course] SKIPPED: ...") when no Chromium or Chrome is found, or Marp is not
installed (npm ci in slides/); CTest counts that as skipped.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import tempfile
import zlib
from collections import Counter
from pathlib import Path

from deck_tools import MARP, SLIDES, inject, renderers

DECK = SLIDES / "decks" / "01_constant_memory.md"


def pixels(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and the rows of an 8-bit RGB or RGBA PNG, unfiltered."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path.name} is not a PNG")
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"{path.name}: PNG of depth {depth}, colour type {colour}, "
                         f"interlace {interlace}: not decoded here")
    bpp = 3 if colour == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(idat)
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = previous[x]
            c = previous[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + b) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, [bytes(r[i:i + 3]) for r in rows for i in range(0, stride, bpp)]


def main() -> int:
    browser, skipped = renderers()
    if skipped:
        print(skipped)
        return 77
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        inject("student", work / "src", [DECK], results=False)
        env = dict(os.environ, CHROME_PATH=browser)
        done = subprocess.run([str(MARP), "--no-stdin", "--theme-set", str(SLIDES / "theme"),
                               "--html", "--images", "png", "--allow-local-files",
                               "--browser-path", browser, str(work / "src" / DECK.name),
                               "-o", str(work / "deck.png")],
                              cwd=SLIDES, env=env, capture_output=True, text=True, timeout=240)
        images = sorted(work.glob("deck*.png"))
        if done.returncode != 0 or not images:
            print(f"Marp failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
            return 1
        slides = DECK.read_text(encoding="utf-8").count("\n---\n")  # front matter opens one
        failures = []
        for image in images:
            width, height, colours = pixels(image)
            counts = Counter(colours)
            background, most = counts.most_common(1)[0]
            drawn = 1 - most / len(colours)
            print(f"{image.name}: {width} x {height}, {len(counts)} colours, "
                  f"{drawn:.1%} off the background")
            if len(counts) < 2 or drawn < 0.002:
                failures.append(image.name)
        if len(images) < slides:
            print(f"FAIL: {len(images)} images for the {slides} slides of {DECK.name}")
            return 1
        if failures:
            print(f"FAIL: blank slides: {', '.join(failures)}")
            return 1
    print(f"{DECK.name}: {len(images)} slides rendered by {browser}, none blank")
    return 0


if __name__ == "__main__":
    sys.exit(main())
