"""The team set-up end to end: server, process pool, `prefect deploy`, worker, and
`prefect deployment run eval/full` filling the DuckDB file."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import duckdb
import httpx

from flows.artifacts import artifact_key
from tests.conftest import REPO


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_deployment_run_end_to_end(tmp_path, data_dir):
    port = free_port()
    state = tmp_path / "prefect"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PORT=str(port), STATE_DIR=str(state), PREFECT_HOME=str(state / "home"),
               PREFECT_API_URL=f"http://127.0.0.1:{port}/api",
               PREFECT_SERVER_ANALYTICS_ENABLED="false")
    script = str(REPO / "deploy" / "local.sh")
    prefect = str(Path(sys.executable).with_name("prefect"))
    db = tmp_path / "deployed.duckdb"
    try:
        up = subprocess.run([script, "up"], env=env, capture_output=True, text=True, timeout=240)
        assert up.returncode == 0, up.stdout[-2000:] + up.stderr[-2000:]
        run = subprocess.run(
            [prefect, "deployment", "run", "eval/full", "--param", "model=baseline:random",
             "--param", f"db={db}", "--param", f"data_dir={data_dir}", "--param", "limit=60",
             "--param", "run_id=deployed", "--watch", "--watch-timeout", "240"],
            env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        # --watch ends with the final state's name: the run id and the headline figure
        text = " ".join(run.stdout.split())                  # the console wraps long lines
        tail = text[text.rindex("Flow run finished successfully in"):]
        assert tail.startswith("Flow run finished successfully in 'Completed: run deployed, "
                               "Score (strict) "), tail
        assert tail.endswith(", n=20'."), tail
        api = httpx.Client(base_url=env["PREFECT_API_URL"], timeout=30)
        # the Run form: benchmark and setting are dropdowns, every parameter has a description
        deployment = api.get("/deployments/name/eval/full").json()
        schema = deployment["parameter_openapi_schema"]["properties"]
        assert schema["benchmark"]["enum"] == ["cmmath", "conceptmath", "wemath"]
        assert {"plain", "kca", "zs", "fs", "text+ocr/clp"} <= set(schema["setting"]["enum"])
        assert all(p.get("description") for p in schema.values()), schema
        # the flow run is named after what it evaluates; its artifacts are keyed per store
        (flow_run,) = api.post("/flow_runs/filter", json={
            "flow_runs": {"deployment_id": {"any_": [deployment["id"]]}}}).json()
        assert flow_run["name"] == "wemath:baseline:random:deployed"
        artifacts = {a["key"]: a for a in api.post("/artifacts/filter", json={
            "artifacts": {"flow_run_id": {"any_": [flow_run["id"]]}}}).json()}
        report = artifacts[artifact_key("report", "deployed", str(db))]
        assert report["type"] == "markdown" and "## Metrics" in report["data"]
        html = Path(str(db).replace(".duckdb", "-reports")) / "deployed.html"
        assert html.is_file() and str(html) in report["data"]     # html_report: auto
        assert artifacts[artifact_key("progress", "deployed", str(db))]["data"] == 100.0
    finally:
        subprocess.run([script, "down"], env=env, capture_output=True, timeout=60)
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT status, n_items FROM runs WHERE run_id = 'deployed'"
                           ).fetchall() == [("completed", 60)]
        assert con.execute("SELECT count(*) FROM responses").fetchone() == (60,)
        assert con.execute("SELECT n FROM wemath_four_dimensional WHERE rule = 'strict'"
                           ).fetchall() == [(20,)]
    finally:
        con.close()
