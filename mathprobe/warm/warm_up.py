"""What the warm runner (mathprobe/warm/runner.py) imports and works out once, before it serves:
whatever every command would otherwise import or compute itself on the way to its first
request, and that cannot change while the runner serves (a change of mathprobe's code, the
installed packages or the Prefect profiles brings a new runner: mathprobe/warm/control.py)."""
from __future__ import annotations

import os
from collections.abc import Mapping


def warm_up() -> None:
    """Import what any command would: the CLI, every flow, every benchmark, the Prefect engine
    modules a flow run imports on its first call (fastapi's encoders among them: Prefect
    serializes every flow run's parameters with them, and importing fastapi took 0.9-1.1 s of
    each warm command before its first request, issue 38), the SDKs of the backends this user
    is set up for (`_preloaded`); and work out what every run's start needs and cannot change
    while the runner serves (a change of code or packages brings a new runner): the store's SQL
    layer (the order its files apply in, 0.25 s; kept per file stamp, mathprobe.store.sql),
    mathprobe's installed version (the run card's, 0.05-0.1 s), Prefect's TLS context (44 ms per
    client: `_prefect_tls_context`) and the benchmarks' data of the user's data folder
    ($MATHPROBE_DATA_DIR: 0.2-0.3 s each, kept per folder stamp, mathprobe.data_cache; about
    19 MB for all three)."""
    import importlib

    import mathprobe.cli.main  # noqa: F401  (also sets the command's Prefect defaults)
    from mathprobe import registry
    from mathprobe.runs.card import mathprobe_version
    from mathprobe.store.sql import sql_layer

    for name in ("mathprobe.flows.eval", "mathprobe.flows.probes", "mathprobe.flows.sweep",
                 "prefect.flow_engine", "prefect.task_engine", "fastapi.encoders",
                 *_preloaded(os.environ)):
        importlib.import_module(name)
    sql_layer()
    mathprobe_version()
    _prefect_tls_context()
    for bench in registry.all_benchmarks():
        try:
            bench.load(registry.resolve_data_dir(None))
        except Exception:                 # noqa: BLE001  (no data here: the command says why)
            continue


def _prefect_tls_context() -> None:
    """The verified TLS context every Prefect client of a command would make (44 ms each, four
    to six before a run's first request; mathprobe.flows._prefect_engine keeps one per CA file),
    made here once for every copy to inherit, from the CA file Prefect's client reads."""
    import certifi
    from prefect.settings import PREFECT_API_SSL_CERT_FILE

    from mathprobe.flows._prefect_engine import verified_context

    verified_context(PREFECT_API_SSL_CERT_FILE.value() or certifi.where())


def _preloaded(env: Mapping[str, str]) -> list[str]:
    """The backend modules worth importing ahead: a kind that needs no key (baseline, triton,
    replay, plug-ins without one), and a kind whose key or server variable is set here. Every
    page the runner holds is resident in each copy it forks (a copy's peak memory starts at the
    runner's), and an unused SDK is tens of MB (anthropic's 38 MB). A command for another kind
    imports its SDK itself, in a thread, while its flow starts (cli.common.importing). A kind
    whose extra is not installed is left out (its commands say which extra to install)."""
    from mathprobe import extras
    from mathprobe.backends import registry

    def installed(kind) -> bool:
        modules = kind.extra_modules or (extras.EXTRAS.get(kind.extra, ()) if kind.extra else ())
        return not any(extras.missing(m) for m in modules)

    return [registry.slow_imports()[k.name] for k in registry.kinds() if installed(k) and (
        k.key_env is None or env.get(k.key_env) or (k.endpoint_env and env.get(k.endpoint_env)))]
