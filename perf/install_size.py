"""The core install's size, as a user gets it, and the README's figure made from it (issue 38).

Builds the wheel from this checkout, makes a fresh virtualenv (`python -m venv`: pip included,
as a user's has it), installs the wheel into it with the pinned constraints the way a user
does (`pip install`, which byte-compiles: the bytecode is part of what lands on disk), and
measures the virtualenv with `du` (disk blocks, as `du -sm` prints them: MiB). Then the same
with every extra (`mathprobe[all]`). Prints each distribution's share (its RECORD files, in
disk blocks, `--top` largest), records the figures in perf/install_size.json and writes them
into the README's sentence between its `install-size` marks, which tests/test_readme.py checks
against the record (and the core against the 500 MB target).

The README said 554 MB, written by hand; measured this way the core was 919 MB (scipy 143,
matplotlib and its fonts 100, the DuckLake extensions 71, the two model SDKs 64 with their
transport...). What the core no longer installs is in pyproject's extras.

    python perf/install_size.py [--top 25] [--no-all] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RECORD = REPO / "perf" / "install_size.json"
README = REPO / "README.md"
TARGET_MB = 500
MARKS = re.compile(r"(<!-- install-size -->)(.*?)(<!-- /install-size -->)", re.DOTALL)


def du_mb(path: Path) -> int:
    """`du -sm PATH`: disk blocks in use, MiB."""
    return int(subprocess.run(["du", "-sm", str(path)], capture_output=True, text=True,
                              check=True).stdout.split()[0])


def build_wheel(out: Path) -> Path:
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--wheel",
                           "--outdir", str(out), str(REPO)], capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"building the wheel failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    shutil.rmtree(REPO / "build", ignore_errors=True)          # setuptools' scratch folder
    return next(out.glob("*.whl"))


def install(venv: Path, requirement: str) -> float:
    """A fresh virtualenv with `requirement` installed as a user installs it; seconds taken."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    started = time.monotonic()
    done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check",
                           "-c", str(REPO / "constraints.txt"), requirement],
                          capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"pip install {requirement} failed:\n{done.stderr[-3000:]}")
    return time.monotonic() - started


def per_distribution(venv: Path) -> list[tuple[float, str]]:
    """(MiB on disk, name) of every distribution installed in `venv`, from its RECORD."""
    script = r"""
import importlib.metadata as md, json, os, sys
site = sys.argv[1]
out = []
for d in md.distributions(path=[site]):
    blocks = 0
    for f in d.files or []:
        try:
            blocks += os.stat(os.path.join(site, f)).st_blocks
        except OSError:
            pass
    out.append((blocks * 512 / 2**20, d.metadata["Name"]))
print(json.dumps(out))
"""
    site = next((venv / "lib").glob("python*/site-packages"))
    done = subprocess.run([str(venv / "bin" / "python"), "-c", script, str(site)],
                          capture_output=True, text=True, check=True)
    return sorted((tuple(x) for x in json.loads(done.stdout)), reverse=True)


def readme_sentence(record: dict) -> str:
    return (f"The core is {record['core_mb']} MB in a fresh virtualenv, bytecode included "
            f"(`{record['command']}` measures it: {record['core_install_s']:.0f} s to install "
            f"from a warm pip cache); every extra together is "
            f"{record['all_mb'] / 1024:.1f} GB.")


def write_readme(record: dict) -> None:
    text = README.read_text()
    if not MARKS.search(text):
        sys.exit("README.md has no <!-- install-size --> ... <!-- /install-size --> marks")
    README.write_text(MARKS.sub(lambda m: m.group(1) + readme_sentence(record) + m.group(3),
                                text, count=1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=25, help="distributions to list")
    ap.add_argument("--no-all", action="store_true", help="skip mathprobe[all]")
    ap.add_argument("--keep", type=Path, help="leave the virtualenvs in this folder")
    opts = ap.parse_args()
    root = opts.keep or Path(tempfile.mkdtemp(prefix="mathprobe-install-size-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        wheel = build_wheel(root / "dist")
        core_s = install(root / "core", str(wheel))
        record = {"core_mb": du_mb(root / "core"), "core_install_s": round(core_s, 1),
                  "empty_venv_mb": None, "all_mb": None,
                  "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
                  "python": sys.version.split()[0],
                  "command": "python perf/install_size.py", "unit": "MiB (du -sm)"}
        subprocess.run([sys.executable, "-m", "venv", str(root / "empty")], check=True)
        record["empty_venv_mb"] = du_mb(root / "empty")
        print(f"core: {record['core_mb']} MB in a fresh virtualenv (bytecode included; an "
              f"empty one is {record['empty_venv_mb']} MB), installed in {core_s:.0f} s "
              f"(target < {TARGET_MB} MB)")
        for mb, name in per_distribution(root / "core")[:opts.top]:
            print(f"  {mb:7.1f} MB  {name}")
        if not opts.no_all:
            install(root / "all", f"{wheel}[all]")
            record["all_mb"] = du_mb(root / "all")
            print(f"every extra (mathprobe[all]): {record['all_mb']} MB")
        else:
            previous = json.loads(RECORD.read_text()) if RECORD.exists() else {}
            record["all_mb"] = previous.get("all_mb")
        RECORD.write_text(json.dumps(record, indent=2) + "\n")
        if record["all_mb"] is not None:
            write_readme(record)
            print(f"wrote {RECORD.relative_to(REPO)} and README.md: {readme_sentence(record)}")
        print(json.dumps(record))
    finally:
        if opts.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    if record["core_mb"] >= TARGET_MB:
        sys.exit(f"the core is {record['core_mb']} MB: not under {TARGET_MB} MB")


if __name__ == "__main__":
    os.environ.pop("PIP_NO_COMPILE", None)      # what a user's pip does: byte-compile
    main()
