"""The general set mixed into the selected data (`select-data --mix`), as the paper mixes
MetaMathQA to keep the model's general ability: JSON lines, read as a stream, each row turned
into chat turns. A row is either already a chat (`messages`: a list of {role, content}) or a
question and answer under the names the usual sets use: MetaMathQA's `query` / `response`,
`question` / `answer`, `instruction` / `output`, `prompt` / `completion`. Any other row is a
one-line error naming the file, the row and the fields it lacks."""
from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from mathprobe.benchmarks.conceptmath.targeted.corpus import Doc
from mathprobe.errors import MathprobeError

PAIRS = (("query", "response"), ("question", "answer"), ("instruction", "output"),
         ("prompt", "completion"))


def chat_of(row: Any, where: str) -> list[dict[str, str]]:
    """The row's chat turns (see the module's docstring)."""
    if not isinstance(row, dict):
        raise MathprobeError(f"--mix {where}: not a JSON object")
    if "messages" in row:
        turns = row["messages"]
        if (not isinstance(turns, list) or not turns or not all(
                isinstance(t, dict) and isinstance(t.get("role"), str)
                and isinstance(t.get("content"), str) for t in turns)):
            raise MathprobeError(f"--mix {where}, field 'messages': not a list of "
                                 "{role, content} strings")
        return [{"role": t["role"], "content": t["content"]} for t in turns]
    for q, a in PAIRS:
        if isinstance(row.get(q), str) and isinstance(row.get(a), str):
            return [{"role": "user", "content": row[q]}, {"role": "assistant", "content": row[a]}]
    raise MathprobeError(f"--mix {where}: no 'messages' and no question/answer pair ("
                         + ", ".join(f"{q}/{a}" for q, a in PAIRS) + ")")


class read_mix:                      # noqa: N801  (used as a function that keeps a hash)
    """Iterate (chat turns, Doc) over the files; `fingerprint` hashes what was read."""

    def __init__(self, files: Sequence[str]):
        self.files = list(files)
        self._hash = hashlib.blake2b(digest_size=16)

    @property
    def fingerprint(self) -> str:
        return self._hash.hexdigest()

    def __iter__(self) -> Iterator[tuple[list[dict[str, str]], Doc]]:
        for f in self.files:
            if not f.endswith((".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")):
                raise MathprobeError(f"--mix {f}: the general set must be JSON lines "
                                     "(.jsonl, .ndjson, optionally .gz)")
            opener = gzip.open if f.endswith(".gz") else open
            with opener(f, "rt", encoding="utf-8") as fh:
                for row, line in enumerate(fh, 1):
                    if not line.strip():
                        continue
                    self._hash.update(line.encode())
                    where = f"{f}: row {row}"
                    try:
                        data = json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise MathprobeError(f"--mix {where}: not JSON ({exc.msg})") from None
                    turns = chat_of(data, where)
                    ident = data.get("id") if isinstance(data.get("id"), (str, int)) else None
                    yield turns, Doc(str(ident) if ident is not None else f"{Path(f).name}:{row}",
                                     "\n".join(t["content"] for t in turns), f, row)
