"""The xdist scheduler of tests/support/workers.py (imported only in the controller, with xdist).

xdist's load scheduling, except: a test that needs a slow set-up goes to the worker that owns
it, once the set-up is up (or once nothing else is left to run), a whole module at a time; the
other tests go a module at a time to whichever worker has fewer than two queued."""
from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from xdist.scheduler import LoadScheduling


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class SetUpsOnTheirWorker(LoadScheduling):
    def __init__(self, config, log, folder: Path | None, owner: Callable[[str, int], int]):
        super().__init__(config, log)
        self.folder = folder
        self.owner = owner
        self.held: dict[object, list[int]] = {}      # node -> its set-ups' tests not yet sent
        self.needs: dict[int, list[str]] = {}

    @property
    def tests_finished(self) -> bool:
        return not any(self.held.values()) and super().tests_finished

    @property
    def has_pending(self) -> bool:
        return any(self.held.values()) or super().has_pending

    def schedule(self) -> None:
        if self.collection is not None:              # a node added later: as xdist does
            for node in self.nodes:
                self.check_schedule(node)
            return
        if not self._check_nodes_have_same_collection():
            self.log("**Different tests collected, aborting run**")
            return
        self.collection = list(next(iter(self.node2collection.values())))
        path = self.folder / "needs.json" if self.folder else None
        needs = json.loads(path.read_text()) if path and path.is_file() else {}
        nodes = sorted(self.nodes, key=lambda n: int(n.gateway.id.removeprefix("gw")))
        self.held = {node: [] for node in nodes}
        for i, nodeid in enumerate(self.collection):
            jobs = needs.get(nodeid)
            if jobs:
                self.needs[i] = jobs
                self.held[nodes[self.owner(jobs[0], len(nodes))]].append(i)
            else:
                self.pending.append(i)
        for node in nodes:
            self.check_schedule(node)

    def _ready(self, jobs: list[str]) -> bool:
        return all((self.folder / "ready" / job).exists() for job in jobs)

    def _ready_modules(self, held: list[int]) -> int:
        """How many of the held tests, whole modules from the front, have their set-ups up
        (all of them when no other test is left to run meanwhile)."""
        if not self.pending:
            return len(held)
        n = 0
        while n < len(held):
            end = self._module_end(held, n)
            if not all(self._ready(self.needs[i]) for i in held[n:end]):
                break
            n = end
        return n

    def _module_end(self, tests: list[int], start: int) -> int:
        """Where the run of tests of the same module as tests[start] ends."""
        module = _module(self.collection[tests[start]])
        end = start + 1
        while end < len(tests) and _module(self.collection[tests[end]]) == module:
            end += 1
        return end

    def check_schedule(self, node, duration: float = 0) -> None:
        self._feed(node)
        if not self.pending:
            # A worker runs a test once it knows the next (or that none follows): one left with
            # a single test, waiting for the others' modules, gets its own or is told to end.
            for other in self.nodes:
                self._feed(other)

    def _feed(self, node) -> None:
        if node.shutting_down or len(self.node2pending[node]) >= 2:
            return
        held = self.held.get(node, [])
        n = self._ready_modules(held) if held else 0
        if n:
            tests, held[:] = held[:n], held[n:]
            self.node2pending[node].extend(tests)
            node.send_runtest_some(tests)
        elif self.pending:
            self._send_tests(node, max(self._module_end(self.pending, 0), 2))
        else:
            node.shutdown()                          # after what it was sent

    def remove_node(self, node):
        """A worker that died: what it held goes to the others (which start the set-ups
        they need when they come to them)."""
        self.pending.extend(self.held.pop(node, []))
        return super().remove_node(node)
