"""The subset a run takes with `--limit N`: a seeded stratified sample over the benchmark's strata.

Taking the first N rows of a file gives whatever the authors happened to put first (WE-MATH's
first 60 questions are 2-step problems of 7 of the 12 categories), so a subset's figures say
little about the whole. Instead every benchmark names its strata through the contract
(`Benchmark.strata`: WE-MATH steps and category, ConceptMath system and concept, CMMaTH grade
group and visual subject) and the units that must stay whole (`Benchmark.sample_unit`: a WE-MATH
problem's questions), and this module draws the sample:

* **Proportional, nested.** Strata are a tree, coarsest label first. Each next unit goes to the
  child with the highest Webster (Sainte-Laguë) priority `units / (taken + 0.5)`, level by level,
  so at every size the sample is proportional to the strata at the first level, and within each
  of those at the next, and small strata are reached as soon as their share is due. Within a
  cell the units come in a seeded random order; ties between cells are broken the same way.
* **A larger limit selects a superset.** The draw is one fixed order of all units; `--limit N`
  takes its longest prefix with at most N items (at least one unit). So resuming a run with a
  larger `--limit` asks only the new items, and two runs with the same N are comparable.
* **Seeded, stable.** The order depends only on the seed and the unit and stratum names (a
  SHA-256 rank), not on Python's hash seed, the platform, or the file's row order.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T")

SEED = 0


def _rank(seed: int, key: Hashable) -> str:
    return hashlib.sha256(f"{seed}\0{key}".encode()).hexdigest()


class _Node:
    """A stratum: either a cell of units (in seeded order) or labelled children."""

    __slots__ = ("units", "children", "total", "left")

    def __init__(self) -> None:
        self.units: list[str] = []
        self.children: dict[str, _Node] = {}
        self.total = 0            # units in this stratum
        self.left = 0             # not drawn yet

    def draw(self, seed: int) -> str:
        self.left -= 1
        if not self.children:
            return self.units.pop()
        best, best_key = None, None
        for label, child in self.children.items():
            if child.left == 0:
                continue
            taken = child.total - child.left
            # Webster priority; the seeded rank breaks ties the same way every time
            key = (child.total / (taken + 0.5), _rank(seed, label))
            if best_key is None or key > best_key:
                best, best_key = child, key
        assert best is not None        # a node is drawn from only while some unit is left
        return best.draw(seed)


def stratified_order(units: dict[str, tuple[str, ...]], seed: int = SEED) -> list[str]:
    """Every unit (unit key -> its stratum labels, coarsest first), in draw order."""
    root = _Node()
    depth = max((len(v) for v in units.values()), default=0)
    for key, labels in units.items():
        labels = tuple(labels) + ("",) * (depth - len(labels))     # units sit in leaves only
        node = root
        node.total += 1
        for label in labels:
            node = node.children.setdefault(str(label), _Node())
            node.total += 1
        node.units.append(key)
    stack = [root]
    while stack:                      # seeded order inside each cell (drawn from the end)
        node = stack.pop()
        node.left = node.total
        node.units.sort(key=lambda k: _rank(seed, k), reverse=True)
        stack.extend(node.children.values())
    return [root.draw(seed) for _ in range(root.total)]


def stratified_sample(items: Sequence[T], limit: int | None, *,
                      strata: Callable[[T], tuple[str, ...]],
                      unit: Callable[[T], str] | None = None, seed: int = SEED) -> list[T]:
    """About `limit` items (whole units, at most `limit` items unless one unit is larger), a
    seeded stratified sample over `strata`, in dataset order; every item with `limit` None.
    A unit's stratum is its first item's."""
    if limit is None:
        return list(items)
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    unit = unit or (lambda it: it.item_id)          # type: ignore[attr-defined]
    members: dict[str, list[int]] = {}
    labels: dict[str, tuple[str, ...]] = {}
    for i, it in enumerate(items):
        key = unit(it)
        if key not in members:
            members[key] = []
            labels[key] = tuple(strata(it))
        members[key].append(i)
    if limit >= len(items):
        return list(items)
    chosen: list[int] = []
    for key in stratified_order(labels, seed):
        if chosen and len(chosen) + len(members[key]) > limit:
            break
        chosen += members[key]
    return [items[i] for i in sorted(chosen)]


def describe(items: Sequence[T], chosen: Sequence[T], *, strata: Callable[[T], tuple[str, ...]],
             names: Sequence[str], unit: Callable[[T], str] | None = None,
             seed: int = SEED) -> str:
    """One sentence saying what a --limit subset is, for the log and the command line."""
    unit = unit or (lambda it: it.item_id)          # type: ignore[attr-defined]
    units_all = {unit(it) for it in items}
    units_chosen = {unit(it) for it in chosen}
    cells_all = {tuple(strata(it)) for it in items}
    cells_chosen = {tuple(strata(it)) for it in chosen}
    whole = (f" ({len(units_chosen)} of {len(units_all)} whole units)"
             if len(units_all) != len(items) else "")
    over = " x ".join(names) if names else "no strata"
    return (f"{len(chosen)} of {len(items)} items{whole}: a seeded stratified sample (seed "
            f"{seed}) over {over}, {len(cells_chosen)} of {len(cells_all)} strata represented")
