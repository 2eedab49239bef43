"""How much does CMMaTH's rule stage decide, and how often does it decide right?

Measured on the human worked solutions the published sample carries (`analysis`): each record's
own solution must grade right; the solution of another record whose reference is of the same
kind (option letters, or a value) and differs must grade wrong. Records are split once by a
hash of their problem_id (tasks/benchmarks/cmmath/_measure.py): the rules were improved looking
only at the tuning part; the held-out part was never read, only counted. Targets (issue 13): at
least 85% decided, at least 99% agreement, on the held-out part.

Also times the rule stage over all cases, cold (every parse new) and warm (parses cached), and
with --uncached as it was before the caches (nothing kept from one answer to the next).

    python benchmarks/cmmath_rules.py [--data-dir DIR] [--split tuning|heldout|both]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mathprobe.tasks.benchmarks import cmmath  # noqa: E402
from mathprobe.tasks.benchmarks.cmmath import _measure, _values  # noqa: E402
from mathprobe.tasks.registry import resolve_data_dir  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--split", choices=("tuning", "heldout", "both"), default="both")
    ap.add_argument("--uncached", action="store_true",
                    help="also time the rule stage with its parse caches cleared at every answer")
    args = ap.parse_args()
    dataset = cmmath.load(resolve_data_dir(args.data_dir))
    cases = [c for c in _measure.cases(dataset.items)
             if args.split == "both" or c.split == args.split]

    def verdict(item, response):
        return cmmath.grade("rules", item, response)[1]

    t0 = time.perf_counter()
    tallies = _measure.measure(verdict, cases)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    _measure.measure(verdict, cases)
    warm = time.perf_counter() - t0
    uncached = None
    if args.uncached:
        def uncached_verdict(item, response):   # as before the caches: nothing kept between answers
            for cached in (_values.make_value, _values._parse_math, _values._verify):
                cached.cache_clear()
            return verdict(item, response)

        t0 = time.perf_counter()
        _measure.measure(uncached_verdict, cases)
        uncached = time.perf_counter() - t0

    print(f"CMMaTH rule stage on the sample's worked solutions ({len(cases)} cases, "
          f"{len({c.item.item_id for c in cases})} records)")
    print(f"{'split':<9} {'cases':<6} {'n':>5} {'decided':>8} {'share':>7} {'agreement':>10}")
    for split in ("tuning", "heldout"):
        for kind in ("own", "other", "all"):
            t = tallies.get((split, kind))
            if t is None:
                continue
            print(f"{split:<9} {kind:<6} {t.n:>5} {t.decided:>8} {t.decided_share:>7.1%} "
                  f"{t.agreement:>10.2%}")
    print("own: a record's own solution (must grade right); other: another record's solution "
          "(must grade wrong)")
    print(f"time: {cold:.1f} s cold, {warm:.2f} s with the parses cached "
          f"({len(cases) / cold:.0f} answers/s cold)")
    if uncached is not None:
        print(f"time with no cache kept between answers (each answer parses its reference and "
              f"options again): {uncached:.1f} s ({uncached / cold:.1f}x the cached cold pass)")


if __name__ == "__main__":
    main()
