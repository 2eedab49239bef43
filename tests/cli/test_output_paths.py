"""An output path never destroys what the command reads: `report --html`, `compare --csv` /
`--parquet`, `card --out`, `export --out` and `sql "COPY ... TO"` aimed at the store, one of its
sidecar files (WAL, spool), the same file under another name (a hard link, a symbolic link) or
a lake's catalog and data folder exit 2 in one line, and the store is byte for byte as it was.
An export into a folder holding another run's export is refused unless --replace."""
from __future__ import annotations

import hashlib
import json
import os
import shutil

import pytest

from mathprobe import registry
from mathprobe.runs import import_official
from mathprobe.store import close_all, open_store
from tests.cli.test_errors import run_driver


def cli_env() -> dict[str, str]:
    """These commands start no flow: no Prefect API is needed."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}


def _digest(*paths) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture
def two_runs(tmp_path, data_dir):
    """A store with two imported WE-MATH runs ('a' right, 'b' wrong), one problem each."""
    db = tmp_path / "smoke.duckdb"
    rows = json.loads((data_dir / "wemath" / "testmini.json").read_text())
    problem = [r for r in rows if r["ID"] == rows[0]["ID"]]
    store = open_store(db)
    for run_id, letter in (("a", None), ("b", "Z")):
        answered = [dict(r, response=f"<Answer>: <<{letter or r['answer']}>>") for r in problem]
        (tmp_path / f"{run_id}.json").write_text(json.dumps(answered))
        import_official(store, registry.get("wemath"), data_dir, tmp_path / f"{run_id}.json",
                        run_id)
    close_all()
    return db


def test_outputs_aimed_at_the_store_are_refused_and_the_store_is_intact(tmp_path, two_runs,
                                                                        data_dir):
    db = two_runs
    before = _digest(db)
    (tmp_path / "alias.duckdb").symlink_to(db)
    os.link(db, tmp_path / "hardlink.html")
    spool = tmp_path / "smoke.duckdb.spool.jsonl"
    # a copy of the data folder to aim at: were the check ever lost, the shared data is safe
    copy = tmp_path / "data"
    (copy / "wemath").mkdir(parents=True)
    for f in (data_dir / "wemath").iterdir():
        if f.is_file():
            shutil.copyfile(f, copy / "wemath" / f.name)
        else:
            (copy / "wemath" / f.name).symlink_to(f)
    data_before = _digest(copy / "wemath" / "testmini.json")
    d = ["--db", str(db)]
    cases = {
        "is the store smoke.duckdb": ["report", *d, "--run-id", "a", "--html", str(db)],
        "is the store's write-ahead log": ["report", *d, "--run-id", "a", "--html",
                                           f"{db}.wal"],
        "is the same file as the store": ["report", *d, "--run-id", "a", "--html",
                                          str(tmp_path / "hardlink.html")],
        "--csv": ["compare", *d, "a", "b", "--csv", str(tmp_path / "alias.duckdb")],
        "--parquet": ["compare", *d, "a", "b", "--parquet", str(db)],
        "--out": ["card", "a", *d, "--out", str(db)],
        "sql: COPY ... TO": ["sql", f"COPY (FROM runs) TO '{db}' (FORMAT csv)", *d],
        "spool of answers": ["sql", f"COPY runs TO '{spool}'", *d],
        "benchmark data folder": ["report", *d, "--run-id", "a", "--data-dir", str(copy),
                                  "--html", str(copy / "wemath" / "testmini.json")],
    }
    results = run_driver(list(cases.values()), cli_env())
    for (fragment, args), got in zip(cases.items(), results):
        errors = [line for line in got["stderr"].splitlines() if line.startswith("error:")]
        assert got["code"] == 2, (args, got["stderr"])
        assert len(errors) == 1 and fragment in errors[0], (args, got["stderr"])
        assert "Traceback" not in got["stderr"]
    assert _digest(db) == before
    assert _digest(copy / "wemath" / "testmini.json") == data_before
    assert not spool.exists()
    store = open_store(db, read_only=True)
    assert {r for (r,) in store.query("SELECT run_id FROM runs")} == {"a", "b"}
    close_all()
    # a read in a COPY is no target: the file it writes is elsewhere, and it is written
    ok = run_driver([["sql", f"COPY (SELECT count(*) AS n FROM runs) TO "
                      f"'{tmp_path / 'n.csv'}' (FORMAT csv)", *d]], cli_env())[0]
    assert ok["code"] == 0, ok["stderr"]
    assert (tmp_path / "n.csv").read_text().split() == ["n", "2"]


def test_a_lake_catalog_and_data_folder_are_refused(tmp_path, two_runs):
    from mathprobe.store.copy import copy_runs
    from mathprobe.store.location import parse

    lake = tmp_path / "lake.sqlite"
    copy_runs(parse(two_runs), open_store(f"ducklake:sqlite:{lake}"))
    close_all()
    files = tmp_path / "lake.sqlite.files"
    parquet = next(files.rglob("*.parquet"))
    before = _digest(lake, parquet)
    d = ["--db", f"ducklake:sqlite:{lake}"]
    cases = {
        "is the lake's catalog lake.sqlite": ["report", *d, "--run-id", "a", "--html",
                                              str(lake)],
        "the lake's data folder": ["sql", f"COPY (FROM runs) TO '{parquet}' (FORMAT parquet)",
                                   *d],
        "the lake catalog's write-ahead log": ["compare", *d, "a", "--csv", f"{lake}-wal"],
    }
    results = run_driver(list(cases.values()), cli_env())
    for (fragment, args), got in zip(cases.items(), results):
        assert got["code"] == 2 and fragment in got["stderr"], (args, got["stderr"])
    assert _digest(lake, parquet) == before


def test_export_keeps_one_run_per_folder_unless_told_to_replace(tmp_path, two_runs, data_dir):
    db, out = two_runs, tmp_path / "submission"
    export = ["export", "--db", str(db), "--format", "leaderboard", "--out", str(out),
              "--data-dir", str(data_dir)]
    first, second = run_driver([["export", "a", *export[1:]], ["export", "b", *export[1:]]],
                               cli_env())
    assert first["code"] == 0, first["stderr"]
    assert second["code"] == 2 and "holds the export of run(s) a" in second["stderr"]
    a_files = sorted(p.name for p in out.iterdir())
    assert "a.json" in a_files and "four_dimensional_metrics.csv" in a_files
    # the refused export touched nothing: a's scores are still a's (all right: CM 100%)
    assert "100.00%" in (out / "four_dimensional_metrics.csv").read_text()
    again, replaced = run_driver([["export", "a", *export[1:]],
                                  ["export", "b", *export[1:], "--replace"]], cli_env())
    assert again["code"] == 0, again["stderr"]            # the same run again: fine
    assert replaced["code"] == 0, replaced["stderr"]
    names = sorted(p.name for p in out.iterdir())
    assert "a.json" not in names and "a.card.json" not in names and "b.json" in names
    assert json.loads((out / "mathprobe-export.json").read_text())["run_id"] == "b"
    assert "100.00%" not in (out / "four_dimensional_metrics.csv").read_text()
    assert not [p for p in out.iterdir() if p.name.startswith(".mathprobe-export-")]
    # a file of the export that is the store under another name: refused before any move
    other = tmp_path / "other"
    other.mkdir()
    os.link(db, other / "four_dimensional_metrics.csv")
    before = _digest(db)
    got = run_driver([["export", "a", *export[1:-4], "--out", str(other), "--data-dir",
                       str(data_dir)]], cli_env())[0]
    assert got["code"] == 2 and "is the same file as the store" in got["stderr"], got["stderr"]
    assert _digest(db) == before
