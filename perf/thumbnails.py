"""How long does the HTML report's item browser take per image, and how much does each add?

Makes the thumbnail (mathprobe/reports/thumbnails.py) of every image the benchmarks ship in the
data folder (WE-MATH's 1,740 files: RGBA, RGB and palette PNGs), `--repeat` times, with no cache,
and prints the time per image (median of the passes), the size each adds to the report (its
data: URL), and both per image mode.

    python perf/thumbnails.py [--data-dir DIR] [--repeat 3]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image  # noqa: E402

from mathprobe.registry import resolve_data_dir  # noqa: E402
from mathprobe.reports import thumbnails  # noqa: E402

SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    root = resolve_data_dir(args.data_dir)
    files = sorted(p for p in root.rglob("*") if p.suffix.lower() in SUFFIXES)
    data = [p.read_bytes() for p in files]
    modes = []
    for p in files:
        with Image.open(p) as im:
            modes.append(im.mode + ("+transparency" if "transparency" in im.info else ""))
    passes, per_mode, sizes = [], defaultdict(list), defaultdict(list)
    for _ in range(args.repeat):
        started = time.perf_counter()
        for mode, blob in zip(modes, data):
            t = time.perf_counter()
            src = thumbnails.make(blob)
            per_mode[mode].append(time.perf_counter() - t)
            sizes[mode].append(len(src or ""))
        passes.append(time.perf_counter() - started)
    n = len(files)
    total = sum(s for v in sizes.values() for s in v) / args.repeat
    print(f"{n} images in {root}: {1000 * statistics.median(passes) / n:.2f} ms each (median of "
          f"{args.repeat} passes: {', '.join(f'{p:.2f}' for p in passes)} s), "
          f"{total / n / 1000:.1f} KB each in the report")
    for mode in sorted(per_mode):
        times, kb = per_mode[mode], sizes[mode]
        print(f"  {mode}: {len(times) // args.repeat} images, "
              f"{1000 * statistics.median(times):.2f} ms, {statistics.mean(kb) / 1000:.1f} KB")


if __name__ == "__main__":
    main()
