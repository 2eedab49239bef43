"""What a setting needs of the data is checked before anything starts, and a data error that
only shows mid-run ends the run `failed`, never `running` (issue 38 item 4).

Both as a user meets them: the `mathprobe` command in a subprocess on the shared data (the
published CMMaTH sample ships without its images) or on a WE-MATH folder whose images go away
while the run asks, against a loopback model API.
"""
from __future__ import annotations

import subprocess
import sys
import time

import duckdb

from tests.conftest import REPO
from tests.support.cli import cli_env, error_lines, mathprobe
from tests.support.fake_api import FakeAPI


def test_a_setting_whose_files_the_data_lacks_is_one_line_before_prefect(tmp_path, data_dir):
    """`--setting image` on CMMaTH without its images: before, the run started Prefect, asked
    nothing, printed the shard's ERROR logs, then `error:`, 34 s in, and left the run
    `running` in the store (the next run called it left by a dead process)."""
    db = tmp_path / "img.duckdb"
    started = time.monotonic()
    done = mathprobe("run", "--benchmark", "cmmath", "--setting", "image", "--model",
                     "baseline:random", "--run-id", "img", "--db", str(db), "--data-dir",
                     str(data_dir), "--limit", "10",
                     env=cli_env(PREFECT_API_URL="http://127.0.0.1:9/api",   # none reachable
                                 PYTHONPROFILEIMPORTTIME="1", MATHPROBE_NO_WARM="1"))
    elapsed = time.monotonic() - started
    assert done.returncode == 2, done.stderr[-3000:]
    (line,) = error_lines(done.stderr)
    assert line.startswith("error: --setting image: 10 of 10 question(s) of this run cannot be "
                           "asked; the first: "), line
    assert "cmmath/images/" in line and "'text' or 'text+ocr'" in line   # where, and what else
    imported = [row.split("|")[-1].strip() for row in done.stderr.splitlines()
                if row.startswith("import time:")]
    assert imported and not [m for m in imported if m.split(".")[0] == "prefect"]
    assert not [row for row in done.stderr.splitlines()
                if not row.startswith(("import time:", "error:"))], done.stderr[-2000:]
    assert not db.exists()                                  # no store, so no ghost run
    assert elapsed < 30


def test_an_image_gone_mid_run_ends_the_run_failed_with_its_answers(tmp_path, data_dir,
                                                                     prefect_harness):
    """The run's checks pass, then the images go (a network share unmounted): the run stops on
    one `error:` line naming the image, ends `failed` in the store (before: `running`, or
    `interrupted` as if the user had stopped it), its answers kept; with the images back the
    same command asks only the rest."""
    data = tmp_path / "data"
    (data / "wemath").mkdir(parents=True)
    for f in (data_dir / "wemath").iterdir():
        if f.is_file():
            (data / "wemath" / f.name).symlink_to(f)
    for folder in ("2steps", "3steps"):                   # a folder of links: removable here
        (data / "wemath" / folder).mkdir()
        for image in (data_dir / "wemath" / folder).rglob("*"):
            if image.is_file():
                link = data / "wemath" / folder / image.relative_to(data_dir / "wemath" / folder)
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(image)
    db = tmp_path / "gone.duckdb"
    api = FakeAPI(latency=0.2).start()
    args = [sys.executable, "-m", "mathprobe", "run", "--benchmark", "wemath", "--model",
            "openai:gpt-4o-mini", "--run-id", "gone", "--db", str(db), "--data-dir", str(data),
            "--limit", "40", "--concurrency", "1"]
    env = cli_env(api, MATHPROBE_NO_WARM="1")
    try:
        proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while api.served < 3:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.02)
        moved = tmp_path / "moved"
        moved.mkdir()
        for folder in ("2steps", "3steps"):
            (data / "wemath" / folder).rename(moved / folder)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 2, err[-3000:]
        (line,) = error_lines(err)
        assert "cannot read the image of question" in line and "field 'image'" in line, line
        assert "Traceback" not in err
        with duckdb.connect(str(db), read_only=True) as con:
            status, = con.sql("SELECT status FROM runs WHERE run_id = 'gone'").fetchone()
            kept, = con.sql("SELECT count(*) FROM responses WHERE run_id = 'gone' "
                            "AND status = 'ok'").fetchone()
        assert status == "failed"
        assert 3 <= kept < 40
        for folder in ("2steps", "3steps"):
            (moved / folder).rename(data / "wemath" / folder)
        asked = api.served
        again = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True,
                               timeout=180)
        assert again.returncode == 0, again.stderr[-3000:]
        assert api.served - asked == 40 - kept                # only what was not kept
    finally:
        api.stop()
