"""A benchmark's data, loaded once per data folder, is loaded again once its files change
(mathprobe/data_cache.py): a long-lived process (the warm runner, which loads the user's data
before any command asks) must never serve a file as it was before the user edited it."""
from __future__ import annotations

import json
import os

from mathprobe.benchmarks import wemath


def test_an_edited_data_file_is_read_again_and_an_unchanged_one_is_not(tmp_path, data_dir):
    folder = tmp_path / "data" / "wemath"
    folder.mkdir(parents=True)
    for f in (data_dir / "wemath").iterdir():
        if f.name != "testmini.json":
            (folder / f.name).symlink_to(f)
    rows = json.loads((data_dir / "wemath" / "testmini.json").read_text())
    (folder / "testmini.json").write_text(json.dumps(rows))
    first = wemath.load(tmp_path / "data")
    assert len(first.items) == len(rows)
    assert wemath.load(str(tmp_path / "data")) is first         # unchanged: the same object
    last = rows[-1]["ID"]
    kept = [r for r in rows if r["ID"] != last]                 # a whole problem dropped
    (folder / "testmini.json").write_text(json.dumps(kept))
    st = (folder / "testmini.json").stat()
    os.utime(folder / "testmini.json", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    again = wemath.load(tmp_path / "data")
    assert len(again.items) == len(kept) < len(rows)            # before: the stale 1740
    assert again.fingerprint != first.fingerprint
