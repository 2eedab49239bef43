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
costs nothing while the store works, and needs no one to watch the run.

A run whose answers could be kept nowhere (the store's disk and every spool location too full
for what the run is about to ask: `room_needed`) asks nothing: `check_room` says so before the
first request. Answers that arrive when even the spool cannot take them are held in memory for
a bounded, stated time (mathprobe.store.writer).
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from mathprobe.errors import StoreWriteError
from mathprobe.items import Completion

if TYPE_CHECKING:
    from mathprobe.store.duckdb_store import Store

Row = tuple[str, str, Completion]          # item_id, request_hash, completion


def spool_dir() -> Path:
    from mathprobe import settings

    env = settings.get("MATHPROBE_SPOOL_DIR")
    if env is not None:
        return env
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


def _line(batch: str, run_id: str, item_id: str, request_hash: str, c: Completion) -> str:
    return json.dumps({"batch": batch, "run_id": run_id, "item_id": item_id,
                       "request_hash": request_hash, "completion": dataclasses.asdict(c)},
                      ensure_ascii=False) + "\n"


def _append_whole(path: Path, data: bytes) -> None:
    """Append `data` and fsync, or leave the file as it was (a full disk must not leave half a
    batch behind)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    made = not path.exists()
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
            if made:                 # no empty spool left that the error line does not name
                path.unlink(missing_ok=True)
            raise
    finally:
        os.close(fd)


def write(db: str | Path, batches: Iterable[tuple[str, list[Row]]]) -> Path:
    """Spool (run_id, rows) batches for `db`; the file written. OSError if no place would take
    them (then they are lost, and the caller says so)."""
    batch = uuid.uuid4().hex
    data = "".join(_line(batch, run_id, *row) for run_id, rows in batches
                   for row in rows).encode()
    error: OSError | None = None
    for path in paths(db):
        try:
            _append_whole(path, data)
            return path
        except OSError as exc:
            error = exc
    raise error or OSError("no spool location")


def pending(db: str | Path) -> list[Path]:
    """Every spool file of the store `db` left to store: `<spool>` and any `<spool>.*` (a
    recovery killed midway, or one that failed), but not what a live process of this machine
    is storing right now (`<spool>.<pid>.storing`)."""
    found = []
    for path in paths(db):
        if path.is_file():
            found.append(path)
        for left in sorted(path.parent.glob(f"{_glob_escape(path.name)}.*")):
            if left.is_file() and not _being_stored(left):
                found.append(left)
    return found


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def _being_stored(path: Path) -> bool:
    parts = path.name.rsplit(".", 2)
    if len(parts) != 3 or parts[2] != "storing" or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    if pid == os.getpid():
        return False                      # this process stores one file at a time: a leftover
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


Batch = tuple[str, dict[str, list[Row]]]      # batch id, rows by run


def read(path: Path) -> list[Batch]:
    """The spooled batches, each with its rows by run; a torn last line (the process died while
    appending) is skipped: its batch was never acknowledged. Lines of an older mathprobe (no
    batch id) form one batch named after their content."""
    batches: dict[str, dict[str, list[Row]]] = {}
    legacy: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        batch = rec.get("batch")
        if batch is None:
            legacy.append(line)
            batch = "legacy"
        c = rec["completion"]
        if c.get("token_logprobs") is not None:
            c["token_logprobs"] = [tuple(t) for t in c["token_logprobs"]]
        batches.setdefault(batch, {}).setdefault(rec["run_id"], []).append(
            (rec["item_id"], rec["request_hash"], Completion(**c)))
    if legacy:
        batches["legacy-" + hashlib.sha256("\n".join(legacy).encode()).hexdigest()[:32]] = \
            batches.pop("legacy")
    return list(batches.items())


def recover(store: Store) -> tuple[int, list[Path]]:
    """Store what earlier runs spooled for this store, then delete the spools; (answers
    stored, spool files). Raises what the store raises if it still cannot write."""
    files = pending(store.path)
    stored, done = 0, []
    for path in files:
        # taken aside first: a process still spooling (a lake's other writer) starts a new
        # file for its next batch instead of appending to one being stored and deleted
        base = _spool_name(path)
        taken = path.with_name(f"{base}.{os.getpid()}.storing")
        try:
            os.replace(path, taken)
        except FileNotFoundError:          # another process took it first
            continue
        try:
            stored += store.append_spooled(read(taken))
        except BaseException:
            # still to be stored by the next open (a name it finds; never over a new spool)
            os.replace(taken, path.with_name(f"{base}.{uuid.uuid4().hex[:12]}.left"))
            raise
        taken.unlink()                       # only now: its batches are committed
        done.append(path)
    return stored, done


def _spool_name(path: Path) -> str:
    """`<spool>` of a spool file's name (`x.spool.jsonl`, `x.spool.jsonl.123.storing`...)."""
    name = path.name
    return name[:name.index(".spool.jsonl") + len(".spool.jsonl")]


ROOM_PROBE = 1024 * 1024         # a spool location must take this much (a second's answers)
ANSWER_BYTES = 2048              # an answer's text, before the store has any to measure
ROW_BYTES = 512                  # ... and the rest of its row (ids, hash, counts, times)


def room_needed(store: Store, answers: int) -> int:
    """About how many bytes `answers` more answers take: the store's own mean answer (text and
    reasoning) where it holds enough to measure, else ANSWER_BYTES; each row twice over (the
    write-ahead log, then the file it is checkpointed into)."""
    per = ANSWER_BYTES
    with contextlib.suppress(Exception):
        n, mean = store.query("SELECT count(*), avg(length(coalesce(response, '')) + "
                              "length(coalesce(reasoning, ''))) FROM (SELECT response, "
                              "reasoning FROM responses USING SAMPLE 2000 ROWS)")[0]
        if n >= 20 and mean is not None:
            per = int(mean)
    return 2 * answers * (per + ROW_BYTES)


def check_room(store: Store, need: int = ROOM_PROBE, run_id: str | None = None) -> None:
    """Before asking: the answers about to be paid for (`need` bytes, `room_needed`) can be kept,
    in the store (its disk has the room) or in the store and a spool location together (one
    takes a trial write; its disk has the rest); else a StoreWriteError (one line, exit status
    5) saying what is needed and what is free, and that nothing (more) was asked."""
    if store.is_lake and store.location.catalog != "sqlite":
        return                            # a remote catalog: its server decides
    folder = Path(store.location.target).parent
    free = _free(folder)
    if free is None or free >= need:
        return
    tried, spare = [], 0
    for path in paths(store.path):
        probe = path.with_name(f".{path.name}.{os.getpid()}.room")
        try:
            _append_whole(probe, b"\0" * ROOM_PROBE)
        except OSError as exc:
            tried.append(f"{path.parent} ({exc.strerror or exc})")
            continue
        finally:
            with contextlib.suppress(OSError):
                probe.unlink()
        same = _device(path.parent) == _device(folder)
        spare = 0 if same else (_free(path.parent) or 0)
        if free + spare >= need:
            return
        tried.append(f"{path.parent} ({spare // 1024} KiB free)" if not same else
                     f"{path.parent} (the store's disk)")
    asked = "nothing was asked"
    if run_id is not None:
        with contextlib.suppress(Exception):
            (stored,), = store.query("SELECT count(*) FROM responses WHERE run_id = ?", [run_id])
            if stored:
                asked = (f"nothing more was asked ({stored} answer(s) of run {run_id} are "
                         "stored)")
    raise StoreWriteError(
        f"{store.path}: no room to keep answers: they need about {_size(need)} and its disk has "
        f"{_size(free)} free, no spool location the rest ({'; '.join(tried)}); {asked}. Free "
        "space (or set MATHPROBE_SPOOL_DIR to a folder with room) and run the same command "
        "again")


def _free(folder: Path) -> int | None:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


def _device(folder: Path) -> int | None:
    existing = next((p for p in [folder, *folder.parents] if p.exists()), None)
    try:
        return os.stat(existing).st_dev if existing is not None else None
    except OSError:
        return None


def _size(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MB" if n >= 1024 * 1024 else f"{n // 1024} KiB"
