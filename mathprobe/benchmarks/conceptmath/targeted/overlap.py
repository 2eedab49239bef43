"""Whether a document overlaps a benchmark question: training data must not contaminate the
benchmark that will measure its effect. Every question of every ConceptMath system is indexed;
a document overlaps one when one of three probes finds it:

* n-gram: the document holds an N-gram of the question's tokens (N = `NGRAM`, 13 as in GPT-3's
  and Llama 2's contamination studies, or the whole question where it is shorter);
* Rouge-L: a window of the document as long as the question matches it with Rouge-L F >=
  `ROUGE_MIN`, the measure of the contamination probe (`_probes.rouge_l`: the same tokens,
  Chinese split into characters), here between the question and the text, not a model's
  continuation; it catches a question copied with a few words changed. Only for questions of at
  least `ROUGE_TOKENS` tokens: Rouge-L's English tokens drop every symbol, so a short formula
  question ("if a+b+c=1, a²+b²+c²=2 ..., then abc=?") is a dozen letters and digits that any
  page of algebra matches at 0.7 or more (measured on perf/select_data.py's corpus); the n-gram
  probe covers those, the whole question being shorter than its N;
* exact: a question of fewer than `SEED` tokens ("1/5+3/10=?" is 4 of Rouge-L's English
  tokens) is looked for as it is written, blanks aside, where it has at least `EXACT_CHARS`
  characters; shorter ones ("5+3=?") are common text, not a copy, and are counted
  (`n_too_short`).

Tokens are Rouge-L's (`_probes.rouge_tokens`): English words lower-cased, Chinese characters.
Questions are found by the `SEED`-grams they share with the document (an inverted index), so a
document is compared only with the questions it shares text with (for Rouge-L, at least two
`SEED`-grams: a single shared phrase such as "how many of these" is common prose); the windows
compared are those the shared text aligns: where the question would start in the document if
the shared `SEED`-gram were the question's own."""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from mathprobe.benchmarks.conceptmath._probes import rouge_l, rouge_tokens
from mathprobe.benchmarks.conceptmath.data.dataset import language
from mathprobe.items import Item

NGRAM = 13
SEED = 5
ROUGE_MIN = 0.7
ROUGE_TOKENS = 16
EXACT_CHARS = 8
_BLANKS = re.compile(r"\s+")
MAX_CANDIDATES = 8        # questions compared with one document, those sharing most text first
MAX_WINDOWS = 3           # alignments of the document compared with one question


@dataclass(frozen=True)
class Overlap:
    """The benchmark question a document overlaps, the probe that found it and its value (the
    n-gram's length, or the Rouge-L F)."""
    item_id: str
    probe: str
    value: float


def _grams(tokens: Sequence[str], n: int) -> Iterable[tuple[int, str]]:
    for i in range(len(tokens) - n + 1):
        yield i, "\x1f".join(tokens[i:i + n])


class BenchmarkOverlap:
    """The index of the benchmark's questions (all systems) and the check of a document."""

    def __init__(self, items: Iterable[Item], ngram: int = NGRAM, rouge_min: float = ROUGE_MIN):
        self.ngram, self.rouge_min = ngram, rouge_min
        self.questions: list[tuple[str, str, str, list[str], set[str]]] = []
        # SEED-gram -> (question, its place in the question)
        self.index: dict[str, dict[str, list[tuple[int, int]]]] = {"en": {}, "zh": {}}
        self.n_too_short = 0
        self.exact: list[tuple[str, str]] = []       # (item, its text without blanks)
        for item in items:
            lang = language(item.group_id or "")
            tokens = rouge_tokens(item.question, lang)
            if len(tokens) < SEED:
                bare = _BLANKS.sub("", item.question)
                if len(bare) >= EXACT_CHARS:
                    self.exact.append((item.item_id, bare))
                else:
                    self.n_too_short += 1
                continue
            n = min(ngram, len(tokens))
            k = len(self.questions)
            self.questions.append((item.item_id, lang, item.question, tokens,
                                   {g for _, g in _grams(tokens, n)}))
            for qi, g in _grams(tokens, SEED):
                self.index[lang].setdefault(g, []).append((k, qi))

    def __len__(self) -> int:
        return len(self.questions)

    def check(self, text: str) -> Overlap | None:
        """The first question the document overlaps, or None."""
        if self.exact:
            bare = _BLANKS.sub("", text)
            for item_id, q in self.exact:
                if q in bare:
                    return Overlap(item_id, "exact", float(len(q)))
        for lang in ("en", "zh"):
            index = self.index[lang]
            if not index:
                continue
            tokens = rouge_tokens(text, lang)
            hits: dict[int, list[int]] = {}            # question -> aligned starts
            for pos, g in _grams(tokens, SEED):
                for k, qi in index.get(g, ()):
                    hits.setdefault(k, []).append(pos - qi)
            if not hits:
                continue
            doc_grams: dict[int, set[str]] = {}
            for k in sorted(hits, key=lambda k: -len(hits[k]))[:MAX_CANDIDATES]:
                found = self._compare(k, tokens, hits[k], doc_grams)
                if found is not None:
                    return found
        return None

    def _compare(self, k: int, tokens: list[str], starts: list[int],
                 doc_grams: dict[int, set[str]]) -> Overlap | None:
        item_id, lang, question, q_tokens, q_grams = self.questions[k]
        n = min(self.ngram, len(q_tokens))
        if n not in doc_grams:
            doc_grams[n] = {g for _, g in _grams(tokens, n)}
        if q_grams & doc_grams[n]:
            return Overlap(item_id, f"{n}-gram", float(n))
        if len(q_tokens) < ROUGE_TOKENS or len(starts) < 2:
            return None
        size = len(q_tokens)
        best = 0.0
        # the alignments most shared SEED-grams agree on first (an edit shifts a few of them)
        for start in sorted(set(starts), key=lambda s: -starts.count(s))[:MAX_WINDOWS]:
            window = " ".join(tokens[max(0, start):max(0, start) + size])
            best = max(best, rouge_l(question, window, lang))
        if best >= self.rouge_min:
            return Overlap(item_id, "rouge-l", best)
        return None
