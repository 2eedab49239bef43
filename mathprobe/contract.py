"""The benchmark contract: everything a benchmark gives the core, and nothing more.

The core (flows, `mathprobe.runs`, `mathprobe.store`, `mathprobe.reports`) works with any `Benchmark` and never
names one; a benchmark is found through the `mathprobe.benchmarks` entry point (see
`mathprobe.registry` and docs/adding-a-benchmark.md), so a separately installed package can add one.

A benchmark is a subclass of `Benchmark` that fills in its class attributes and abstract methods
(a method may be a plain function of its modules, declared with `staticmethod`).
Optional parts have defaults: a `Judge` for what its rule graders leave undecided, `Probe`s beyond
accuracy (contamination, classification), reference tables its views join against, the image a
request carries, its `figures` declared once (mathprobe.figures: the tables, plots and notes every
report draws, with their CIs) as data (`Figures`) or by methods (a `Comparison`), its error
taxonomy (mathprobe.error_taxonomy: why answers fail, as the paper labels them). Its SQL views
are files it names in `sql_files()`: the store applies the core layer first, then every
benchmark's files, each after the files creating what it mentions.
"""
from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from mathprobe.error_taxonomy import ErrorTaxonomy, ErrorType
from mathprobe.errors import MathprobeError
from mathprobe.figures import Comparison, ErrorFigure, Figures, Plot, Section, Stat, Table
from mathprobe.items import ChanceAnswer, Chat, Completion, Item, Request
from mathprobe.paths import SQL_DIR
from mathprobe.sampling import stratified_sample

if TYPE_CHECKING:
    from mathprobe.store import Store

# (extracted answer, correct); correct is None when the grader cannot decide (a judge may).
Grade = tuple[str | None, bool | None]
# A decided grade: what a judge's reply gives, and what the verdicts table stores.
Verdict = tuple[str | None, bool]
# A reference table for the views: column -> (DuckDB type, values).
Columns = dict[str, tuple[str, list]]


@dataclass(frozen=True)
class Dataset:
    """A benchmark's items as loaded and validated. `fingerprint` is a content hash of the files
    they came from: the store reloads items only when it changes. Benchmarks may subclass it to
    carry more (a knowledge tree, few-shot exemplars)."""
    items: tuple[Item, ...]
    fingerprint: str = ""

    def by_id(self) -> dict[str, Item]:
        return {i.item_id: i for i in self.items}


def fingerprint(*paths: Path, extra: str = "") -> str:
    """The content hash of data files (and of `extra`, e.g. a parser version)."""
    h = hashlib.sha256()
    for p in paths:
        h.update(Path(p).read_bytes())
        h.update(str(p).encode())
    h.update(extra.encode())
    return h.hexdigest()


@dataclass(frozen=True)
class OfficialRow:
    """A row of a result file in the authors' format that carries more than the response:
    verdicts made elsewhere (e.g. the authors' own judge), by grader name. `mathprobe import`
    stores them as they are, beside the rule graders' verdicts; a verdict whose `correct` is
    None is left out (undecided). A plain `(item, response)` pair is a row without verdicts.
    `failure`: the other tool recorded a failed call here (its message, e.g. VLMEvalKit's
    "Failed to obtain answer via API."): stored as a failure, never graded wrong. `row`: its
    row in the file, where the reader knows it (named when the import flags the row)."""
    item: Item
    response: str | None
    verdicts: Mapping[str, Grade] = field(default_factory=dict)
    failure: str | None = None
    row: int | None = None


@dataclass(frozen=True)
class Skipped:
    """A row of a result file an import left out, and why (a problem the data does not know and
    the row cannot define, a row that contradicts the data, a repeated problem): counted and
    listed by `mathprobe import`, never a stop at the first one."""
    row: int
    item: str | None
    reason: str

    def line(self) -> str:
        return (f"row {self.row}" if self.row else "a row") + (
            f" ({self.item})" if self.item else "") + f": {self.reason}"


@dataclass(frozen=True)
class ResultFile:
    """What a reader of a result file made elsewhere found in it (`Benchmark.result_formats`).

    `rows`: the rows to import (an `OfficialRow`, or an (item, response) pair); an item that is
    not in the local data is one the file defines itself (e.g. a CMMaTH authors' record whose
    problem the local sample lacks), stored with the rows `Benchmark.imported_tables` gives.
    `skipped`: the rows left out, with the reason. `default_verdicts`: whether the verdicts the
    rows carry are the run's default grader (the CMMaTH authors' judge) or shown beside the
    benchmark's own graders, which stay the default (VLMEvalKit's `hit` beside WE-MATH's
    official extraction). `source`: what the file says of where it came from (tool, judge
    model), kept in the run card."""
    rows: Sequence[OfficialRow | tuple[Item, str | None]]
    skipped: Sequence[Skipped] = ()
    default_verdicts: bool = True
    source: Mapping[str, Any] = field(default_factory=dict)

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


class Judge(ABC):
    """A model as judge for answers a rule grader cannot settle alone.

    The core runs the judge's calls as a run of their own (`<run>@judge:<judge>`), cached by
    content and resumable, and writes two graders on the judged run: `judge:<judge>` (the
    judge's verdicts on the answers it was asked about) and `cascade:<judge>` (the rule grader
    where the judge was not asked, else the judge). By default the judge is asked about the
    answers the rule grader left undecided (`asks`) and replies with a verdict (`parse`); a
    judge that maps a response to an answer instead (e.g. an option letter) overrides `asks`
    and `read`.
    """
    rules_grader: ClassVar[str]                    # whose answers the judge follows
    params: ClassVar[Mapping[str, Any]]            # generation params of the judge's calls
    # whether a judged run is reported under the cascade by default (False: the rule grader
    # stays the default, e.g. where the rules are the benchmark's official figures)
    cascade_is_default: ClassVar[bool] = True

    @abstractmethod
    def prompt(self, item: Item, response: str | None) -> tuple[str | None, str]:
        """(system prompt or None, user prompt) asking the judge about `response` to `item`."""

    @abstractmethod
    def parse(self, text: str | None) -> Any:
        """What the judge's reply says (by default its verdict: True, False); None when it gave
        nothing readable (stored `judge_failed`)."""

    def asks(self, extracted: str | None, correct: bool | None) -> bool:
        """Whether the judge is asked about an answer the rule grader graded so (no verdict:
        both None). Default: where the rules left it undecided."""
        return correct is None

    def read(self, item: Item, text: str | None) -> Verdict | None:
        """(extracted, correct) of the judge's reply about an answer to `item`; None when the
        reply gives no verdict (judge_failed). Default: `parse`'s verdict, as 'Yes' / 'No'."""
        verdict = self.parse(text)
        if verdict is None:
            return None
        return ("Yes" if verdict else "No"), bool(verdict)

    def configured(self, options: Mapping[str, str]) -> Judge:
        """This judge with the options a user wrote after '#' in `--judge BACKEND:NAME#k=v,...`
        (e.g. another prompt format for a judge served from another checkpoint). The default
        takes none: any option is an error."""
        if options:
            raise MathprobeError(f"--judge: this benchmark's judge takes no options "
                                 f"(got {', '.join(sorted(options))})")
        return self

    def audit(self, store: Store, data_dir: Path, *, audit_id: str, judge: str | None,
              concurrency: int, limit: int | None) -> list[dict[str, Any]]:
        """Measure the rule grader (and `judge`, if given) against reference verdicts, where the
        benchmark has them; rows of its agreement view. The default: no audit data."""
        raise NotImplementedError("this benchmark's judge has no audit data")

    @property
    def has_audit(self) -> bool:
        return type(self).audit is not Judge.audit


class Probe(ABC):
    """A measurement beyond accuracy (e.g. contamination, concept classification): its own run
    (setting `setting`) through the same pipeline as model calls, with per-item scores in
    `probe_scores` and figures in the view `view`."""
    name: ClassVar[str]          # 'rouge'
    family: ClassVar[str]        # the command that runs it: 'contamination', 'classify'
    setting: ClassVar[str]       # the run's setting, e.g. 'contamination-rouge'
    view: ClassVar[str]          # the view with its figures per run (and system / concept)
    score_name: ClassVar[str | None] = None   # probe_scores.probe written by `score`, if any
    extra: ClassVar[str | None] = None        # the mathprobe extra it needs (mathprobe.extras)

    def params(self, backend_kind: str) -> dict[str, Any]:
        """The request params for a backend of this kind (they are part of the run's identity)."""
        return {}

    @abstractmethod
    def requests(self, items: Sequence[Item], dataset: Dataset, model: str,
                 backend_kind: str) -> list[Request]:
        """The requests of these items."""

    def wrap(self, backend: Any, backend_kind: str) -> Any:
        """The backend that answers the requests (e.g. one that scores instead of generating)."""
        return backend

    def score(self, item: Item, text: str | None, dataset: Dataset) -> tuple[float, str | None] | None:
        """(score, detail) of one stored answer, for `probe_scores`; None: not scored here."""
        return None


@dataclass(frozen=True)
class SelectOptions:
    """`mathprobe select-data`: training data for a run's `weakest` concepts, `per_concept`
    documents each at most, from `corpus` (JSON lines or Parquet files, globs or URLs; the text
    in `text_field`, an id in `id_field`), written to `out`, a general set (`mix`, JSON lines)
    mixed in at `mix_ratio` rows per selected document, sampled with `seed`; `train`: extra
    labelled questions for the classifier."""
    run_id: str
    grader: str
    corpus: tuple[str, ...]
    out: Path
    text_field: str = "text"
    id_field: str | None = None
    weakest: int = 10
    per_concept: int = 50
    mix: tuple[str, ...] = ()
    mix_ratio: float = 1.0
    seed: int = 0
    batch: int = 2000
    train: Path | None = None


class SelectProgress:
    """What a long selection tells whoever runs it: lines to show (`note`), the corpus's size
    where known (`start`), documents read and selected so far (`advance`). This one is silent."""

    def note(self, text: str) -> None:
        pass

    def start(self, total: int | None) -> None:
        pass

    def advance(self, read: int, selected: int) -> None:
        pass


D = TypeVar("D", bound=Dataset)


class Benchmark(ABC, Generic[D]):
    """What a benchmark provides. Subclass it, set the class attributes, implement the abstract
    methods, and register the class under the `mathprobe.benchmarks` entry point. `D` is the
    benchmark's own Dataset (what its `load` returns, and so what its other methods are given):
    `class WeMath(Benchmark[wemath.Dataset])`."""

    name: ClassVar[str]                       # 'wemath': run ids, the store, --benchmark
    title: ClassVar[str]                      # 'WE-MATH': what reports call it
    settings: ClassVar[tuple[str, ...]]       # the prompt settings (--setting)
    default_setting: ClassVar[str]
    default_params: ClassVar[Mapping[str, Any]]    # generation params (the paper's)
    graders: ClassVar[tuple[str, ...]]        # rule graders run on every answer; the first is
                                              # the default of reports
    # `mathprobe demo` runs the benchmarks that name their demo here: {"model": ..., "setting":
    # ..., "query": an example SQL query of its figures, with {run_id}}.
    demo: ClassVar[Mapping[str, Any] | None] = None

    # -- data ---------------------------------------------------------------------------------
    @abstractmethod
    def load(self, data_dir: Path) -> D:
        """Load and validate `<data_dir>/<name>/...`; a malformed row is a DataError naming the
        file, row and field. Cached per data dir (runs call it more than once)."""

    # The strata `--limit` samples over, coarsest first (what `strata` returns, e.g.
    # ("steps", "category")); reports and logs name them.
    strata_names: ClassVar[tuple[str, ...]] = ()

    def strata(self, item: Item) -> tuple[str, ...]:
        """The item's stratum labels, in the order of `strata_names` (default: none)."""
        return ()

    def sample_unit(self, item: Item) -> str:
        """Items sampled together, never split by `--limit` (default: each item alone)."""
        return item.item_id

    def select(self, items: Sequence[Item], limit: int | None) -> list[Item]:
        """The items of a run with `--limit` (all of them with None): a seeded stratified
        sample over `strata`, whole `sample_unit`s, a larger limit selecting a superset
        (mathprobe.sampling). Deterministic."""
        return stratified_sample(items, limit, strata=self.strata, unit=self.sample_unit)

    def reference_tables(self, dataset: D) -> dict[str, Columns]:
        """Tables its views join against (table -> columns), replaced when the data changes."""
        return {}

    def sql_files(self) -> list[Path]:
        """Its SQL (tables, views, macros: one object to a file, named after it), applied after
        the core layer, each file after those creating what it mentions (in this order where
        nothing decides: mathprobe/store/sql_order.py). The default: every `*.sql` under the
        repository's `sql/<name>/` (mathprobe's own benchmarks); a benchmark installed from
        elsewhere names the files it ships."""
        return sorted((SQL_DIR / self.name).rglob("*.sql"))

    # -- asking -------------------------------------------------------------------------------
    @abstractmethod
    def prompt(self, item: Item, setting: str) -> str | Chat:
        """The prompt of `item` under `setting` (a setting it does not know: ValueError): a
        string (one user turn), or a `Chat` (prior user / assistant turns, then the final user
        turn). Chat backends send a chat's turns as messages; backends that take one text get
        them flattened (`mathprobe.backends.transcript.flatten`)."""

    def request_image(self, item: Item, setting: str) -> str | None:
        """The path of the image a request carries (default: the item's image, if any)."""
        return item.image_path

    def shown_question(self, item: Item) -> str:
        """The question as a reader of the report's item browser should see it: what the model
        was asked, without the prompt's instructions (default: the item's question; a benchmark
        whose options are apart from the question adds them)."""
        return item.question

    # -- grading ------------------------------------------------------------------------------
    @abstractmethod
    def grade(self, grader: str, item: Item, response: str | None) -> Grade:
        """(extracted answer, correct) of `response` under `grader`; correct None: undecided."""

    judge: Judge | None = None

    # -- chance -------------------------------------------------------------------------------
    def chance_answer(self, item: Item, setting: str) -> ChanceAnswer | None:
        """How a uniform guess answers `item` under `setting`, written as this benchmark's
        prompts ask answers to be written, so its graders read it (what `baseline:random`
        answers). None: the baseline's generic guess ('The answer is X.': a letter among the
        item's choices, else a whole number 0..100)."""
        return None

    def chance_level(self, item: Item) -> float | None:
        """The probability that `chance_answer` is right under the benchmark's first grader.
        Stored per item when the data is loaded (table `item_chance`); its mean over a set of
        items is the documented chance level of a figure over them (the glossary's, and what
        a `baseline:random` run must land on). None: no chance level."""
        return None

    @property
    def has_chance_level(self) -> bool:
        return type(self).chance_level is not Benchmark.chance_level

    # -- results made elsewhere, reports, probes ------------------------------------------------
    @abstractmethod
    def read_official_results(self, path: Path, dataset: D
                              ) -> Sequence[tuple[Item, str | None] | OfficialRow] | ResultFile:
        """A response file in the authors' result format, as (item, response) pairs (an item
        may carry the file's own gold answer), or `OfficialRow`s where the file also carries
        verdicts made elsewhere. Bad rows: DataError naming file, row and field."""

    def answer_outside(self, item: Item, response: str | None) -> str | None:
        """Why an imported response answers what the question cannot take (WE-MATH: a letter
        that is none of its options, 'H' for A-E), or None. Such a row is imported and graded
        as the authors' script grades it (wrong), and flagged: `mathprobe import` lists it with
        its row and the run card keeps it. The default: nothing is flagged."""
        return None

    def result_formats(self) -> Mapping[str, Callable[[Path, D], Any]]:
        """The result files `mathprobe import --format F` reads: format -> reader(path, dataset)
        returning what `read_official_results` returns, or a `ResultFile`. The default: the
        authors' own format only ('official')."""
        return {"official": self.read_official_results}

    def imported_tables(self, items: Sequence[Item]) -> dict[str, Columns]:
        """Rows of the tables its views join against for items a result file defines itself
        (not in the local data): table -> columns, the first column `item_id`. The store adds
        them (replacing rows of the same items) to tables a reload of the data never empties.
        The default: none (such items then count in no figure that joins a reference table)."""
        return {}

    def exports(self) -> Mapping[str, Callable[..., tuple[list[Path], list[str]]]]:
        """The files `mathprobe export --format F` writes for another tool (e.g. a leaderboard
        submission): format -> writer(store, run_id, grader, out_dir, data_dir) returning
        (the paths written, notes for the user). The default: none."""
        return {}

    # its figures, declared once (mathprobe.figures): the run report (terminal, `report --json`,
    # the sweep's table, the Markdown artifact), `compare` (JSON, CSV) and the HTML report all
    # draw them. None: one accuracy over all items, or what a `comparison` of its own gives.
    figures: ClassVar[Figures | None] = None

    probes: ClassVar[Mapping[str, Probe]] = {}    # name -> probe

    # why its answers fail (mathprobe.error_taxonomy): the paper's error types, definitions and
    # figures, which `mathprobe errors` labels wrong answers with. None: not labelled.
    error_taxonomy: ClassVar[ErrorTaxonomy | None] = None

    @property
    def comparison(self) -> Comparison:
        """How its runs are compared and shown (compare, HTML report, Prefect artifact): its
        declared `figures`, else one accuracy over all items. A benchmark may set its own."""
        return self.figures.comparison() if self.figures is not None else Comparison()

    def select_data(self, store: Store, data_dir: Path, options: SelectOptions,
                    progress: SelectProgress) -> list[str]:
        """Training data for a run's weakest concepts (e.g. ConceptMath's targeted improvement,
        Sec. 2.4): select from a corpus, write `options.out`, record the selection in the store;
        the lines that say what was done. The default: the benchmark offers none."""
        raise NotImplementedError

    @property
    def has_select_data(self) -> bool:
        return type(self).select_data is not Benchmark.select_data

    def probe_family(self, family: str) -> dict[str, Probe]:
        return {n: p for n, p in self.probes.items() if p.family == family}

    def __repr__(self) -> str:
        return f"<benchmark {self.name}>"


__all__ = ["Benchmark", "ChanceAnswer", "Chat", "Columns", "Comparison", "Completion", "Dataset",
           "ErrorFigure", "ErrorTaxonomy", "ErrorType", "Figures", "Grade", "Judge", "OfficialRow",
           "Plot", "Probe", "ResultFile", "Section", "SelectOptions", "SelectProgress", "Skipped",
           "Stat", "Table", "Verdict", "fingerprint"]
