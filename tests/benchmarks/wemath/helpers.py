"""A hand-made WE-MATH data directory and responses in the authors' result format."""
from __future__ import annotations

import json
from pathlib import Path

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
