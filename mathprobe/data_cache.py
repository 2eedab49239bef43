"""Benchmark data, loaded once per data folder for as long as its files stay as they are.

A benchmark's `load` reads, validates and hashes its files (0.2-0.3 s each on 2 cores), and a
run calls it several times: its checks, the flow, each shard. Kept per data folder alone (as
`functools.lru_cache` did), a long-lived process would go on serving a file the user has since
edited; the warm runner (mathprobe/warm/), which loads the data of the user's data folder once
so that no command waits for it before its first request, is such a process. So the cache key
is also the folder's stamp: the name, size and modification time of every entry of
`<data_dir>/<benchmark>/` (its question files, and its image folders, whose time changes when an
image is added or removed): a few stat calls, against a load.
"""
from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def per_data_folder(name: str, maxsize: int = 4) -> Callable[[Callable[[Path], T]], Callable]:
    """Cache a loader of `<data_dir>/<name>/` by the data folder and that folder's stamp."""
    def wrap(load: Callable[[Path], T]) -> Callable:
        @functools.lru_cache(maxsize=maxsize)
        def cached(data_dir: Path, _stamp: tuple) -> T:
            return load(data_dir)

        @functools.wraps(load)
        def loader(data_dir: str | Path) -> T:
            data_dir = Path(data_dir)
            return cached(data_dir, stamp(data_dir / name))

        loader.cache_clear = cached.cache_clear          # type: ignore[attr-defined]
        return loader
    return wrap


def stamp(folder: Path) -> tuple:
    """(name, size, modification time) of each entry of `folder`; () if it cannot be read."""
    try:
        with os.scandir(folder) as entries:
            out = []
            for entry in entries:
                st = entry.stat()
                out.append((entry.name, st.st_size, st.st_mtime_ns))
    except OSError:
        return ()
    return tuple(sorted(out))
