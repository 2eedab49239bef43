"""ConceptMath's probes beyond accuracy (paper Sec. 4.3, Tables 3, 6, 8, 9): data contamination
(Rouge-L of a continuation; MIN-K% of the question's token log-probabilities) and concept
classification (rank the system's level-2 concepts for a question: MRR, top-1).

The paper's protocols:
* Rouge: the first 50% of the question, as is and with no instruction, goes to a completion
  endpoint (the OpenAI-compatible text completions API, Triton's text generation) and the model
  continues it; Rouge-L F of the continuation against the true last 50%. Chat-only backends
  (Anthropic) cannot take part.
* MIN-K% (Shi et al. 2023): the token log-probabilities of the whole question.
* Classification: open models (backends that score texts) see the concepts listed as options
  A, B, C, ... and rank them by the log-likelihood of each option's label after the prompt
  (OpenCompass's MMLU-style likelihood evaluation); API models are asked for a ranked list.

Each probe is a `mathprobe.contract.Probe`: a run of its own in the store (setting
`contamination-rouge`, `contamination-mink` or `classify`) whose requests go through the same
pipeline as model calls (`mathprobe.runs.probing`). Rouge-L and reciprocal ranks are computed here
per item into `probe_scores`; MIN-K% is computed from `token_logprobs` by a view; the figures
per system and concept are views (`sql/conceptmath/probes/`).
"""
from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from mathprobe.backends import registry as backends
from mathprobe.benchmarks.conceptmath.data.dataset import language
from mathprobe.contract import Dataset, Probe
from mathprobe.errors import MathprobeError
from mathprobe.items import Completion, Item, Request, given

SETTINGS = {"rouge": "contamination-rouge", "mink": "contamination-mink", "classify": "classify"}
CONTINUATION_PARAMS = {"temperature": 0.0, "max_tokens": 256}
CLASSIFY_PARAMS = {"temperature": 0.0, "max_tokens": 256}
# What a run's parameters add to the requests' to name the protocol, so a run made under an
# earlier protocol (an instruction before the first half; each concept's full name scored) is
# never resumed under this one: the store refuses the run id instead.
ROUGE_PROTOCOL = {"input": "first-half-as-is", "endpoint": "completions"}
LIKELIHOOD_PARAMS = {"rank": "label-likelihood"}

# API models: rank all concepts, by number.
CLASSIFY_PROMPT = (
    "Which mathematical concept does the following question test? Rank ALL of the concepts "
    "below from most to least likely. Reply with their numbers only, in order, separated by "
    "commas.\n\nQuestion: {question}\n\nConcepts:\n{options}\n\nRanking:"
)
# Open models: the concepts as lettered options; each label is scored after "Answer:".
LIKELIHOOD_PROMPT = (
    "Which mathematical concept does the following question test?\n"
    "Question: {question}\n{options}\nAnswer:"
)


# -- Rouge-L continuation -----------------------------------------------------------------------

def halves(item: Item) -> tuple[str, str]:
    """The question's first and last 50%, cut as is (the text is not re-spaced): by characters
    for Chinese, otherwise by words, at the start of the middle word (the first half gets the
    fewer words when their number is odd; the whitespace at the cut goes with neither)."""
    text = item.question.strip()
    if language(given(item.group_id, "group_id")) == "zh":
        mid = len(text) // 2
        return text[:mid], text[mid:]
    words = list(re.finditer(r"\S+", text))
    if len(words) < 2:
        return "", text
    cut = words[len(words) // 2].start()
    return text[:cut].rstrip(), text[cut:]


class _Characters:
    """rouge-score tokenizer for Chinese: one token per (non-space) character."""

    def tokenize(self, text: str) -> list[str]:
        return [c for c in text if not c.isspace()]


@lru_cache(maxsize=2)
def _scorer(lang: str):
    from rouge_score import rouge_scorer

    if lang == "zh":
        return rouge_scorer.RougeScorer(["rougeL"], tokenizer=_Characters())
    return rouge_scorer.RougeScorer(["rougeL"])


def rouge_tokens(text: str, lang: str) -> list[str]:
    """The tokens Rouge-L compares (`rouge_l`'s own tokeniser): Chinese one per non-space
    character; otherwise rouge-score's words (lower-cased letters and digits)."""
    return _scorer(lang)._tokenizer.tokenize(text)


def rouge_l(reference: str, continuation: str | None, lang: str) -> float:
    """Rouge-L F-measure of the model's continuation against the true second half."""
    return _scorer(lang).score(reference, continuation or "")["rougeL"].fmeasure


def continuation_request(item: Item, model: str) -> Request:
    """The first half of the question, as is and with no instruction, for a completion
    endpoint to continue."""
    first, _ = halves(item)
    return Request(item_id=item.item_id, model=model, params=dict(CONTINUATION_PARAMS),
                   prompt=first)


class Continuation:
    """Turns a backend with a completion endpoint (`continue_text`) into one whose `complete`
    continues the request's text as is: no chat template, no system prompt."""

    def __init__(self, inner):
        if not hasattr(inner, "continue_text"):
            raise MathprobeError(
                f"backend {inner.kind}:{inner.model} has no completion endpoint; the Rouge "
                "contamination probe gives the first half of each question as is to one (use "
                "openai:... on an OpenAI-compatible server, or triton:...)")
        self.inner, self.kind, self.model = inner, inner.kind, inner.model

    async def complete(self, request: Request) -> Completion:
        return await self.inner.continue_text(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


# -- MIN-K% -------------------------------------------------------------------------------------

def mink_request(item: Item, model: str) -> Request:
    """Score the question text itself (token log-probabilities, no generation)."""
    return Request(item_id=item.item_id, model=model, prompt=item.question, params={"score": True})


class Scoring:
    """Turns a backend with `score(text, prefix)` into one whose `complete` returns the prompt's
    token log-probabilities (stored as kind 'prompt'), so scoring runs through the pipeline."""

    def __init__(self, inner):
        if not hasattr(inner, "score"):
            raise MathprobeError(f"backend {inner.kind}:{inner.model} gives no token "
                                 "log-probabilities (use triton:..., or openai:... on a server "
                                 "with prompt logprobs)")
        self.inner, self.kind, self.model = inner, inner.kind, inner.model

    async def complete(self, request: Request) -> Completion:
        try:
            tokens = await self.inner.score(request.prompt, prefix=request.system or "")
        except ConnectionError as exc:
            return Completion(text=None, status="infra_failed", error=str(exc))
        return Completion(text=None, input_tokens=len(tokens), output_tokens=0,
                          token_logprobs=tokens, logprob_kind="prompt")

    async def aclose(self) -> None:
        await self.inner.aclose()


# -- concept classification ---------------------------------------------------------------------

def level2_options(items: Sequence[Item], system: str) -> list[str]:
    """The system's level-2 concepts ('cate0/cate1'), in a fixed order."""
    return sorted({f"{i.payload['cate0']}/{i.payload['cate1']}" for i in items
                   if i.group_id == system})


_OPTIONS: dict[tuple[str, str], list[str]] = {}


def _options(dataset: Dataset, system: str) -> list[str]:
    key = (dataset.fingerprint, system)
    if key not in _OPTIONS:
        _OPTIONS[key] = level2_options(dataset.items, system)
    return _OPTIONS[key]


def gold_option(item: Item) -> str:
    return f"{item.payload['cate0']}/{item.payload['cate1']}"


def option_label(k: int) -> str:
    """The label of option k (0-based): A..Z, then AA, AB, ... (bijective base 26, as spreadsheet
    columns). A system has at most 18 level-2 concepts, so only A..R occur today; a longer label
    would be scored by the sum of its tokens' log-probabilities, i.e. the probability of the
    whole label, like a one-token one."""
    label = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        label = chr(ord("A") + r) + label
    return label


def classify_request(item: Item, model: str, options: list[str], by_likelihood: bool) -> Request:
    """API models get the ranking prompt (options by number); open models (`by_likelihood`)
    the options as lettered choices, the prompt carried as the prefix (`system`) after which
    each label in `choices` is scored."""
    if by_likelihood:
        labels = [option_label(k) for k in range(len(options))]
        listed = "\n".join(f"{lab}. {o}" for lab, o in zip(labels, options))
        return Request(item_id=item.item_id, model=model, params=dict(LIKELIHOOD_PARAMS),
                       prompt=item.question, choices=tuple(labels),
                       system=LIKELIHOOD_PROMPT.format(question=item.question, options=listed))
    listed = "\n".join(f"{n}. {o}" for n, o in enumerate(options, start=1))
    return Request(item_id=item.item_id, model=model, params=dict(CLASSIFY_PARAMS),
                   prompt=CLASSIFY_PROMPT.format(question=item.question, options=listed),
                   choices=tuple(options))


def parse_ranking(text: str | None, n_options: int) -> list[int]:
    """Option numbers (1-based) in the order the reply gives them, each once, in range."""
    seen: list[int] = []
    for m in re.finditer(r"\d+", text or ""):
        k = int(m.group())
        if 1 <= k <= n_options and k not in seen:
            seen.append(k)
    return seen


def reciprocal_rank(ranking: list[int], gold: int) -> float:
    return 1.0 / (ranking.index(gold) + 1) if gold in ranking else 0.0


class RankByLikelihood:
    """For open models: rank the options by the log-likelihood of each option's label (" A",
    " B", ...) after the prompt that lists them (`score`), and answer with the ranking as option
    numbers, the form an API model's reply is read in (ties keep the listed order)."""

    def __init__(self, inner):
        if not hasattr(inner, "score"):
            raise MathprobeError(f"backend {inner.kind}:{inner.model} cannot score options")
        self.inner, self.kind, self.model = inner, inner.kind, inner.model

    async def complete(self, request: Request) -> Completion:
        try:
            scored = await asyncio.gather(*(self.inner.score(" " + label, prefix=request.system)
                                            for label in request.choices))
        except ConnectionError as exc:
            return Completion(text=None, status="infra_failed", error=str(exc))
        totals = [sum(lp for *_, lp in tokens) for tokens in scored]
        order = sorted(range(len(totals)), key=lambda k: -totals[k])
        return Completion(text=", ".join(str(k + 1) for k in order),
                          input_tokens=sum(len(t) for t in scored), output_tokens=0)

    async def aclose(self) -> None:
        await self.inner.aclose()


# -- the probes of the contract ------------------------------------------------------------------

class RougeProbe(Probe):
    """Contamination, Rouge-based (paper Table 3): a completion endpoint continues the question's
    first half, given as is; Rouge-L F of the continuation against the true second half."""
    name, family, setting = "rouge", "contamination", SETTINGS["rouge"]
    view, score_name = "contamination_rouge", "rouge_l"
    extra = "rouge"                      # rouge-score (and nltk): `pip install mathprobe[rouge]`

    def params(self, backend_kind: str) -> dict[str, Any]:
        return {**CONTINUATION_PARAMS, **ROUGE_PROTOCOL}

    def requests(self, items, dataset, model, backend_kind) -> list[Request]:
        return [continuation_request(it, model) for it in items]

    def wrap(self, backend, backend_kind):
        return Continuation(backend)

    def score(self, item, text, dataset) -> tuple[float, str | None]:
        return rouge_l(halves(item)[1], text, language(given(item.group_id, "group_id"))), None


class MinKProbe(Probe):
    """Contamination, probability-based MIN-K% (K = 10): the question's token log-probabilities,
    scored by the backend; the figure is a view over `token_logprobs`."""
    name, family, setting = "mink", "contamination", SETTINGS["mink"]
    view = "contamination_mink"

    def params(self, backend_kind: str) -> dict[str, Any]:
        return {"score": True}

    def requests(self, items, dataset, model, backend_kind) -> list[Request]:
        return [mink_request(it, model) for it in items]

    def wrap(self, backend, backend_kind):
        return Scoring(backend)


def _scores_texts(kind: str) -> bool:
    """Whether a backend of `kind` returns token log-probabilities of a given text (its
    `scores_text`): such a backend ranks the concepts by likelihood instead of being asked."""
    found = backends.find(kind)
    return found is not None and found.scores_text


class ClassifyProbe(Probe):
    """Concept classification (paper Tables 6/8/9): the system's level-2 concepts ranked for a
    question; reciprocal rank of the true one (MRR, top-1 in the view)."""
    name, family, setting = "classify", "classify", SETTINGS["classify"]
    view, score_name = "conceptmath_classification", "reciprocal_rank"

    def params(self, backend_kind: str) -> dict[str, Any]:
        return (dict(LIKELIHOOD_PARAMS) if _scores_texts(backend_kind)
                else dict(CLASSIFY_PARAMS))

    def requests(self, items, dataset, model, backend_kind) -> list[Request]:
        return [classify_request(it, model, _options(dataset, it.group_id),
                                 _scores_texts(backend_kind)) for it in items]

    def wrap(self, backend, backend_kind):
        return RankByLikelihood(backend) if _scores_texts(backend_kind) else backend

    def score(self, item, text, dataset) -> tuple[float, str | None]:
        opts = _options(dataset, item.group_id)
        ranking = parse_ranking(text, len(opts))
        gold = opts.index(gold_option(item)) + 1
        return reciprocal_rank(ranking, gold), ",".join(map(str, ranking))


PROBE_OBJECTS = {p.name: p for p in (RougeProbe(), MinKProbe(), ClassifyProbe())}
