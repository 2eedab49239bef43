"""Every MATHPROBE_* environment setting, declared once: what it sets, what it accepts.

A setting from the environment is an option given another way, so it gets its flag's checks:
`MATHPROBE_REQUEST_TIMEOUT_S=-5` or `nan` had been taken as given (every call then timed out),
`MATHPROBE_RETRY_MAX_ATTEMPTS=abc` failed inside the flow with a traceback, and `..._ATTEMPTS=0`
or `MATHPROBE_MAX_CONCURRENCY_OPENAI=0` were accepted without a word (issue 33). Here each
variable has one declaration (`SETTINGS`); `mathprobe.runs.preflight.check_environment` (called
by the command line before any command starts, and at the start of every flow) reads every
MATHPROBE_* variable that is set against it, and the code that uses a value reads it through
`get`, which applies the same check, so a value is never used unchecked.
tests/test_settings.py finds every MATHPROBE_* name in the code and fails for one that is not
declared here.

Names that look like a setting but are none (a misspelt name, an unknown backend in
MATHPROBE_MAX_CONCURRENCY_<KIND>) are refused too, naming the likely one; other MATHPROBE_*
variables (a test suite's own) are left alone.
"""
from __future__ import annotations

import difflib
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathprobe.errors import MathprobeError


def in_range(label: str, value: float, least: float, most: float | None, what: str,
             above: bool = False) -> None:
    """A number as a user means it: finite (`inf` and `nan` parse as numbers) and within
    [least, most] (above `least` when `above`); else the one line, naming `label`."""
    if not math.isfinite(value):
        raise MathprobeError(f"{label}: must be a finite number ({what})")
    if above and not value > least:
        raise MathprobeError(f"{label}: must be above {_plain(least)} ({what})")
    if value < least:
        raise MathprobeError(f"{label}: must be at least {_plain(least)} ({what})")
    if most is not None and value > most:
        raise MathprobeError(f"{label}: must be at most {_plain(most)} ({what})")


def _plain(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def whole(least: int, most: int | None, what: str) -> Callable[[str, str], int]:
    def parse(label: str, text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise MathprobeError(f"{label}: must be a whole number ({what})") from None
        in_range(label, value, least, most, what)
        return value
    return parse


def number(least: float, most: float | None, what: str,
           above: bool = False) -> Callable[[str, str], float]:
    def parse(label: str, text: str) -> float:
        try:
            value = float(text.strip())
        except ValueError:
            raise MathprobeError(f"{label}: must be a number ({what})") from None
        in_range(label, value, least, most, what, above)
        return value
    return parse


def folder(label: str, text: str) -> Path:
    """A folder mathprobe reads or makes: if something is there, it must be a folder."""
    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        raise MathprobeError(f"{label}: is a file, not a folder")
    return path


def switch(label: str, text: str) -> str:
    return text


def a_file(label: str, text: str) -> Path:
    """A file mathprobe reads (a TOML table): it must be there; its entries are checked by
    its reader (`preflight.check_environment` reads it at start)."""
    path = Path(text).expanduser()
    if not path.is_file():
        raise MathprobeError(f"{label}: no such file")
    return path


def host_port(label: str, text: str) -> str:
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit():
        raise MathprobeError(f"{label}: must be HOST:PORT, e.g. localhost:8001")
    in_range(label, int(port), 1, 65_535, "a TCP port")
    return text.strip()


def a_store(label: str, text: str) -> str:
    """A store as --db names one: a file, not a folder (a DuckLake spelling is read by
    `preflight.check_environment`)."""
    if not text.startswith("ducklake:") and Path(text).expanduser().is_dir():
        raise MathprobeError(f"{label}: is a directory; name a file, e.g. "
                             f"{Path(text) / 'runs.duckdb'}")
    return text


@dataclass(frozen=True)
class Setting:
    """One variable (or, ending in `_`, a family: MATHPROBE_MAX_CONCURRENCY_<KIND>): what it
    sets, its flag where it has one, and its check (None: set by mathprobe itself for a child
    process, never by a user)."""
    name: str
    what: str
    parse: Callable[[str, str], Any] | None
    flag: str | None = None


SECONDS = "seconds"
SETTINGS: tuple[Setting, ...] = (
    Setting("MATHPROBE_DATA_DIR", "the folder holding one folder per benchmark", folder,
            "--data-dir"),
    Setting("MATHPROBE_DB", "the store `deploy` runs write by default", a_store, "--db"),
    Setting("MATHPROBE_DEBUG", "tracebacks with the error line (not 0/false/no/off)", switch,
            "--debug"),
    Setting("MATHPROBE_NO_WARM", "run each command in its own process (set: any value)",
            switch),
    Setting("MATHPROBE_STATE_DIR", "where the local server and the warm runner keep their "
            "record and log", folder),
    Setting("MATHPROBE_SPOOL_DIR", "where answers a full disk could not take are kept", folder),
    Setting("MATHPROBE_FULL_DISK_WAIT_S", "how long answers no disk takes are held in memory, "
            "waiting for room", number(0, 86_400, "seconds to wait for room")),
    Setting("MATHPROBE_CACHE_DIR", "where the store template is cached", folder),
    Setting("MATHPROBE_SERVER_IDLE_TIMEOUT", "how long a local server a command started waits "
            "unused before it stops (mathprobe/warm/server.py)",
            number(1, 604_800, "seconds unused before the server stops")),
    Setting("MATHPROBE_PRICES", "a price table merged over prices.toml", a_file),
    Setting("MATHPROBE_REASONING_MODELS", "a table of reasoning models merged over "
            "reasoning_models.toml", a_file),
    Setting("MATHPROBE_TRITON_URL", "the Triton gRPC endpoint", host_port, "--triton-url"),
    Setting("MATHPROBE_MAX_CONCURRENCY_", "a provider's requests in flight at most (one "
            "variable per backend kind, e.g. MATHPROBE_MAX_CONCURRENCY_OPENAI)",
            whole(1, 4096, "requests in flight"), "--concurrency"),
    Setting("MATHPROBE_REQUEST_TIMEOUT_S", "seconds per attempt",
            number(0, 86_400, "seconds per attempt", above=True), "--request-timeout"),
    Setting("MATHPROBE_RETRY_MAX_ATTEMPTS", "attempts per request, the first included",
            whole(1, 100, "attempts per request")),
    Setting("MATHPROBE_RETRY_MAX_TOTAL_S", "the most one request takes, waits included",
            number(0, 86_400, "seconds per request, its retries included", above=True)),
    Setting("MATHPROBE_RETRY_BASE_WAIT_S", "the first backoff before a retry",
            number(0, 3_600, "seconds before the first retry")),
    Setting("MATHPROBE_RETRY_MAX_WAIT_S", "the longest backoff between attempts",
            number(0, 86_400, "seconds between attempts at most")),
    Setting("MATHPROBE_BATCH_MAX_REQUESTS", "requests per batch at most (--batch)",
            whole(1, None, "requests per batch")),
    Setting("MATHPROBE_BATCH_POLL_S", "the longest wait between looks at a batch (--batch)",
            number(0, 86_400, "seconds between looks at a batch", above=True)),
    Setting("MATHPROBE_SYS_PATH", "(set by `triton serve` for its model processes)", None),
    Setting("MATHPROBE_TRITON_MODEL_DIR", "(set by `triton serve` for its model processes)",
            None),
)
BY_NAME = {s.name: s for s in SETTINGS}
PREFIX = "MATHPROBE_"


def declared(name: str) -> Setting | None:
    """The declaration of variable `name` (a family's, for MATHPROBE_MAX_CONCURRENCY_OPENAI)."""
    if name in BY_NAME:
        return BY_NAME[name]
    return next((s for s in SETTINGS if s.name.endswith("_") and name.startswith(s.name)), None)


def get(name: str, environ: Mapping[str, str] | None = None) -> Any:
    """The checked value of `name` from the environment; None when unset or empty."""
    text = (os.environ if environ is None else environ).get(name)
    if not text:
        return None
    setting = declared(name)
    if setting is None:
        raise KeyError(f"{name} is not declared in mathprobe.settings.SETTINGS")
    return text if setting.parse is None else setting.parse(f"{name}={text}", text)


def near_miss(name: str) -> str | None:
    """The declared setting an undeclared MATHPROBE_* name is most likely a misspelling of."""
    names = [s.name for s in SETTINGS if not s.name.endswith("_")]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.88)
    return close[0] if close else None
