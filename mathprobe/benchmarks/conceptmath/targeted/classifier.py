"""A concept classifier that scales to a corpus: a linear model per ConceptMath system over
hashed n-grams, trained on labelled concept questions (the benchmark's own items and any extra
ones a user gives, as the paper's "extra 10 problems per concept"), bilingual by construction
and fast on CPU.

Why this shape: the paper's classifier is a bilingual LLM with a classification head; a corpus
of millions of documents needs one that runs at thousands of documents a second on a laptop.
scikit-learn's `HashingVectorizer` keeps no vocabulary (stateless, constant memory); only the
hashed columns the training questions use carry weight, so the model keeps those alone
(`_Columns`), tf-idf weighted, under a logistic-loss linear model (SGD, seconds to train) whose
probabilities rank documents. Its features (`features`): one regular expression cuts the text
into Latin words and digits, and single characters for everything else (each CJK character a
token: Chinese needs no segmenter); the features are those tokens and their bigrams, i.e.
character uni- and bigrams for Chinese, word uni- and bigrams for English. Measured on
ConceptMath's questions (docs/targeted-improvement.md), this matches character 1-3-grams in
held-out accuracy and hashes 2,300 documents a second against their 400 (sklearn's char_wb
analyzer is a Python loop per n-gram). A document is scored only by the systems of its language (`language_of`: Chinese
when at least a fifth of its letters are CJK characters), and only its first `MAX_CHARS`
characters are read (a web page states its subject early; the classifier's cost stays bounded).

Needs the `select` extra (scikit-learn)."""
from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from mathprobe.extras import require

MAX_CHARS = 2000
N_FEATURES = 2 ** 20
HELD_OUT = 0.2               # share of each concept's questions held out to measure it
SEED = 20240611
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_TOKEN = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")


@dataclass(frozen=True)
class Labelled:
    """A question labelled with its system and level-3 concept path (cate0/cate1/cate2)."""
    system: str
    concept: str
    text: str


@dataclass(frozen=True)
class HeldOut:
    """How well a system's classifier names the concept of questions it was not trained on:
    top-1 accuracy and MRR over its level-3 concepts, and top-1 at level 2 (the predicted
    concept's parent: the level the paper's Table 6 classifies at)."""
    system: str
    n_train: int
    n_test: int
    n_concepts: int
    top1: float
    mrr: float
    top1_level2: float


def language_of(text: str) -> str:
    """'zh' when at least a fifth of the letters (CJK characters and Latin letters) are CJK."""
    head = text[:MAX_CHARS]
    cjk = len(_CJK.findall(head))
    return "zh" if cjk and cjk * 5 >= cjk + len(_LATIN.findall(head)) else "en"


def system_language(system: str) -> str:
    return "zh" if system.endswith("_zh") else "en"


def features(text: str) -> list[str]:
    """The tokens of the text's first MAX_CHARS characters (Latin words and digits, every other
    non-space character alone), lower-cased, and their bigrams."""
    words = _TOKEN.findall(text[:MAX_CHARS].lower())
    return words + [f"{a} {b}" for a, b in zip(words, words[1:])]


def _vectorizer():
    require("select", "the concept classifier", ("sklearn",))
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(analyzer=features, n_features=N_FEATURES, alternate_sign=False,
                             norm=None)


class _Columns:
    """The hashed columns the training questions use, renumbered 0..m-1: documents keep only
    those (the rest carry no weight), so the model's size follows the training data."""

    def __init__(self, used: np.ndarray):
        self.size = len(used)
        self.map = np.full(N_FEATURES, -1, dtype=np.int64)
        self.map[used] = np.arange(len(used))

    def __call__(self, x):
        from scipy import sparse

        x = x.tocsr()
        cols = self.map[x.indices]
        keep = cols >= 0
        rows = np.repeat(np.arange(x.shape[0]), np.diff(x.indptr))[keep]
        return sparse.csr_matrix((x.data[keep], (rows, cols[keep])),
                                 shape=(x.shape[0], self.size))


class SystemModel:
    """One system's classifier: columns kept, tf-idf, a logistic-loss linear model."""

    def __init__(self, system: str, examples: Sequence[Labelled]):
        from sklearn.feature_extraction.text import TfidfTransformer
        from sklearn.linear_model import SGDClassifier

        self.system = system
        vec = _vectorizer()
        x = vec.transform([e.text for e in examples])
        self.columns = _Columns(np.unique(x.tocsr().indices))
        self.tfidf = TfidfTransformer(sublinear_tf=True)
        x = self.tfidf.fit_transform(self.columns(x))
        self.model = SGDClassifier(loss="log_loss", alpha=1e-5, max_iter=50, tol=None,
                                   random_state=SEED)
        self.model.fit(x, [e.concept for e in examples])
        self.concepts = list(self.model.classes_)

    def proba(self, hashed) -> np.ndarray:
        """(documents x concepts) probabilities of documents already hashed."""
        return self.model.predict_proba(self.tfidf.transform(self.columns(hashed)))


class ConceptClassifier:
    """Per system a `SystemModel`; `classify` gives each document its most likely concept among
    the systems of its language."""

    def __init__(self, examples: Sequence[Labelled], systems: Iterable[str] | None = None):
        wanted = set(systems) if systems is not None else None
        by_system: dict[str, list[Labelled]] = {}
        for e in examples:
            if wanted is None or e.system in wanted:
                by_system.setdefault(e.system, []).append(e)
        self.vectorizer = _vectorizer()
        self.models = {s: SystemModel(s, ex) for s, ex in sorted(by_system.items())
                       if len({e.concept for e in ex}) > 1}
        self.fingerprint = fingerprint(examples)

    def classify(self, texts: Sequence[str]) -> list[tuple[str, str, float] | None]:
        """Per document (system, concept, probability) of its best concept among the systems
        of its language; None where no system of its language is modelled."""
        out: list[tuple[str, str, float] | None] = [None] * len(texts)
        langs = [language_of(t) for t in texts]
        for lang in ("en", "zh"):
            idx = [i for i, g in enumerate(langs) if g == lang]
            models = [m for s, m in self.models.items() if system_language(s) == lang]
            if not idx or not models:
                continue
            hashed = self.vectorizer.transform([texts[i] for i in idx])
            best_p = np.full(len(idx), -1.0)
            best: list[tuple[str, str] | None] = [None] * len(idx)
            for m in models:
                p = m.proba(hashed)
                top = p.argmax(axis=1)
                pv = p[np.arange(len(idx)), top]
                for j in np.nonzero(pv > best_p)[0]:
                    best_p[j] = pv[j]
                    best[j] = (m.system, m.concepts[top[j]])
            for j, i in enumerate(idx):
                found = best[j]
                if found is not None:
                    out[i] = (*found, float(best_p[j]))
        return out


def fingerprint(examples: Sequence[Labelled]) -> str:
    """What the classifier is: its training questions and its settings."""
    h = hashlib.sha256(repr((N_FEATURES, MAX_CHARS, _TOKEN.pattern, "tf-idf", "sgd log_loss "
                             "alpha=1e-5 50 epochs", SEED)).encode())
    for e in examples:
        h.update(f"{e.system}\t{e.concept}\t{e.text}\n".encode())
    return h.hexdigest()[:16]


def split(examples: Sequence[Labelled], held_out: float = HELD_OUT, seed: int = SEED
          ) -> tuple[list[Labelled], list[Labelled]]:
    """(train, test): per system and concept, a seeded `held_out` share of its questions (at
    least one where it has 3 or more) held out; the rest trains."""
    groups: dict[tuple[str, str], list[Labelled]] = {}
    for e in examples:
        groups.setdefault((e.system, e.concept), []).append(e)
    rng = random.Random(seed)
    train, test = [], []
    for key in sorted(groups):
        members = list(groups[key])
        rng.shuffle(members)
        k = max(1, round(held_out * len(members))) if len(members) >= 3 else 0
        test += members[:k]
        train += members[k:]
    return train, test


def evaluate(examples: Sequence[Labelled], held_out: float = HELD_OUT,
             seed: int = SEED) -> list[HeldOut]:
    """Per system: train on the rest, measure on the held-out questions (`split`)."""
    train, test = split(examples, held_out, seed)
    clf = ConceptClassifier(train)
    out = []
    for system, m in clf.models.items():
        tests = [e for e in test if e.system == system]
        if not tests:
            continue
        p = m.proba(clf.vectorizer.transform([e.text for e in tests]))
        order = np.argsort(-p, axis=1)
        ranks = []
        for row, e in zip(order, tests):
            names = [m.concepts[c] for c in row]
            ranks.append(names.index(e.concept) + 1 if e.concept in names else None)
        top = [m.concepts[r[0]] for r in order]
        out.append(HeldOut(
            system, sum(e.system == system for e in train), len(tests), len(m.concepts),
            float(np.mean([r == 1 for r in ranks])),
            float(np.mean([1 / r if r else 0.0 for r in ranks])),
            float(np.mean([_parent(t) == _parent(e.concept) for t, e in zip(top, tests)]))))
    return out


def _parent(concept: str) -> str:
    """The level-2 path of a level-3 path (cate2 may itself hold '/')."""
    return "/".join(concept.split("/", 2)[:2])
