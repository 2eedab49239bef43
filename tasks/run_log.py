"""What the flows and their tasks say in the Prefect log about a run, and which flow run they
are part of."""
from __future__ import annotations

import threading
from typing import Any

from prefect import get_run_logger

from mathprobe.runs import progress
from mathprobe.runs.progress import SHOWN


class LogProgress:
    """Progress in the Prefect log, from the pipeline's events of run `run_id`: notes (what a
    --limit subset is), a line every tenth of the work, the first failures, a stop."""

    MAX_FAILURES_LOGGED = 20

    def __init__(self, run_id: str):
        self.run_id, self.total, self.step = run_id, 0, 1
        self.counts: dict[str, int] = {}
        self.logger = get_run_logger()
        self._lock = threading.Lock()

    def __call__(self, event: str, run_id: str, **data: Any) -> None:
        if run_id != self.run_id:
            return
        if event == "note":                    # the command line's bar prints these itself
            self.logger.info("%s", data["message"], extra=SHOWN)
        elif event == "start":
            self.total, self.step = data["total"], max(1, data["total"] // 10)
        elif event == "stopped":
            self.logger.warning("%s", data["reason"], extra=SHOWN)
        elif event == "done":
            self._done(data)

    def _done(self, data: dict[str, Any]) -> None:
        with self._lock:
            self.counts[data["status"]] = self.counts.get(data["status"], 0) + 1
            failed = self.counts.get("infra_failed", 0)
            if data["status"] == "infra_failed" and failed <= self.MAX_FAILURES_LOGGED:
                self.logger.warning("%s failed: %s%s", data.get("item_id"), data.get("error"),
                                    " (further failures are counted, not listed)"
                                    if failed == self.MAX_FAILURES_LOGGED else "")
            done = sum(self.counts.values())
            if done % self.step == 0 or done == self.total:
                now = progress.activity(self.run_id).line()
                self.logger.info("%d/%d asked: %s%s", done, self.total,
                                 ", ".join(f"{v} {k}" for k, v in sorted(self.counts.items())),
                                 f" ({now})" if now else "")

    def __enter__(self) -> LogProgress:
        progress.subscribe(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        progress.unsubscribe(self)


def current_flow_run_id() -> str | None:
    from prefect.runtime import flow_run

    fid = flow_run.id
    return str(fid) if fid else None
