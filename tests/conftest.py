from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

REPO = Path(__file__).resolve().parent.parent


def shared_data_dir() -> Path:
    path = Path(os.environ.get("MATHPROBE_DATA_DIR") or REPO.parent / "shared" / "data")
    if not (path / "wemath" / "testmini.json").is_file():
        pytest.fail(f"benchmark data not found in {path}: set MATHPROBE_DATA_DIR")
    return path.resolve()


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return shared_data_dir()


@pytest.fixture(scope="session")
def prefect_harness():
    """One ephemeral Prefect API for the whole session (it takes ~10 s to start)."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture(scope="session")
def tiny_vlm(tmp_path_factory) -> Path:
    """A tiny random image-text-to-text model, built offline (tasks/tiny_model.py)."""
    from tasks import tiny_model

    return tiny_model.build(tmp_path_factory.mktemp("tiny") / "vlm", kind="vlm")


@pytest.fixture(scope="session")
def triton_server(tiny_vlm, tmp_path_factory):
    """One real tritonserver (CPU) serving the tiny model for the session (~25 s to start)."""
    from tasks.triton_server import TritonServer

    with TritonServer(tiny_vlm, log_file=tmp_path_factory.mktemp("triton") / "server.log") as srv:
        yield srv


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "store.duckdb"


# -- a hand-made WE-MATH data directory ------------------------------------------------------

LEAVES = {  # leaf -> (root1, root2)
    "Leaf One": ("Measurement", "Cat A"),
    "Leaf Two": ("Measurement", "Cat A"),
    "Leaf Three": ("Plane Figures", "Cat B"),
}


def make_wemath_dir(root: Path, problems: dict[str, dict], *, skip_image: str | None = None) -> Path:
    """Write a WE-MATH data dir. `problems`: ID -> {"gold": [...], "concepts": [...]}, where the
    lists run over the one-step questions then the composite one (2+1 or 3+1 entries)."""
    wm = root / "wemath"
    (wm / "img").mkdir(parents=True, exist_ok=True)
    nodes = [{"root0": "Geometry", "root1": r1, "root2": r2, "root3": leaf, "root4": None,
              "full node": f"{r1}_{r2}_{leaf}"} for leaf, (r1, r2) in LEAVES.items()]
    (wm / "knowledge_structure_nodes.json").write_text(json.dumps(nodes))
    rows = []
    for pid, spec in problems.items():
        steps = len(spec["gold"]) - 1
        keys = [f"{steps}steps_{k}" for k in range(1, steps + 1)] + [f"{steps}steps_multi"]
        for n, (key, gold, concept) in enumerate(zip(keys, spec["gold"], spec["concepts"]), 1):
            image = f"img/{pid}-{key}.png"
            if image != skip_image:
                (wm / image).write_bytes(b"\x89PNG fake image " + image.encode())
            rows.append({"ID": pid, "split": "testmini", "knowledge concept": concept,
                         "question": f"{pid} question {n}", "option": "A. 1;B. 2;C. 3;D. 4",
                         "answer": gold, "image_path": image, "key": key,
                         "question number": n, "knowledge concept description": f"about {concept}"})
    (wm / "testmini.json").write_text(json.dumps(rows, indent=1))
    return root


def responses_for(data_root: Path, correct: dict[str, list[bool]]) -> list[dict]:
    """The authors' result format: rows plus a response that is right or wrong as asked."""
    rows = json.loads((data_root / "wemath" / "testmini.json").read_text())
    out = []
    index: dict[str, int] = {}
    for row in rows:
        k = index[row["ID"]] = index.get(row["ID"], -1) + 1
        right = correct[row["ID"]][k]
        wrong = "B" if row["answer"] != "B" else "C"
        answer = row["answer"] if right else wrong
        out.append({**row, "response": f"<Thought process>: <<...>> <Answer>: <<{answer}>>"})
    return out


@pytest.fixture
def fake_openai(monkeypatch):
    """A loopback OpenAI-compatible server (tests/fake_api.py), with the SDK pointed at it."""
    from tests.fake_api import FakeAPI

    server = FakeAPI().start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-local")
    yield server
    server.stop()
