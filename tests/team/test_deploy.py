"""(e) The documented deploy command, as a user types it, gives a deployment that runs."""
from __future__ import annotations

import subprocess

import duckdb
import httpx

from mathprobe.flows.artifacts import artifact_key
from tests.conftest import REPO
from tests.team.conftest import BIN


# ~20-45 s: `prefect deploy` (a process), then a worker starts the flow run as a process of its
# own (Python, Prefect, the flow) and the run goes through the team server.
def test_plain_prefect_deploy_then_deployment_run_completes(team, tmp_path, data_dir):
    deployed = team.run(str(BIN / "prefect"), "--no-prompt", "deploy", "--prefect-file",
                        "deploy/prefect.yaml", "--all", cwd=REPO)
    assert deployed.returncode == 0, deployed.stdout[-2000:] + deployed.stderr[-2000:]
    db = tmp_path / "deployed.duckdb"
    run = team.run(str(BIN / "prefect"), "deployment", "run", "eval/full",
                   "--param", "model=baseline:random", "--param", f"db={db}",
                   "--param", f"data_dir={data_dir}", "--param", "limit=60",
                   "--param", "run_id=deployed", "--watch", "--watch-timeout", "180",
                   cwd=tmp_path, timeout=240)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    # --watch ends with the final state's name: the run id and the headline figure
    text = " ".join(run.stdout.split())                  # the console wraps long lines
    tail = text[text.rindex("Flow run finished successfully in"):]
    assert tail.startswith("Flow run finished successfully in 'Completed: run deployed, "
                           "Score (strict) "), tail
    assert tail.endswith(", n=18'."), tail
    api = httpx.Client(base_url=team.api_url, timeout=30)
    # the Run form: benchmark and setting are dropdowns, every parameter has a description
    deployment = api.get("/deployments/name/eval/full").json()
    schema = deployment["parameter_openapi_schema"]["properties"]
    assert schema["benchmark"]["enum"] == ["cmmath", "conceptmath", "wemath"]
    assert {"plain", "kca", "zs", "fs", "text+ocr/clp"} <= set(schema["setting"]["enum"])
    assert all(p.get("description") for p in schema.values()), schema
    # the flow run is named after what it evaluates; its artifacts are keyed per store
    flow_runs = api.post("/flow_runs/filter", json={
        "flow_runs": {"deployment_id": {"any_": [deployment["id"]]}}}).json()
    (flow_run,) = [f for f in flow_runs if f["parameters"].get("run_id") == "deployed"]
    assert flow_run["name"] == "wemath:baseline:random:deployed"
    artifacts = {a["key"]: a for a in api.post("/artifacts/filter", json={
        "artifacts": {"flow_run_id": {"any_": [flow_run["id"]]}}}).json()}
    report = artifacts[artifact_key("report", "deployed", str(db))]
    assert report["type"] == "markdown" and "## Metrics" in report["data"]
    html = tmp_path / "deployed-reports" / "deployed.html"      # html_report: auto
    assert html.is_file() and str(html) in report["data"]
    assert artifacts[artifact_key("progress", "deployed", str(db))]["data"] == 100.0
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT status, n_items FROM runs WHERE run_id = 'deployed'"
                           ).fetchall() == [("completed", 60)]
        assert con.execute("SELECT n FROM wemath_four_dimensional WHERE rule = 'strict'"
                           ).fetchall() == [(18,)]    # --limit 60: 12 2-step + 6 3-step problems
    finally:
        con.close()


def test_defaults_as_the_run_button_uses_them_complete(team):
    """`local.sh up` set the data directory and the store at deploy time (MATHPROBE_DATA_DIR,
    MATHPROBE_DB): a run with no parameter at all, as pressing Run in the UI makes, completes."""
    run = team.run(str(BIN / "prefect"), "deployment", "run", "eval/full", "--watch",
                   "--watch-timeout", "180", cwd=team.state, timeout=240)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "Flow run finished successfully in 'Completed: run " in " ".join(run.stdout.split())
    con = duckdb.connect(team.env["MATHPROBE_DB"], read_only=True)
    try:
        assert con.execute("SELECT benchmark, model, status, n_items FROM runs").fetchall() == [
            ("wemath", "baseline:random", "completed", 1740)]
    finally:
        con.close()


def test_deploy_without_a_data_directory_fails_at_deploy_time_saying_why(team):
    env = {k: v for k, v in team.env.items() if k != "MATHPROBE_DATA_DIR"}
    bad = subprocess.run([str(BIN / "prefect"), "--no-prompt", "deploy", "--prefect-file",
                          "deploy/prefect.yaml", "--all"], env=env, cwd=REPO, text=True,
                         capture_output=True, timeout=240)
    assert bad.returncode != 0
    assert "mathprobe deploy: set MATHPROBE_DATA_DIR" in bad.stdout + bad.stderr
    missing = team.run(str(BIN / "prefect"), "--no-prompt", "deploy", "--prefect-file",
                       "deploy/prefect.yaml", "--all", cwd=REPO,
                       MATHPROBE_DATA_DIR=str(team.state / "nowhere"))
    assert missing.returncode != 0
    assert f"MATHPROBE_DATA_DIR={team.state / 'nowhere'}: no such directory" in (
        missing.stdout + missing.stderr)


def _flow_run_logs(api: httpx.Client, parameter: str, value: str) -> tuple[dict, list[dict]]:
    """The flow run whose parameter has this value, and its logs, from the team server."""
    (flow_run,) = [f for f in api.post("/flow_runs/filter", json={"limit": 200}).json()
                   if f["parameters"].get(parameter) == value]
    logs = api.post("/logs/filter", json={"logs": {"flow_run_id": {"any_": [flow_run["id"]]}},
                                          "limit": 200}).json()
    return flow_run, logs


def test_a_deployment_run_that_fails_says_why_under_watch(team, tmp_path):
    """A user error (no data directory) ends the flow run Failed with that one line as its
    state's message and name, so `--watch` prints it, and no engine traceback at ERROR; a run
    whose calls all fail ends 'Incomplete: ...' with its counts and reason, not Completed."""
    nowhere = tmp_path / "nowhere"
    run = team.run(str(BIN / "prefect"), "deployment", "run", "eval/full",
                   "--param", f"db={tmp_path / 'failing.duckdb'}",
                   "--param", f"data_dir={nowhere}", "--watch", "--watch-timeout", "180",
                   cwd=tmp_path, timeout=240)
    line = f"data directory {nowhere} (from --data-dir) does not exist"
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    assert f"Flow run finished in state 'Failed: {line}'." in " ".join(run.stdout.split())
    api = httpx.Client(base_url=team.api_url, timeout=30)
    flow_run, logs = _flow_run_logs(api, "data_dir", str(nowhere))
    assert flow_run["state"]["type"] == "FAILED" and flow_run["state"]["message"] == line
    assert [g["message"][:200] for g in logs if g["level"] >= 40] == []
    assert not [g for g in logs if "Traceback" in g["message"]]

    team.api.always[""] = "401"                    # every call refused for good
    try:
        run = team.run(str(BIN / "prefect"), "deployment", "run", "eval/full",
                       "--param", "model=openai:m", "--param", "limit=6",
                       "--param", "run_id=all-refused",
                       "--param", f"db={tmp_path / 'refused.duckdb'}",
                       "--watch", "--watch-timeout", "180", cwd=tmp_path, timeout=240)
    finally:
        team.api.always.pop("", None)
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    text = " ".join(run.stdout.split())
    assert "Flow run finished in state 'Incomplete: run all-refused, 3 of 3 calls failed (3 x " \
           "HTTP 401: " in text, text[-500:]
    flow_run, logs = _flow_run_logs(api, "run_id", "all-refused")
    assert flow_run["state"]["type"] == "FAILED"
    assert not [g for g in logs if g["level"] >= 40 and "Traceback" in g["message"]]


def test_status_gives_the_port_up_was_given(team):
    """`local.sh up --port N` (what `mathprobe deploy up --port N` runs, issue 38 item 9): the
    server is on N, and `status --api-url` gives its API URL for PREFECT_API_URL, so commands
    (and the README's) name no port."""
    from tests.team.conftest import LOCAL

    url = team.run(LOCAL, "status", "--api-url", cwd=team.state, timeout=60)
    assert (url.returncode, url.stdout.strip()) == (0, team.env["PREFECT_API_URL"])
    status = team.run(LOCAL, "status", cwd=team.state, timeout=60).stdout
    assert f"API {team.env['PREFECT_API_URL']}" in status, status
