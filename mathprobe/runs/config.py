"""What the eval flow hands each of its Prefect tasks: one run's settings, checked by preflight
(mathprobe/runs/preflight.py) before the flow builds it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RunConfig:
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
