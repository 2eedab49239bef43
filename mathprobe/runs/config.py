"""What the eval flow hands each of its Prefect tasks: one run's settings, checked by preflight
(mathprobe/runs/preflight.py) before the flow builds it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mathprobe.backends import Backend, get_backend


@dataclass(frozen=True)
class RunConfig:
    """A run's settings; `backend` makes its model's client (one per run: its shards share it,
    `mathprobe.runs.runtime.backend`)."""
    benchmark: str
    model: str
    setting: str
    run_id: str
    db: str
    data_dir: str
    params: dict[str, Any]
    concurrency: int | None
    request_timeout: float | None = None
    triton_url: str | None = None
    max_cost: float | None = None
    judge: str | None = None
    batch: bool = False              # through the service's batch API (docs/batches.md)
    samples: int | None = None       # answers asked of each item (--samples K, docs/sampling.md;
    #                                  None: the run's own, 1 for a new run)

    def backend(self) -> Backend:
        return get_backend(self.model, seed=self.params.get("seed", 0), setting=self.setting,
                           timeout_s=self.request_timeout, triton_url=self.triton_url)
