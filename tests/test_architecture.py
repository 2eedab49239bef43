"""The layout's promises: no import cycles anywhere; layers that import downwards only (the command
line over the flows over the Prefect tasks over the library, the warm runner around the command
line); and a core that
never names a benchmark (it reaches them only through the registry), so a benchmark can come and
go without touching it."""
from __future__ import annotations

import ast
from pathlib import Path

from mathprobe import registry
from tests.conftest import REPO

PACKAGES = ("mathprobe", "tasks", "flows")
BENCHMARKS = "mathprobe.benchmarks"


def modules() -> dict[str, Path]:
    """Every module of the project by its import name (`mathprobe.store.sql`, ...): the
    checkout's flows/ and tasks/ are mathprobe.flows and mathprobe.tasks (linked into
    mathprobe/), each file counted once."""
    out = {}
    for pkg in PACKAGES:
        for path in (REPO / pkg).rglob("*.py"):
            rel = path.relative_to(REPO)
            if rel.parts[0] == "mathprobe" and (REPO / "mathprobe" / rel.parts[1]).is_symlink():
                continue                                 # the linked folder, read on its own
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts if parts[0] == "mathprobe" else ["mathprobe", *parts])] = path
    return out


def test_one_import_root():
    """Every import of the project's own code goes through `mathprobe`: a bare `tasks` or `flows`
    works only inside the checkout (and collides with a user's own tasks.py or flows/)."""
    bare = []
    for folder in ("mathprobe", "tasks", "flows", "tests", "perf", "triton_models"):
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                         else [])
                bare += [f"{path.relative_to(REPO)}: {n}" for n in names
                         if n.split(".")[0] in ("tasks", "flows")]
    assert bare == []


def _runtime_nodes(tree: ast.AST):
    """Every node except those under `if TYPE_CHECKING:` (annotations only, never imported)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules `name` imports at run time (at module level or inside functions)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in _runtime_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]
                                + ([node.module] if node.module else []))
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.add(sub if sub in known else base)
    return {m for m in out if m in known and m != name}


def test_no_import_cycles():
    mods = modules()
    graph = {name: imports(name, path, set(mods)) for name, path in mods.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(v: str) -> None:              # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert len(graph) > 40 and cycles == []


# Whom each layer's modules may import of the project (the longest matching name decides).
# The library (every mathprobe.* package but these four) knows no Prefect task, flow or command;
# the Prefect tasks call the library; the flows wire tasks and know no command; the command line
# (mathprobe.cli, one module per command) calls flows and the library, and finds the local
# Prefect server and the warm runner through their records (warm.server, warm.control: below
# it). The warm runner's entry point and process (warm.launch, warm.runner) run the command
# line: above it. warm.control is all that the entry point imports on every command: nothing of
# the project.
LIBRARY = "library"
LAYERS = {
    "mathprobe": (LIBRARY,),
    "mathprobe.tasks": ("mathprobe.tasks", LIBRARY),
    "mathprobe.flows": ("mathprobe.flows", "mathprobe.tasks", LIBRARY),
    "mathprobe.cli": ("mathprobe.cli", "mathprobe.flows", LIBRARY,
                      "mathprobe.warm.control", "mathprobe.warm.server"),
    "mathprobe.warm.control": (),
    "mathprobe.warm.server": (LIBRARY, "mathprobe.warm.control"),
    "mathprobe.warm": ("mathprobe.cli", "mathprobe.flows", "mathprobe.tasks", LIBRARY,
                       "mathprobe.warm"),
}
NOT_LIBRARY = ("mathprobe.tasks", "mathprobe.flows", "mathprobe.cli", "mathprobe.warm")


def _within(name: str, prefix: str) -> bool:
    if prefix == LIBRARY:
        return _within(name, "mathprobe") and not any(_within(name, p) for p in NOT_LIBRARY)
    return name == prefix or name.startswith(prefix + ".")


def test_layers_import_downwards():
    mods = modules()
    assert {"mathprobe.cli.main", "mathprobe.cli.run", "mathprobe.warm.runner",
            "mathprobe.flows.eval"} <= set(mods)
    offenders = []
    for name, path in mods.items():
        layer = max((p for p in LAYERS if _within(name, p)), key=len, default=None)
        if layer is None or name in ("mathprobe", "mathprobe.__main__"):  # the entry points
            continue
        for imported in sorted(imports(name, path, set(mods))):
            if not any(_within(imported, allowed) for allowed in LAYERS[layer]):
                offenders.append(f"{name} ({layer}) imports {imported}")
    assert offenders == []


def test_the_core_never_names_a_benchmark():
    """No module outside mathprobe/benchmarks/ imports a benchmark's package or compares anything
    with a benchmark's name: flows, runs, store, reports and backends work for any benchmark."""
    names = set(registry.names())
    assert names >= {"wemath", "conceptmath", "cmmath"}
    offenders = []
    for name, path in modules().items():
        if name.startswith(BENCHMARKS):
            continue
        for node in _runtime_nodes(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(BENCHMARKS):
                offenders.append(f"{name} imports {node.module}")
            elif isinstance(node, ast.Import) and any(a.name.startswith(BENCHMARKS)
                                                      for a in node.names):
                offenders.append(f"{name} imports a benchmark")
            elif isinstance(node, ast.Constant) and node.value in names:
                offenders.append(f"{name}:{node.lineno} names {node.value!r}")
    assert offenders == []
