"""Bad input on the command line: exit status 2, one `error:` line that names what is wrong, no
traceback (unless --debug), and nothing of Prefect imported: the checks come before it (how
long they take is measured by perf/cli_errors.py, not asserted here)."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from mathprobe import registry
from mathprobe.runs import import_official
from mathprobe.store import RunSpec, close_all, open_store
from tests.conftest import REPO
from tests.support.cli import each_one_error_line, run_driver


@pytest.fixture
def bad_data(tmp_path, data_dir):
    """A WE-MATH data dir whose testmini.json has a Latin-1 byte in row 2's question."""
    root = tmp_path / "data"
    (root / "wemath").mkdir(parents=True)
    for f in (data_dir / "wemath").iterdir():
        if f.name != "testmini.json":
            (root / "wemath" / f.name).symlink_to(f)
    rows = json.loads((data_dir / "wemath" / "testmini.json").read_text())[:3]
    rows[1]["question"] = "MARK " + rows[1]["question"]
    text = json.dumps(rows, ensure_ascii=False, indent=1).encode()
    at = text.index(b"MARK")
    (root / "wemath" / "testmini.json").write_bytes(text[:at] + b"\xe9" + text[at:])
    return root


def test_bad_input_is_one_error_line_before_prefect(tmp_path, data_dir, bad_data):
    db = tmp_path / "runs.duckdb"
    store = open_store(db)                       # a run 'x' (plain setting) to clash with
    store.start_run(RunSpec("x", "wemath", "baseline:random", "baseline", "plain",
                            {"temperature": 0.0, "max_tokens": 1024, "seed": 0}), n_items=3)
    rows = json.loads((data_dir / "wemath" / "testmini.json").read_text())   # a graded run 'g'
    problem = [dict(r, response="<Answer>: <<A>>") for r in rows if r["ID"] == rows[0]["ID"]]
    (tmp_path / "g.json").write_text(json.dumps(problem))
    import_official(store, registry.get("wemath"), data_dir, tmp_path / "g.json", "g")
    close_all()
    html = tmp_path / "report.html"
    nowhere = tmp_path / "no-such-folder"
    run = ["run", "--benchmark", "wemath", "--model", "baseline:random", "--db", str(db),
           "--data-dir", str(data_dir)]
    ok_run = run + ["--run-id", "r"]
    cases = {   # expected fragment of the error line -> arguments
        "--benchmark 'wemth': unknown benchmark (did you mean wemath?)":
            ["run", "--benchmark", "wemth", "--model", "baseline:random", "--run-id", "r",
             "--db", str(db)],
        "--model 'nosuch:x': unknown backend 'nosuch' (available: baseline:random, "
        "openai:MODEL, anthropic:MODEL, triton:MODEL, replay:FILE)":
            ok_run[:4] + ["nosuch:x"] + ok_run[5:],
        "--model 'baseline:clever': the only baseline is baseline:random":
            ok_run[:4] + ["baseline:clever"] + ok_run[5:],
        "--model 'openai': expected BACKEND:NAME": ok_run[:4] + ["openai"] + ok_run[5:],
        "--model 'openai:gpt-4o': no API key: set OPENAI_API_KEY, or create a Prefect Secret "
        "block named 'openai-api-key'": ok_run[:4] + ["openai:gpt-4o"] + ok_run[5:],
        "replay file /no/such.json not found": ok_run[:4] + ["replay:/no/such.json"] + ok_run[5:],
        "--limit -5: must be at least 1": ok_run + ["--limit", "-5"],
        "--limit 0: must be at least 1": ok_run + ["--limit", "0"],
        "--concurrency 0: must be at least 1": ok_run + ["--concurrency", "0"],
        "--concurrency -3: must be at least 1": ok_run + ["--concurrency", "-3"],
        "--max-cost 0.0: must be above 0": ok_run + ["--max-cost", "0"],
        "--max-tokens 0: must be at least 1": ok_run + ["--max-tokens", "0"],
        "--temperature -1.0: must be at least 0": ok_run + ["--temperature", "-1"],
        "--request-timeout 0.0: must be above 0": ok_run + ["--request-timeout", "0"],
        "--run-id '': empty": run + ["--run-id", ""],
        "--setting 'cot': wemath has plain, kca": ok_run + ["--setting", "cot"],
        "--judge: this benchmark's judge takes no options (got prompt)":
            ok_run + ["--judge", "openai:x#prompt=gradegpt"],
        "--judge 'openai:x#repeat=0': repeat='0'; give a whole number >= 1":
            ok_run + ["--judge", "openai:x#repeat=0"],
        f"data directory {tmp_path / 'nowhere'} (from --data-dir) does not exist":
            run[:-1] + [str(tmp_path / "nowhere"), "--run-id", "r"],
        "knowledge_structure_nodes.json: file not found (is --data-dir / MATHPROBE_DATA_DIR "
        "right?)": run[:-1] + [str(tmp_path), "--run-id", "r"],
        "testmini.json: row 2: field 'question': not valid UTF-8: byte 0xe9":
            run[:-1] + [str(bad_data), "--run-id", "r"],
        "run id 'x' already holds other work: it has setting=plain; this call asks for "
        "setting=kca. Use another --run-id": run + ["--run-id", "x", "--setting", "kca"],
        f"--db {tmp_path}: is a directory": ["run", "--benchmark", "wemath", "--model",
                                             "baseline:random", "--run-id", "r", "--db",
                                             str(tmp_path)],
        "Invalid value for '--limit'": ok_run + ["--limit", "abc"],
        "Missing option '--run-id'": run,
        "No such command 'rnu'": ["rnu"],
        "nope.duckdb: no such DuckDB file": ["report", "--run-id", "x", "--db",
                                             str(tmp_path / "nope.duckdb")],
        "--method 'rogue': conceptmath's contamination probes are rouge, mink or both":
            ["contamination", "--model", "baseline:random", "--db", str(db), "--method",
             "rogue"],
        "--limit -1: must be at least 1": ["classify", "--model", "baseline:random", "--db",
                                           str(db), "--limit", "-1"],
        # names checked against what exists, listing what does
        "--grader 'oficial': not a grader of run g (wemath); did you mean official?; its "
        "graders: official": ["report", "--run-id", "g", "--db", str(db), "--grader", "oficial"],
        "--grader 'strict': not a grader of run g (wemath); its graders: official":
            ["report", "--run-id", "g", "--db", str(db), "--grader", "strict"],   # ConceptMath's
        "--grader 'oficial': not a grader of run g": ["compare", "--db", str(db), "g",
                                                      "--grader", "oficial"],
        "--grader 'oficial': not a grader of run g ": ["report", "--db", str(db), "--html",
                                                       str(html), "--run-id", "g", "--grader",
                                                       "oficial"],
        "--benchmark 'wemth': unknown benchmark (did you mean wemath?); available: cmmath, "
        "conceptmath, wemath": ["compare", "--db", str(db), "--benchmark", "wemth"],
        "--benchmark 'wemath': no contamination probe; benchmarks with one: conceptmath":
            ["contamination", "--model", "baseline:random", "--db", str(db), "--benchmark",
             "wemath"],
        "--benchmark 'wemath': no judge audit; benchmarks with one: cmmath":
            ["judge-audit", "--db", str(db), "--benchmark", "wemath"],
        "--run-id 'my run/1': ' ' '/' cannot be in a file name or a Prefect artifact key; use "
        "letters, digits, '.', '_' and '-', e.g. 'my-run-1'": run + ["--run-id", "my run/1"],
        "--run-id 'a:b': ':' cannot be": ["import", str(tmp_path / "g.json"), "--benchmark",
                                          "wemath", "--run-id", "a:b", "--db", str(db)],
        "--run-id '.hidden': must not start with '.'": run + ["--run-id", ".hidden"],
        # a store in a folder that does not exist is refused, not created
        f"--db {nowhere / 'runs.duckdb'}: the folder {nowhere} does not exist":
            run[:6] + [str(nowhere / "runs.duckdb"), "--run-id", "r"],
        f"--db {nowhere / 'i.duckdb'}: the folder {nowhere} does not exist":
            ["import", str(tmp_path / "g.json"), "--benchmark", "wemath", "--run-id", "i",
             "--db", str(nowhere / "i.duckdb")],
        f"--db {nowhere / 'c.duckdb'}: the folder {nowhere} does not exist":
            ["store", "copy", str(db), str(nowhere / "c.duckdb")],
    }
    env = {k: v for k, v in __import__("os").environ.items()
           if not k.startswith(("OPENAI", "ANTHROPIC", "PREFECT_API"))}
    env.update(MATHPROBE_DATA_DIR=str(data_dir), PREFECT_HOME=str(tmp_path / "prefect-home"))
    each_one_error_line(cases, run_driver(list(cases.values()), env))
    assert not db.with_name("runs.duckdb.wal").exists()       # nothing was written
    assert not nowhere.exists() and not html.exists()

    # --debug (anywhere on the line) adds the traceback
    debug = run_driver([ok_run + ["--limit", "0", "--debug"]], env)[0]
    assert debug["code"] == 2 and "Traceback" in debug["stderr"]
    assert debug["stderr"].rstrip().splitlines()[-1].startswith("error: --limit 0")
    # ... and so does the documented variable, MATHPROBE_DEBUG=1; MATHPROBE_DEBUG=0 does not
    debug = run_driver([ok_run + ["--limit", "0"]], {**env, "MATHPROBE_DEBUG": "1"})[0]
    assert debug["code"] == 2 and "Traceback" in debug["stderr"]
    quiet = run_driver([ok_run + ["--limit", "0"]], {**env, "MATHPROBE_DEBUG": "0"})[0]
    assert quiet["code"] == 2 and "Traceback" not in quiet["stderr"]


def test_sql_on_a_store_another_process_is_writing(tmp_path):
    db = tmp_path / "busy.duckdb"
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; "
                               f"c = duckdb.connect({str(db)!r}); c.execute('CREATE TABLE t (a INT)'); "
                               "print('ready', flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        for args in (["sql", "--db", str(db), "SELECT 1"],
                     ["report", "--run-id", "x", "--db", str(db)]):
            started = time.time()
            done = subprocess.run([sys.executable, "-m", "mathprobe.cli.main", *args], cwd=REPO,
                                  capture_output=True, text=True, timeout=60)
            assert done.returncode == 2, done.stderr
            lines = done.stderr.strip().splitlines()
            assert len(lines) == 1 and "Traceback" not in done.stderr
            assert lines[0] == (f"error: {db} is open for writing in another process (PID "
                                f"{holder.pid}): wait until it finishes (DuckDB admits one "
                                "writer per file and no reader beside it)")
            assert time.time() - started < 60
    finally:
        holder.kill()
        holder.wait()


def test_version_and_the_choices_in_help():
    from importlib.metadata import version

    done = subprocess.run([sys.executable, "-m", "mathprobe.cli.main", "--version"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, f"mathprobe {version('mathprobe')}")
    top = subprocess.run([sys.executable, "-m", "mathprobe.cli.main", "--help"], cwd=REPO,
                         capture_output=True, text=True, timeout=60, env={
                             **__import__("os").environ, "COLUMNS": "200"})
    for code in ("0 completed", "2 user error", "3 incomplete", "4 stopped by --max-cost",
                 "5 the store could not be written", "130 interrupted"):
        assert code in " ".join(top.stdout.split())
    run = subprocess.run([sys.executable, "-m", "mathprobe.cli.main", "run", "--help"], cwd=REPO,
                         capture_output=True, text=True, timeout=60,
                         env={**__import__("os").environ, "COLUMNS": "200"})
    text = " ".join(run.stdout.split())
    for choice in ("One of: cmmath, conceptmath, wemath", "baseline:random", "openai:MODEL",
                   "anthropic:MODEL", "triton:MODEL", "replay:FILE", "wemath: plain, kca",
                   "conceptmath: zs, zs-cot, fs", "text+ocr/clp", "seeded stratified sample"):
        assert choice in text, choice


@pytest.fixture
def read_only_store(tmp_path, data_dir):
    """A store with a run, on a file system mounted read-only (a real tmpfs); None where
    mounting is not allowed."""
    disk = tmp_path / "ro"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", disk],
                      capture_output=True).returncode != 0:
        yield None
        return
    try:
        store = open_store(disk / "runs.duckdb")
        store.start_run(RunSpec("ro", "wemath", "baseline:random", "baseline", "plain", {}),
                        n_items=0)
        close_all()
        assert subprocess.run(["mount", "-o", "remount,ro", disk]).returncode == 0
        yield disk
    finally:
        close_all()
        subprocess.run(["umount", "-l", disk], capture_output=True)


def test_bad_numbers_and_unwritable_paths_exit_2_at_once(tmp_path, data_dir, read_only_store):
    """A number no user means (inf, nan, out of range) and an output path that cannot be
    written are one `error:` line and exit status 2, before any work and before Prefect,
    each within 2 s: `--temperature inf` and `--request-timeout inf` passed and every call then
    failed as an infrastructure fault; `report --html` to a directory or a read-only path
    ended in a 44-line traceback after building the report; a store on a read-only mount was
    found only once Prefect had started (11.7 s); `import` of a missing file left an empty
    store behind; a SQLite file as --db made DuckDB download an extension."""
    db = tmp_path / "runs.duckdb"
    store = open_store(db)
    store.start_run(RunSpec("x", "wemath", "baseline:random", "baseline", "plain", {}), n_items=0)
    close_all()
    sqlite = tmp_path / "other.sqlite"
    import sqlite3
    with sqlite3.connect(sqlite) as con:
        con.execute("CREATE TABLE t (a)")
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    run = ["run", "--benchmark", "wemath", "--model", "baseline:random", "--run-id", "r",
           "--db", str(tmp_path / "new.duckdb"), "--data-dir", str(data_dir)]
    report = ["report", "--db", str(db), "--run-id", "x"]
    cases = {
        "--temperature inf: must be a finite number": run + ["--temperature", "inf"],
        "--temperature nan: must be a finite number": run + ["--temperature", "nan"],
        "--temperature 5.0: must be at most 2": run + ["--temperature", "5"],
        "--request-timeout inf: must be a finite number": run + ["--request-timeout", "inf"],
        "--request-timeout 1000000.0: must be at most 86400": run + ["--request-timeout", "1e6"],
        "--max-cost inf: must be a finite number": run + ["--max-cost", "inf"],
        "--max-cost nan: must be a finite number": run + ["--max-cost", "nan"],
        "--concurrency 100000: must be at most 4096": run + ["--concurrency", "100000"],
        "--max-tokens 99999999: must be at most 1000000": run + ["--max-tokens", "99999999"],
        "--concurrency 0: must be at least 1":
            ["classify", "--model", "baseline:random", "--db", str(db), "--concurrency", "0"],
        "--resamples 99999999: must be at most 1000000":
            ["compare", "--db", str(db), "x", "--resamples", "99999999"],
        "--seed -1: must be at least 0": ["compare", "--db", str(db), "x", "--seed", "-1"],
        "--port 70000: must be at most 65535": ["server", "start", "--port", "70000"],
        "--port 0: must be at least 1": ["server", "start", "--port", "0"],
        f"--html {tmp_path}: is a directory": report + ["--html", str(tmp_path)],
        f"--html {a_file / 'r.html'}: {a_file} is not a folder":
            report + ["--html", str(a_file / "r.html")],
        f"--figures {a_file}: is a file, not a folder":
            report + ["--html", str(tmp_path / "r.html"), "--figures", str(a_file)],
        f"--csv {tmp_path}: is a directory": ["compare", "--db", str(db), "x", "--csv",
                                              str(tmp_path)],
        f"{sqlite}: not a DuckDB file (a SQLite database)": run[:7] + ["--db", str(sqlite)],
        f"{tmp_path / 'missing.json'}: no such file":
            ["import", str(tmp_path / "missing.json"), "--benchmark", "wemath", "--run-id", "i",
             "--db", str(tmp_path / "imported.duckdb"), "--data-dir", str(data_dir)],
        f"--db {tmp_path}: is a directory": ["store", "copy", str(db), str(tmp_path)],
    }
    if read_only_store is not None:
        ro = read_only_store
        cases.update({
            "is on a read-only file system": run[:7] + ["--db", str(ro / "runs.duckdb")],
            f"--html {ro / 'r.html'}: {ro} is on a read-only file system":
                ["report", "--db", str(ro / "runs.duckdb"), "--run-id", "ro", "--html",
                 str(ro / "r.html")],
        })
    env = {k: v for k, v in __import__("os").environ.items()
           if not k.startswith(("OPENAI", "ANTHROPIC", "PREFECT_API"))}
    env.update(MATHPROBE_DATA_DIR=str(data_dir), PREFECT_HOME=str(tmp_path / "prefect-home"),
               MATHPROBE_STATE_DIR=str(tmp_path / "state"))
    results = run_driver(list(cases.values()), env)
    each_one_error_line(cases, results)
    for args, got in zip(cases.values(), results):
        assert got["seconds"] < 2, (args, got["seconds"])
    assert not (tmp_path / "imported.duckdb").exists()          # no empty store left behind
    assert not (tmp_path / "new.duckdb").exists()


@pytest.mark.skipif(not __import__("shutil").which("strace"), reason="needs strace")
def test_a_sqlite_file_as_db_makes_no_network_attempt(tmp_path, data_dir):
    """DuckDB, handed a SQLite file, tried to download its SQLite extension from the internet
    (DNS lookups, then a connection); every connection now has extension auto-install and
    auto-load off, and the file is named for what it is. strace sees every connect(2)."""
    import sqlite3

    sqlite = tmp_path / "other.sqlite"
    with sqlite3.connect(sqlite) as con:
        con.execute("CREATE TABLE t (a)")
    trace = tmp_path / "connects"
    done = subprocess.run(
        ["strace", "-f", "-qq", "-e", "trace=connect", "-o", str(trace), sys.executable, "-m",
         "mathprobe", "run", "--benchmark", "wemath", "--model", "baseline:random", "--run-id",
         "r", "--db", str(sqlite), "--data-dir", str(data_dir)], cwd=REPO, capture_output=True,
        text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "not a DuckDB file (a SQLite database)" in done.stderr
    reached = [line for line in trace.read_text().splitlines()
               if "connect(" in line and "AF_UNIX" not in line]
    assert reached == [], reached
