"""Arith: one-line arithmetic word problems, a benchmark written outside mathprobe.

Everything a benchmark needs, in one package: its data (`<data dir>/arith/problems.jsonl`, one
{"id", "question", "answer", "topic"} object per line), two prompt settings, a grader (the last
number of the response), its result format, its figures declared once (`FIGURES`: every report
mathprobe makes draws them) and its SQL file (a view per topic, and the rows its figures are
computed from).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from mathprobe.contract import Benchmark, Dataset, Grade, fingerprint
from mathprobe.errors import DataError
from mathprobe.figures import Each, Figures, Plot, Stat, Table
from mathprobe.files import read_jsonl, read_result_rows, response_text
from mathprobe.items import Item

NUMBER_RE = re.compile(r"-?\d+(?:\.\d+)?")


# Its figures, declared once: the terminal report, `report --json`, `compare` (JSON, CSV), the
# eval flow's Markdown artifact and the HTML report are all drawn from this by mathprobe.
FIGURES = Figures(
    units="arith_figure_units",
    tables=(Table("accuracy", "Arith accuracy", (Stat("all", "All problems", ("all",)),)),
            Table("topics", "Arith accuracy by topic", (Each("topic:"),),
                  note="right answers / problems answered, per topic")),
    plots=(Plot("arith-topics", "Arith accuracy by topic", "bars",
                (("All", "all"), Each("topic:")), ylabel="accuracy"),),
    headline=("all", "Arith accuracy"),
    weakest=("topics",),
    glossary=(("Arith accuracy", "Right answers / problems answered: the last number of the "
               "response equals the answer."),),
)


class Arith(Benchmark):
    name = "arith"
    title = "Arith"
    settings = ("plain", "terse")
    default_setting = "plain"
    default_params = {"temperature": 0.0, "max_tokens": 64}
    graders = ("last_number",)
    figures = FIGURES

    def load(self, data_dir: Path) -> Dataset:
        path = Path(data_dir) / self.name / "problems.jsonl"
        items = []
        for n, row in read_jsonl(path):
            for field in ("id", "question", "topic"):
                if not isinstance(row.get(field), str) or not row[field]:
                    raise DataError(path, "missing or not a string", row=n, field=field)
            if not isinstance(row.get("answer"), (int, float)):
                raise DataError(path, "missing or not a number", row=n, field="answer")
            items.append(Item(benchmark=self.name, item_id=row["id"], question=row["question"],
                              gold=str(row["answer"]), concept=row["topic"], payload=row))
        return Dataset(items=tuple(items), fingerprint=fingerprint(path))

    def select(self, items, limit: int | None) -> list[Item]:
        return list(items)[:limit] if limit is not None else list(items)

    def sql_files(self) -> list[Path]:
        return [Path(__file__).with_name("arith.sql")]

    def prompt(self, item: Item, setting: str) -> str:
        if setting == "plain":
            return f"Solve: {item.question}\nEnd with 'The answer is N.'"
        if setting == "terse":
            return f"{item.question} Answer with a number only."
        raise ValueError(f"unknown Arith setting {setting!r}")

    def grade(self, grader: str, item: Item, response: str | None) -> Grade:
        numbers = NUMBER_RE.findall(response or "")
        if not numbers:
            return None, False
        return numbers[-1], float(numbers[-1]) == float(item.gold)

    def read_official_results(self, path: Path, dataset: Dataset) -> list[tuple[Item, str | None]]:
        known = dataset.by_id()
        out = []
        for n, row in read_result_rows(path):
            item = known.get(row.get("id"))
            if item is None:
                raise DataError(path, "no such problem", row=n, field="id")
            out.append((item, response_text(path, n, row, item.item_id)))
        return out


def write_sample_data(data_dir: Path) -> Path:
    """A tiny data set: 12 problems over three topics."""
    rows = []
    for k in range(12):
        a, b = 3 + k, 2 * k + 1
        topic, op, answer = [("addition", "+", a + b), ("subtraction", "-", a - b),
                             ("multiplication", "*", a * b)][k % 3]
        rows.append({"id": f"p{k:02d}", "question": f"What is {a} {op} {b}?",
                     "answer": answer, "topic": topic})
    path = Path(data_dir) / "arith" / "problems.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path
