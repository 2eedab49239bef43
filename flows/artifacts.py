"""What the `eval` flow shows in the Prefect UI: the run's name, its parameters' descriptions and
choices, a progress artifact while it asks, the report as a Markdown artifact (with the HTML
report beside the DuckDB file), and a final state whose name carries the run id and the
headline figure, which is what `prefect deployment run eval/full --watch` prints last
("Flow run finished successfully in '<state name>'").

Artifact keys carry a hash of the store's path, so runs of the same id in two DuckDB files
never overwrite each other's artifacts.
"""
from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from mathprobe import registry
from mathprobe.store.location import parse

# -- the Run form: choices from the registry, so a new benchmark shows up without an edit ------
# (the descriptions are the flow docstring's Args; values outside the choices still reach the
# flow, which answers them with a clear error)
_SETTINGS = {name: registry.get(name).settings for name in registry.names()}
BenchmarkParam = Annotated[str, Field(json_schema_extra={"enum": list(_SETTINGS)})]
SettingParam = Annotated[str | None, Field(json_schema_extra={
    "enum": [None, *dict.fromkeys(s for ss in _SETTINGS.values() for s in ss)]})]


def flow_run_name() -> str:
    """`{benchmark}:{model}:{run_id}`: the run id is the one the flow will use (its default
    when none is given)."""
    from prefect.runtime import flow_run

    from mathprobe.runs.preflight import default_run_id

    p = flow_run.parameters
    benchmark, model = p.get("benchmark", "?"), p.get("model", "?")
    run_id = p.get("run_id")
    if not run_id:
        try:
            setting = p.get("setting") or registry.get(benchmark).default_setting
        except Exception:                            # an unknown benchmark fails in the flow
            setting = p.get("setting") or "default"
        run_id = default_run_id(benchmark, model, setting)
    return f"{benchmark}:{model}:{run_id}"


def artifact_key(kind: str, run_id: str, db: str) -> str:
    """`{kind}-{run id}-{hash of the store}`: lowercase letters, digits and dashes, as Prefect
    requires, unique per store (a DuckDB file's path, a DuckLake catalog). A run id that is not
    such a key as it stands (capitals, '.', '_', longer than 80) is lowered and its other
    characters made dashes, then a hash of the id itself is added, so 'Run_A' and 'run-a' keep
    artifacts of their own (`key_mapping` says so when the run starts)."""
    tag = hashlib.sha1(parse(db).key.encode()).hexdigest()[:8]
    slug = _slug(run_id)
    if slug != run_id:
        slug += "-" + hashlib.sha1(run_id.encode()).hexdigest()[:6]
    return f"{kind}-{slug}-{tag}"


def _slug(run_id: str) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", run_id.lower()).strip("-")[:80]


def key_mapping(run_id: str, db: str) -> str | None:
    """The line that shows how a run id that is not an artifact key as given is keyed in
    Prefect; None where the key carries it unchanged."""
    if _slug(run_id) == run_id:
        return None
    return (f"run id {run_id!r} is not a Prefect artifact key as it stands (lowercase letters, "
            f"digits and dashes): its artifacts are keyed {artifact_key('report', run_id, db)} "
            f"and {artifact_key('progress', run_id, db)}")


class ProgressArtifact:
    """The run's progress artifact: the share of questions answered, and in its description
    what the requests are doing now (in flight, rate-limited, waiting to retry: a run the
    server holds back shows it there instead of a bar that stops). Created and updated at most
    every `interval` seconds from a thread of its own, over one Prefect client for the run
    (answers arrive on the request loop, which must not wait on the Prefect API, and neither
    must the first request wait for the artifact)."""

    def __init__(self, run_id: str, db: str, total: int, interval: float = 1.0):
        from prefect.utilities.context import get_task_and_flow_run_ids

        from mathprobe.runs import progress

        self.run_id, self.total, self.interval = run_id, total, interval
        self.done = 0
        self.shown: tuple[float, str] | None = None
        self.id = None
        self.key = artifact_key("progress", run_id, db)
        self.activity = progress.activity(run_id)
        self._flow_run_id = get_task_and_flow_run_ids()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"progress-{run_id}", daemon=True)
        self._thread.start()

    def __call__(self, event: str, run_id: str, **data: Any) -> None:
        if event == "done" and run_id == self.run_id:
            self.done += 1

    def description(self) -> str:
        now = self.activity.line()
        return (f"Questions of run {self.run_id} answered so far: {self.done} of {self.total}"
                + (f" · {now}" if now and self.done < self.total else ""))

    def _update(self, client) -> None:
        from prefect.client.schemas.actions import ArtifactCreate, ArtifactUpdate

        shown = (100.0 if self.total == 0 else min(100.0, 100.0 * self.done / self.total),
                 self.description())
        if shown == self.shown:
            return
        if self.id is None:
            self.id = client.create_artifact(ArtifactCreate(
                type="progress", key=self.key, data=shown[0], description=shown[1],
                flow_run_id=self._flow_run_id)).id
        else:
            client.update_artifact(self.id, ArtifactUpdate(data=shown[0], description=shown[1]))
        self.shown = shown

    def _loop(self) -> None:
        from prefect.client.orchestration import get_client

        try:
            with get_client(sync_client=True) as client:
                stop = False                     # (created at once, then updated)
                while True:
                    try:
                        self._update(client)
                    except Exception:            # a hiccup of the API never stops the run
                        pass
                    if stop:
                        return
                    stop = self._stop.wait(self.interval)
        except Exception:                        # no client: the run goes on without it
            pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def html_path(db: str, run_id: str, html_report: str | None) -> Path | None:
    """Where the run's HTML report goes: `html_report`, or with 'auto' beside the store's file
    (a DuckDB file, a DuckLake SQLite catalog: `<stem>-reports/<run id>.html`); None: not
    written (also 'auto' with a PostgreSQL catalog, which has no file to sit beside, and 'auto'
    where the `html` extra is not installed: the deployments' default must not fail a core
    worker's runs; the Markdown report says how to get it). A file named where the extra is
    missing is the extra's one-line error, before any work."""
    from mathprobe import extras

    if not html_report:
        return None
    if html_report == "auto":
        loc = parse(db)
        if (loc.is_lake and loc.catalog != "sqlite") or any(map(extras.missing,
                                                                extras.EXTRAS["html"])):
            return None
        d = Path(loc.target)
        return d.parent / f"{d.stem}-reports" / f"{re.sub(r'[^A-Za-z0-9._-]+', '-', run_id)}.html"
    extras.require("html", f"html_report {html_report}")
    return Path(html_report)


def publish(store, report: dict[str, Any], db: str, html_report: str | None = None):
    """Write the HTML report (if asked), publish the Markdown report artifact, and return the
    flow's final state: Completed, named with the run id and the headline figure, carrying
    the report; or, for a run that did not complete (calls failed for good, --max-cost), Failed
    under a name that says so with its counts and first reason (`final_state`)."""
    from prefect.artifacts import create_markdown_artifact

    from mathprobe.reports import markdown

    run = report["run"]
    path = html_path(db, run["run_id"], html_report)
    if path is not None:
        from mathprobe.reports import html  # matplotlib and jinja: only for the HTML file

        html.write(store, [run["run_id"]], path, grader=report.get("grader"))
    hint = (f"mathprobe report --html {run['run_id']}.html --run-id {run['run_id']} --db {db}")
    text, head = markdown.run_markdown(store, report, html=str(path) if path else None,
                                       html_hint=hint)
    create_markdown_artifact(key=artifact_key("report", run["run_id"], db), markdown=text,
                             description=f"mathprobe report of run {run['run_id']} "
                                         f"({run['benchmark']}, {run['model']})")
    return final_state(report, head)


def final_state(report: dict[str, Any], head: str | None):
    """Completed ('Completed: run R, Score (strict) 14.00% [..], n=525') for a run with every
    answer; otherwise Failed, named 'Incomplete: ...' or 'Stopped: ...' with the counts and the
    first failure reason, which `prefect deployment run --watch` prints."""
    from prefect.states import Completed

    from mathprobe.errors import Exit, run_exit_code
    from mathprobe.flows.common import not_completed

    run = report["run"]
    code = run_exit_code(report)
    if code == Exit.COMPLETED:
        name = f"Completed: run {run['run_id']}" + (f", {head}" if head else "")
        return Completed(name=name[:200], message=name, data=report)
    if code == Exit.STOPPED_BUDGET:
        sampled = run.get("sampled")
        name = (f"Stopped: run {run['run_id']}, --max-cost reached with {run['n_not_asked']} "
                f"of {run['n_items']} items not asked" if not sampled else
                f"Stopped: run {run['run_id']}, --max-cost reached with "
                f"{sampled['n_not_asked']} of {sampled['n_pairs']} answers ({run['samples']} "
                "samples per item) not asked")
        return not_completed(name, name + "; run again with a higher --max-cost to continue",
                             report, code)
    judges = report.get("judges", [])
    failed = run["n_infra_failed"]
    judged = sum(j["n_judge_failed"] + j["n_infra_failed"] for j in judges)
    reasons = report.get("failures") or [f for j in judges for f in j.get("failures", [])]
    first = f" ({reasons[0]['n']} x {reasons[0]['reason']})" if reasons else ""
    cut = run.get("n_truncated") or 0
    counts = ", ".join(part for part in (
        f"{failed} of {run['n_items']} calls failed" if failed else "",
        f"{cut} of {run['n_items']} answers cut at the token cap" if cut else "",
        f"{judged} judge verdicts missing" if judged else "") if part) or run["status"]
    name = f"Incomplete: run {run['run_id']}, {counts}{first}"
    todo = ("re-ask them with a larger --max-tokens" if cut and not (failed or judged) else
            "re-drive the failed with --retry-failed, re-ask the cut with a larger --max-tokens"
            if cut else "re-drive them with --retry-failed")
    return not_completed(name, f"{name}; {todo}", report, code)
