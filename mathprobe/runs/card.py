"""What a run card records while the run runs: the facts only the run itself knows, so a figure
can be reproduced from its card (docs/run-card.md). The rest of the card (responses by status,
tokens, cost, the graders' verdicts, the model the server said answered) is read from the store
whenever the card is shown (`mathprobe.reports.card`).

Recorded here, merged into `runs.card` (`Store.set_card`): the mathprobe, Python and DuckDB
versions; the benchmark's data files with their SHA-256; the setting and the SHA-256 of the
exact prompts the run's items get; the model spec, backend and the endpoint it was sent to
(scheme, host, port and path only); the generation parameters; --limit and the sampling seed,
the bootstrap seed reports use; concurrency and the cost cap; and one `sessions` entry per start
or resume. `generation` is what the model was sent (a reasoning model's rules applied: e.g.
max_completion_tokens and reasoning_effort, no temperature); each session records its own, as
a resumed run may raise its token cap; `model.reasoning` says how the model is known to be a
reasoning model (the table, or its #reasoning mark). Never a secret: no API key, header, or
credential in a URL is read here at all, and `redact` replaces the value of any key set in the
environment, should one have been pasted into a model spec or a URL.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import duckdb

from mathprobe import sampling
from mathprobe.backends import registry, secrets
from mathprobe.contract import Benchmark, Skipped
from mathprobe.items import Chat, Item, Request
from mathprobe.runs import samples as repeats
from mathprobe.store.runs_table import now

BOOTSTRAP_SEED = 20240611       # mathprobe.reports.stats.SEED (reports' default; --seed overrides)


@lru_cache(maxsize=1)
def mathprobe_version() -> str:
    """Read once per process (the installed metadata: 0.05-0.1 s; the warm runner reads it
    while it warms up, its copies inherit it)."""
    try:
        return version("mathprobe")
    except PackageNotFoundError:
        return "unknown"


def software() -> dict[str, str]:
    return {"mathprobe": mathprobe_version(), "python": platform.python_version(),
            "duckdb": duckdb.__version__}


@lru_cache(maxsize=256)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sha256_file(path: Path) -> str:
    st = Path(path).stat()
    return _sha256(str(path), st.st_size, st.st_mtime_ns)


def data_files(bench: Benchmark, data_dir: Path) -> dict[str, Any]:
    """The benchmark's data files (those directly in `<data_dir>/<name>/`: the question files
    and their tables; image folders are named by their file count) with size and SHA-256."""
    root = Path(data_dir) / bench.name
    files, folders = [], []
    if root.is_dir():
        for p in sorted(root.iterdir()):
            if p.is_file():
                files.append({"path": f"{bench.name}/{p.name}", "bytes": p.stat().st_size,
                              "sha256": sha256_file(p)})
            elif p.is_dir():               # counted from the directory listings alone (no
                #                            stat per file: 1,740 images took 0.1 s)
                folders.append({"path": f"{bench.name}/{p.name}/",
                                "files": sum(len(names) for _, _, names in
                                             os.walk(p, followlinks=True))})
    return {"dir": str(Path(data_dir).resolve()), "files": files, "folders": folders}


def prompts_sha256(bench: Benchmark, items: Sequence[Item], setting: str) -> dict[str, Any]:
    """The SHA-256 of the exact prompts the items get under `setting` (prior chat turns
    included), item by item in order, and of the first item's prompt alone: two runs with the
    same hash sent the same text."""
    h = hashlib.sha256()
    first = None
    for it in items:
        p = bench.prompt(it, setting)
        text = json.dumps({"turns": [list(t) for t in p.turns], "prompt": p.prompt}
                          if isinstance(p, Chat) else p, ensure_ascii=False, sort_keys=True)
        h.update(it.item_id.encode() + b"\0" + text.encode() + b"\0")
        if first is None:
            first = hashlib.sha256(text.encode()).hexdigest()
    return {"sha256": h.hexdigest(), "items": len(items), "first_item_sha256": first}


def requests_sha256(requests: Sequence[Request]) -> dict[str, Any]:
    """`prompts_sha256` of requests built otherwise (a probe's): their system prompt, prior
    turns and text, in order."""
    h = hashlib.sha256()
    for r in requests:
        text = json.dumps({"system": r.system, "turns": [list(t) for t in r.turns],
                           "prompt": r.prompt}, ensure_ascii=False, sort_keys=True)
        h.update(r.item_id.encode() + b"\0" + text.encode() + b"\0")
    return {"sha256": h.hexdigest(), "items": len(requests)}


def endpoint(kind: str) -> str | None:
    """Where a backend sends its calls, without credentials, query or fragment."""
    found = registry.find(kind)
    var = found.endpoint_env if found is not None else None
    url = os.environ.get(var) if var else None
    if not url:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def run_facts(bench: Benchmark, data_dir: Path, *, model: str, kind: str, setting: str,
              params: dict[str, Any], items: Sequence[Item], limit: int | None,
              concurrency: int | None, retry_failed: bool = False, max_cost: float | None = None,
              request_timeout: float | None = None, triton_url: str | None = None,
              judge: str | None = None, flow_run_id: str | None = None,
              prompts: dict[str, Any] | None = None, batch: bool = False,
              samples: int = 1) -> dict[str, Any]:
    """The card facts of an eval or probe run at its start (a resume adds a session);
    `prompts`: the prompts' hashes when they are not the benchmark's (a probe's requests);
    `batch`: asked through the service's batch API (--batch); `samples`: answers asked of
    each item (--samples K: the card says K and the samples' seeds where K > 1)."""
    found = registry.find(kind)
    traits = registry.traits_of(model) if found is not None else None
    facts = {
        "software": software(),
        "benchmark": {"name": bench.name, "title": bench.title, "setting": setting,
                      "prompts": prompts or prompts_sha256(bench, items, setting)},
        "data": data_files(bench, data_dir),
        "model": {"spec": model, "backend": kind, "endpoint": endpoint(kind)
                  or (triton_url if found is not None and found.url_option else None),
                  **({"reasoning": traits.source} if traits and traits.source else {})},
        "generation": dict(params),
        "sampling": {"limit": limit, "items": len(items), "seed": sampling.SEED,
                     "strata": list(bench.strata_names)},
        "seeds": {"sampling": sampling.SEED, "bootstrap": BOOTSTRAP_SEED,
                  **({kind: params["seed"]} if "seed" in params else {})},
        "execution": {"concurrency": concurrency, "max_cost_usd": max_cost,
                      "request_timeout_s": request_timeout, "batch": batch},
        "graders": {"rules": list(bench.graders), "judge": judge},
        "sessions": [{"started_at": now().isoformat(timespec="seconds"),
                      "mathprobe": mathprobe_version(), "concurrency": concurrency,
                      "limit": limit, "retry_failed": retry_failed, "batch": batch,
                      "generation": dict(params), "flow_run_id": flow_run_id,
                      **({"samples": samples} if samples > 1 else {})}],
    }
    if samples > 1:                 # a run of one sample's card is as it always was
        facts["samples"] = {"per_item": samples, "seeds": repeats.seeds(model, samples)}
    return redact(facts)


def judge_facts(judge: str, prompts: Sequence[tuple[str | None, str]],
                params: dict[str, Any]) -> dict[str, Any]:
    """A judge's entry on the judged run's card: its spec, params and the SHA-256 of its
    system prompt and of every prompt it was sent."""
    h = hashlib.sha256()
    systems = sorted({s for s, _ in prompts if s})
    for system, user in prompts:
        h.update((system or "").encode() + b"\0" + user.encode() + b"\0")
    return {"judges": {judge: {"params": dict(params), "prompts_sha256": h.hexdigest(),
                               "prompts": len(prompts),
                               "system_prompt_sha256": [hashlib.sha256(s.encode()).hexdigest()
                                                        for s in systems]}}}


def import_facts(bench: Benchmark, data_dir: Path, file: Path, fmt: str,
                 source: Mapping[str, Any], rows: int, from_file: int,
                 skipped: Sequence[Skipped], shown: int,
                 flagged: Sequence[Skipped] = ()) -> dict[str, Any]:
    """The card facts of an import: the file (name, size, SHA-256), its format and source, the
    rows left out and the rows kept but flagged (`Benchmark.answer_outside`)."""
    facts = {
        "software": software(),
        "benchmark": {"name": bench.name, "title": bench.title, "setting": fmt},
        "data": data_files(bench, data_dir),
        "model": {"spec": f"import:{Path(file).name}", "backend": "import"},
        "graders": {"rules": list(bench.graders)},
        "seeds": {"bootstrap": BOOTSTRAP_SEED},
        "import": {"file": Path(file).name, "bytes": Path(file).stat().st_size,
                   "sha256": sha256_file(Path(file)), "format": fmt, "source": dict(source),
                   "rows": rows, "items_from_file": from_file, "skipped": len(skipped),
                   "skipped_rows": [s.line() for s in skipped[:shown]],
                   "flagged": len(flagged), "flagged_rows": [s.line() for s in flagged[:shown]]},
        "sessions": [{"started_at": now().isoformat(timespec="seconds"),
                      "mathprobe": mathprobe_version()}],
    }
    return redact(facts)


def redact(facts: dict[str, Any]) -> dict[str, Any]:
    """The facts with every known secret's value (`mathprobe.backends.secrets`: keys set in the
    environment or resolved from Prefect blocks) replaced by '***', should one have been pasted
    into a model spec or a URL: the card is stored and exported, a key must never be."""
    return json.loads(secrets.redact(json.dumps(facts, default=str)))
