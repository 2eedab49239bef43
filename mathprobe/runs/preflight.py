"""Everything about a command that can be checked without Prefect, checked first.

Starting Prefect (its ephemeral API) takes 10-20 s, so a typo must not wait for it: the command
line calls these before it imports a flow, and the flows call the same checks at their start
(a deployment run from the UI gets the same messages). Each check raises a MathprobeError whose
text is the one line the user sees: the option, the value, what is wrong, what is accepted.
Nothing here imports Prefect, opens the store for writing or builds an SDK client.
"""
from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathprobe import extras, registry
from mathprobe.backends import registry as backends
from mathprobe.backends.secrets import block_name, key_available
from mathprobe.contract import Benchmark
from mathprobe.errors import MathprobeError
from mathprobe.runs import judging, setting_data
from mathprobe.runs import samples as repeats
from mathprobe.runs.environment import check_environment
from mathprobe.runs.output_paths import output_dir, read_only
from mathprobe.settings import in_range
from mathprobe.store import RunSpec
from mathprobe.store.duckdb_store import check_same_work, peek
from mathprobe.store.location import parse
from mathprobe.store.runs_table import check_samples

# What a user means by each number: (least, most, what it counts).
NUMBERS: dict[str, tuple[float, float | None, str]] = {
    "limit": (1, None, "a number of questions"),
    "sample": (1, None, "a number of wrong answers"),
    "concurrency": (1, 4096, "requests in flight"),
    "max_tokens": (1, 1_000_000, "new tokens per answer"),
    "max_cost": (0, None, "US dollars"),
    "request_timeout": (0, 86_400, "seconds per attempt"),
    "temperature": (0, 2, "the sampling temperature"),
    "samples": (1, 100, "answers asked of each item"),
    "resamples": (100, 1_000_000, "bootstrap resamples"),
    "seed": (0, 2**32 - 1, "a random seed"),
    "port": (1, 65_535, "a TCP port"),
    "idle_timeout": (1, 604_800, "seconds unused before the server stops"),
    "weakest": (1, 1000, "concepts per system"),
    "per_concept": (1, 1_000_000, "documents per concept"),
    "mix_ratio": (0, 1_000_000, "general-set rows per selected document"),
}
ABOVE = ("max_cost", "request_timeout")      # must be above their least, not equal to it


def check_counts(**options: int | float | None) -> None:
    """Numeric options as a user means them: finite (`inf` and `nan` parse as numbers, and an
    infinite --temperature or --request-timeout made every call fail as an infrastructure
    fault) and in range (NUMBERS). `port`-like names (`grpc_port`) are ports. None: not given."""
    for name, value in options.items():
        if value is None:
            continue
        flag = "--" + name.replace("_", "-")
        least, most, what = NUMBERS["port" if name.endswith("port") else name]
        in_range(f"{flag} {value}", value, least, most, what, above=name in ABOVE)


RUN_ID_CHARS = "A-Za-z0-9._-"


def check_run_id(run_id: str | None, option: str = "--run-id") -> None:
    """A given run id must name something ('' or blanks would silently become the default),
    and be usable as given in a file name (the run's HTML report, `<run id>.html`) and,
    mapped as `artifact_key` says, in a Prefect artifact key: letters, digits, '.', '_' and
    '-', not starting with '.' or '-' (a hidden file, an option)."""
    if run_id is None:
        return
    if not run_id.strip():
        raise MathprobeError(f"{option} {run_id!r}: empty; give the run a name")
    if run_id != run_id.strip():
        raise MathprobeError(f"{option} {run_id!r}: leading or trailing blanks")
    bad = sorted(set(re.findall(f"[^{RUN_ID_CHARS}]", run_id)))
    if bad:
        fixed = re.sub(f"[^{RUN_ID_CHARS}]+", "-", run_id).strip("-.") or "run"
        raise MathprobeError(f"{option} {run_id!r}: {' '.join(repr(c) for c in bad)} cannot be "
                             "in a file name or a Prefect artifact key; use letters, digits, "
                             f"'.', '_' and '-', e.g. {fixed!r}")
    if run_id[0] in ".-":
        raise MathprobeError(f"{option} {run_id!r}: must not start with {run_id[0]!r}; e.g. "
                             f"{run_id.lstrip('.-') or 'run'!r}")


def benchmark(name: str) -> Benchmark:
    """The registered benchmark `name`, or an error listing them (with the likely one)."""
    if name not in registry.names():
        close = difflib.get_close_matches(name, registry.names(), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise MathprobeError(f"--benchmark {name!r}: unknown benchmark{hint}; available: "
                             f"{', '.join(registry.names())}")
    return registry.get(name)


def setting(bench: Benchmark, value: str | None) -> str:
    chosen = value or bench.default_setting
    if chosen not in bench.settings:
        raise MathprobeError(f"--setting {chosen!r}: {bench.name} has "
                             f"{', '.join(bench.settings)}")
    return chosen


def model(spec: str, option: str = "--model") -> tuple[str, str]:
    """A BACKEND:NAME whose backend is registered, has the extra it needs installed, accepts
    NAME (e.g. a replay file that exists) and whose API key can be had (from the environment,
    or a Prefect Secret block)."""
    kind, name = backends.parse_spec(spec, option)
    found = backends.kind_of(spec, option)     # parse_spec refused a kind not installed
    if found.extra:
        extras.require(found.extra, f"{option} {spec!r}", found.extra_modules or None)
    problem = found.check(name) if found.check else None
    if problem:
        raise MathprobeError(f"{option} {spec!r}: {problem}")
    env = found.key_env
    if env and key_available(env) is False:
        raise MathprobeError(f"{option} {spec!r}: no API key: set {env}, or create a Prefect "
                             f"Secret block named '{block_name(env)}'")
    return kind, name


def data(bench: Benchmark, data_dir: str | Path | None) -> Path:
    """The data directory, with the benchmark's files loaded and validated (a bad row is a
    DataError naming the file, row and field)."""
    path = registry.resolve_data_dir(data_dir)
    bench.load(path)
    return path


def store_path(db: str | Path, data_path: str | None = None) -> Path | None:
    """A store that can be created or opened for writing: a file (or a SQLite lake catalog)
    in a folder that exists and, if it exists, one that can be written (a read-only mount is
    said now, not once Prefect has started); None for a PostgreSQL-catalogued lake (its server
    tells)."""
    loc = parse(db, data_path)
    if loc.is_lake:
        extras.require("lake", f"--db {db}", ("duckdb_extension_ducklake",) + (
            ("duckdb_extension_postgres_scanner",) if loc.catalog == "postgres" else
            ("duckdb_extension_sqlite_scanner",)))
    if loc.is_lake and data_path and "://" not in data_path:
        output_dir("--data-path", data_path)
    if loc.is_lake and loc.catalog != "sqlite":
        return None
    path = Path(loc.target)
    if path.is_dir():
        raise MathprobeError(f"--db {db}: is a directory; name a file, e.g. {path / 'runs.duckdb'}")
    parent = path.resolve().parent
    if not parent.exists():            # a typo in the folder must not create a tree of folders
        raise MathprobeError(f"--db {db}: the folder {parent} does not exist; create it first, "
                             "or name a file in an existing folder")
    if not parent.is_dir():
        raise MathprobeError(f"--db {db}: {parent} is not a directory")
    if read_only(parent):
        raise MathprobeError(f"--db {db}: {parent} is on a read-only file system; the store "
                             "is written (copy it to a writable place; `report` and `sql` "
                             "read it where it is)")
    if not os.access(parent, os.W_OK):
        raise MathprobeError(f"--db {db}: cannot "
                             + ("write beside it" if path.exists() else "create it")
                             + f", {parent} is not writable")
    if path.exists() and not os.access(path, os.W_OK):
        raise MathprobeError(f"--db {db}: the file is not writable")
    return path


def check_judge(bench: Benchmark, judge: str) -> None:
    """--judge BACKEND:NAME[#options]: the benchmark has a judge that knows the options, and
    the backend passes `model`'s checks."""
    judging.judge_of(bench, judge)
    model(judging.backend_spec(judge), "--judge")


def check_priced(spec: str, max_cost: float | None, option: str = "--model") -> None:
    """--max-cost is kept by counting what each answer costs, from the price table: for a
    model the table does not price, the cap could never be reached and the run would spend
    without one (60 requests sent under `--max-cost 0.0001`, issue 33). Refused, naming the
    way to give the model a price."""
    from mathprobe.backends import prices, reasoning

    if max_cost is None or prices.is_priced(spec):
        return
    kind, _, name = spec.partition(":")
    name = reasoning.unmarked(name)
    raise MathprobeError(
        f"--max-cost {max_cost:g}: {option} {spec} has no price in the price table, so the "
        f"cap could not be kept; give its price (USD per million tokens) in a TOML file named "
        f"by MATHPROBE_PRICES, e.g. [{kind}] \"{name}\" = {{ input = 0.5, output = 1.5 }}, "
        "or leave --max-cost out")


def check_batch(model: str, judge: str | None = None, max_cost: float | None = None,
                option: str = "--model") -> None:
    """--batch: the model's kind (and the judge's) has a batch API; no --max-cost (a batch is
    answered whole once submitted: nothing could stop it at a cost)."""
    from mathprobe.backends import check_batches

    check_batches(model, option)
    if judge is not None:
        check_batches(judging.backend_spec(judge), "--judge")
    if max_cost is not None:
        raise MathprobeError(f"--max-cost {max_cost:g}: cannot be kept with --batch (the service "
                             "answers a submitted batch whole, at half the price: nothing can "
                             "stop it part way); leave one out, or size the run with --limit")


def default_run_id(benchmark: str, model: str, setting: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", f"{benchmark}-{model}-{setting}")


def same_work(db: str | Path, spec: RunSpec) -> None:
    """If the store (a file; a lake's own check comes with its run) already holds
    `spec.run_id` for other work, or asks more samples of each item than `spec` (--samples),
    the error now (showing what differs); also fails at once if another process is writing
    the file."""
    loc = parse(db)
    if not loc.is_lake and Path(loc.target).is_file():
        row = peek(db, "SELECT benchmark, model, setting, params, r FROM runs r "
                       "WHERE run_id = ?", [spec.run_id])      # r: a store of any version
        if row:
            check_same_work(spec, row[0][:4])
            check_samples(spec.run_id, spec.samples, row[0][4].get("samples") or 1)


def none_in_batches(db: str | Path, run_id: str) -> None:
    """A run asked without --batch has no requests waiting in batches (a file; the flow checks
    a lake's, and again a file's: mathprobe.runs.batching.check_none_waiting)."""
    loc = parse(db)
    if loc.is_lake or not Path(loc.target).is_file():
        return
    rows = peek(db, "SELECT count(*) FROM batch_requests r JOIN batches b "
                    "USING (submission) WHERE r.run_id = ? AND r.state = 'pending' "
                    "AND b.collected_at IS NULL AND b.status <> 'void'", [run_id])
    if rows and rows[0][0]:
        from mathprobe.runs.batching import still_waiting

        raise MathprobeError(still_waiting(run_id, rows[0][0]))


@dataclass(frozen=True)
class EvalPlan:
    """An eval run's arguments, checked and completed with their defaults."""
    bench: Benchmark
    setting: str
    run_id: str
    params: dict[str, Any]
    data_dir: Path
    samples: int | None = None      # --samples K as given (None: the run's own)


def check_eval(*, benchmark: str, model: str, setting: str | None, run_id: str | None,
               db: str | Path, data_dir: str | Path | None, limit: int | None = None,
               concurrency: int | None = None, max_cost: float | None = None,
               temperature: float | None = None, max_tokens: int | None = None,
               request_timeout: float | None = None, judge: str | None = None,
               data_path: str | None = None, backend_options: dict[str, Any] | None = None,
               batch: bool = False, samples: int | None = None,
               seed: int | None = None) -> EvalPlan:
    """Every check of `mathprobe run` / the eval flow that needs no Prefect, cheapest first.
    `backend_options`: the model's kind's own options (--reasoning-effort, --thinking-budget:
    `BackendKind.options`), checked with the rest; the plan's `params` are what the model is
    sent (`BackendKind.generation`: a reasoning model's rules applied). `batch`: the model
    (and the judge) are asked through their batch API (`check_batch`). `samples`: answers
    asked of each item (--samples K: mathprobe.runs.samples.check). `seed`: a seeded kind's
    draws (baseline:random), one of its params.

    The command line checks before Prefect starts, and the flow checks again at its start (a
    deployment run from the UI gets the same messages): the flow's call with the arguments the
    command checked takes the command's plan, once (0.2-0.5 s of data and store reads on the way
    to the first request; what may have changed meanwhile the flow checks as it opens the run)."""
    import json

    key = json.dumps({**locals(), "db": str(db), "data_dir": str(data_dir or "")},
                     sort_keys=True, default=str)
    plan = _checked.pop(key, None)
    if plan is not None:
        return plan
    plan = _check_eval(benchmark=benchmark, model=model, setting=setting, run_id=run_id,
                       db=db, data_dir=data_dir, limit=limit, concurrency=concurrency,
                       max_cost=max_cost, temperature=temperature, max_tokens=max_tokens,
                       request_timeout=request_timeout, judge=judge, data_path=data_path,
                       backend_options=backend_options, batch=batch, samples=samples,
                       seed=seed)
    _checked.clear()
    _checked[key] = plan
    return plan


_checked: dict[str, EvalPlan] = {}      # the last plan, by its arguments, till a call takes it


def _check_eval(*, benchmark, model, setting, run_id, db, data_dir, limit, concurrency,
                max_cost, temperature, max_tokens, request_timeout, judge, data_path,
                backend_options, batch, samples, seed) -> EvalPlan:
    check_environment()                        # a deployment's worker: no command line ran it
    check_counts(limit=limit, concurrency=concurrency, max_cost=max_cost,
                 temperature=temperature, max_tokens=max_tokens,
                 request_timeout=request_timeout, samples=samples, seed=seed)
    check_run_id(run_id)
    bench = benchmark_(benchmark)
    chosen = setting_(bench, setting)
    kind, _ = model_(model)
    params = backends.generation_params(
        model, bench.default_params, {"temperature": temperature, "max_tokens": max_tokens},
        backend_options, seed=seed)
    repeats.check(samples, model, params)
    if judge is not None:
        check_judge(bench, judge)
    if batch:
        check_batch(model, judge, max_cost)
    check_priced(model, max_cost)
    store_path(db, data_path)
    path = data(bench, data_dir)
    setting_data.check(bench, bench.select(bench.load(path).items, limit), chosen)
    rid = run_id or default_run_id(benchmark, model, chosen)
    same_work(db, RunSpec(rid, bench.name, model, kind, chosen, params, samples=samples))
    if not batch:
        none_in_batches(db, rid)
    return EvalPlan(bench, chosen, rid, params, path, samples)


def check_probe(*, family: str, benchmark: str | None, methods: list[str] | None, model: str,
                run_id: str | None, db: str | Path, data_dir: str | Path | None,
                limit: int | None = None, concurrency: int | None = None,
                data_path: str | None = None,
                request_timeout: float | None = None) -> Benchmark:
    """The checks of a probe command (`contamination`, `classify`) that need no Prefect."""
    check_environment()
    check_counts(limit=limit, concurrency=concurrency, request_timeout=request_timeout)
    check_run_id(run_id)
    bench = registry.with_probe_family(family, benchmark_(benchmark).name if benchmark else None)
    offered = bench.probe_family(family)
    unknown = [m for m in methods or [] if m not in offered]
    if unknown:
        raise MathprobeError(f"--method {unknown[0]!r}: {bench.name}'s {family} probes are "
                             f"{', '.join(offered)}" + (" or both" if len(offered) == 2 else ""))
    for name in methods or offered:
        extra = offered[name].extra
        if extra:
            extras.require(extra, f"the {name} probe")
    model_(model)
    store_path(db, data_path)
    data(bench, data_dir)
    return bench


# the checks under the names the plans use (their parameters shadow the short names)
benchmark_, setting_, model_ = benchmark, setting, model
