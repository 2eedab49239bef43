"""(e) The documented deploy command, as a user types it, gives a deployment that runs."""
from __future__ import annotations

import duckdb

from tests.conftest import REPO
from tests.team.conftest import BIN


def test_plain_prefect_deploy_then_deployment_run_completes(team, tmp_path, data_dir):
    assert "MATHPROBE_REPO" not in team.env
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
    assert "Completed" in run.stdout
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT status, n_items FROM runs WHERE run_id = 'deployed'"
                           ).fetchall() == [("completed", 60)]
        assert con.execute("SELECT n FROM wemath_four_dimensional WHERE rule = 'strict'"
                           ).fetchall() == [(18,)]    # --limit 60: 12 2-step + 6 3-step problems
    finally:
        con.close()


def test_deploy_with_a_wrong_checkout_fails_at_deploy_time_saying_why(team, tmp_path):
    bad = team.run(str(BIN / "prefect"), "--no-prompt", "deploy", "--prefect-file",
                   "deploy/prefect.yaml", "--all", cwd=REPO, MATHPROBE_REPO=str(tmp_path))
    assert bad.returncode != 0
    assert (f"mathprobe deploy: {tmp_path} is not a mathprobe checkout"
            in bad.stdout + bad.stderr)
