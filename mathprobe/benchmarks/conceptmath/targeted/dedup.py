"""Near-duplicate documents among those selected: the same page crawled twice, a mirror, a copy
with another header. Documents are compared as sets of shingles (`SHINGLE` consecutive tokens,
the classifier's tokens: words, and characters for Chinese); two are near-duplicates when the
Jaccard similarity of their sets is at least `THRESHOLD`. Candidates come from datasketch's
MinHash LSH (`NUM_PERM` permutations, seeded: the same every run), tuned to `LSH_THRESHOLD`,
below the threshold so that pairs near it are not missed, and each is confirmed on the exact
sets, so LSH's false positives never remove a document. The index holds only the documents
selected so far, and a document pushed out of the selection leaves it."""
from __future__ import annotations

from mathprobe.benchmarks.conceptmath.targeted.classifier import _TOKEN
from mathprobe.extras import require

SHINGLE = 5
THRESHOLD = 0.8
LSH_THRESHOLD = 0.5
NUM_PERM = 64
MAX_CHARS = 20_000          # the text compared: enough to tell two pages apart


def shingles(text: str) -> set[str]:
    tokens = _TOKEN.findall(text[:MAX_CHARS].lower())
    if len(tokens) <= SHINGLE:
        return {" ".join(tokens)}
    return {" ".join(tokens[i:i + SHINGLE]) for i in range(len(tokens) - SHINGLE + 1)}


class NearDuplicates:
    """The selected documents' shingles, searchable for a new document's near-duplicates."""

    def __init__(self, threshold: float = THRESHOLD):
        require("select", "near-duplicate removal", ("datasketch",))
        from datasketch import MinHashLSH

        self.threshold = threshold
        self.lsh = MinHashLSH(threshold=min(threshold, LSH_THRESHOLD), num_perm=NUM_PERM)
        self.sets: dict[str, set[str]] = {}

    def _minhash(self, sh: set[str]):
        from datasketch import MinHash

        m = MinHash(num_perm=NUM_PERM, seed=1)
        m.update_batch([s.encode() for s in sh])
        return m

    def find(self, text: str) -> tuple[str | None, set[str], object]:
        """(the key of a selected near-duplicate or None, the text's shingles, its MinHash)."""
        sh = shingles(text)
        m = self._minhash(sh)
        for key in self.lsh.query(m):
            other = self.sets[key]
            if len(sh & other) / len(sh | other) >= self.threshold:
                return key, sh, m
        return None, sh, m

    def add(self, key: str, sh: set[str], m) -> None:
        self.lsh.insert(key, m)
        self.sets[key] = sh

    def remove(self, key: str) -> None:
        if key in self.sets:
            self.lsh.remove(key)
            del self.sets[key]
