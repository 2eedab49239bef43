"""Answers the store could not take, kept in a JSON-lines spool until the next run stores them.

When the single writer fails (a full disk, a file that became read-only), the model answers of
that batch and of every request still in flight have been paid for. They go to a spool:
`<db>.spool.jsonl` beside the store, or, when that cannot be written either (the disk is full),
`$MATHPROBE_SPOOL_DIR` (default `$XDG_STATE_HOME/mathprobe/spool`, i.e.
`~/.local/state/mathprobe/spool`) under a name derived from the store's path. The next process
that opens the store for writing loads both spools first and deletes them; only then does it decide what is left to ask, so it asks only what was never answered.

Why a spool and not hold-and-retry: answers held in memory die with the process (a Ctrl-C
while waiting for space, kill -9, a laptop lid), and a disk rarely frees itself while a run
waits. A spool is durable at once (each batch is appended whole and fsync'ed, or not at all),
costs nothing while the store works, and needs no one to watch the run. Loading is idempotent
for answers (the store skips an item that already has one), so a spool loaded twice after a
crash between commit and delete duplicates nothing that counts.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from mathprobe.tasks.items import Completion

if TYPE_CHECKING:
    from mathprobe.tasks.store.duckdb_store import Store

Row = tuple[str, str, Completion]          # item_id, request_hash, completion


def spool_dir() -> Path:
    env = os.environ.get("MATHPROBE_SPOOL_DIR")
    if env:
        return Path(env)
    state = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(state) / "mathprobe" / "spool"


def paths(db: str | Path) -> list[Path]:
    """Where answers for the store `db` (a file, or a lake's key `ducklake:KIND:TARGET`) are
    spooled: beside the file (a SQLite-catalogued lake: beside its catalog), then the fallback
    directory."""
    key = str(db)
    tag = hashlib.sha256(key.encode()).hexdigest()[:12]
    if key.startswith("ducklake:"):
        kind, _, target = key[len("ducklake:"):].partition(":")
        beside = [Path(target + ".spool.jsonl")] if kind == "sqlite" else []
        return beside + [spool_dir() / f"ducklake-{kind}-{tag}.spool.jsonl"]
    path = Path(key).resolve()
    return [path.with_name(path.name + ".spool.jsonl"),
            spool_dir() / f"{path.name}-{tag}.spool.jsonl"]


def _line(run_id: str, item_id: str, request_hash: str, c: Completion) -> str:
    return json.dumps({"run_id": run_id, "item_id": item_id, "request_hash": request_hash,
                       "completion": dataclasses.asdict(c)}, ensure_ascii=False) + "\n"


def _append_whole(path: Path, data: bytes) -> None:
    """Append `data` and fsync, or leave the file as it was (a full disk must not leave half a
    batch behind)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        size = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except OSError:
            os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)


def write(db: str | Path, batches: Iterable[tuple[str, list[Row]]]) -> Path:
    """Spool (run_id, rows) batches for `db`; the file written. OSError if no place would take
    them (then they are lost, and the caller says so)."""
    data = "".join(_line(run_id, *row) for run_id, rows in batches for row in rows).encode()
    error: OSError | None = None
    for path in paths(db):
        try:
            _append_whole(path, data)
            return path
        except OSError as exc:
            error = exc
    raise error or OSError("no spool location")


def pending(db: str | Path) -> list[Path]:
    return [p for p in paths(db) if p.is_file()]


def read(path: Path) -> dict[str, list[Row]]:
    """The spooled rows by run; a torn last line (the process died while appending) is
    skipped: its batch was never acknowledged."""
    by_run: dict[str, list[Row]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        c = rec["completion"]
        if c.get("token_logprobs") is not None:
            c["token_logprobs"] = [tuple(t) for t in c["token_logprobs"]]
        by_run.setdefault(rec["run_id"], []).append(
            (rec["item_id"], rec["request_hash"], Completion(**c)))
    return by_run


def recover(store: Store) -> tuple[int, list[Path]]:
    """Store what earlier runs spooled for this store, then delete the spools; (answers
    stored, spool files). Raises what the store raises if it still cannot write."""
    files = pending(store.path)
    if not files:
        return 0, []
    stored = 0
    for path in files:
        # taken aside first: a process still spooling (a lake's other writer) starts a new
        # file for its next batch instead of appending to one being stored and deleted
        taken = path.with_name(f"{path.name}.{os.getpid()}.storing")
        os.replace(path, taken)
        try:
            for run_id, rows in read(taken).items():
                stored += store.append_responses(run_id, rows)
        except BaseException:
            os.replace(taken, path)            # still to be stored by the next open
            raise
        taken.unlink()
    return stored, files
