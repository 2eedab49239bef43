"""`replay:<file>`: answers from a response file produced elsewhere, through the live pipeline.

The file is JSON or JSONL rows with a `response` and either `item_id` or the benchmark's own
id fields (WE-MATH `ID` + `key`). An item the file has no row for is answered `missing`.
"""
from __future__ import annotations

from pathlib import Path

from mathprobe.backends.registry import BackendKind, Settings
from mathprobe.errors import DataError
from mathprobe.files import read_records
from mathprobe.items import Completion, Request


def _row_id(row: dict) -> str | None:
    if isinstance(row.get("item_id"), str):
        return row["item_id"]
    if isinstance(row.get("ID"), str) and isinstance(row.get("key"), str):
        return f"{row['ID']}/{row['key']}"
    return None


class Replay:
    kind = "replay"

    def __init__(self, path: str):
        self.model = path
        file = Path(path)
        if not file.is_file():
            raise DataError(file, "replay file not found")
        self.responses: dict[str, str | None] = {}
        for n, row in read_records(file):
            iid = _row_id(row) if isinstance(row, dict) else None
            if iid is None:
                raise DataError(file, "no item_id (or ID and key)", row=n, field="item_id")
            response = row.get("response")
            if response is not None and not isinstance(response, str):
                raise DataError(file, "expected a string", row=n, field="response", item=iid)
            self.responses[iid] = response

    async def complete(self, request: Request) -> Completion:
        if request.item_id not in self.responses or self.responses[request.item_id] is None:
            return Completion(text=None, status="missing", attempts=0,
                              error="no response in the replay file")
        return Completion(text=self.responses[request.item_id], attempts=0, latency_s=0.0)

    async def aclose(self) -> None:
        return None


def make(model: str, settings: Settings) -> Replay:
    return Replay(model)


def _check(name: str) -> str | None:
    return None if Path(name).expanduser().is_file() else f"replay file {name} not found"


BACKEND = BackendKind(name="replay", usage="replay:FILE", help="answers from a response file",
                      factory=make, check=_check, concurrency=1024, rank=4, repeats="none")
