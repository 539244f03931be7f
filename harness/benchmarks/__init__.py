"""The benchmarks benchsmith scores, behind one interface, and their registry.

What differs between NL2Fix and classbench lives in a :class:`Benchmark`: its
record type, the items and prompts ``generate`` sends, how code comes out of
an answer, what makes two candidates the same, the runner that judges them,
the reference candidates, the project of an instance, the report's columns,
what ranking compares a candidate with, how descriptions are written, and what
an agent sees (the task, the repository tools and the oracle). ``evaluate``,
``generate``, ``rank``, ``report``, ``describe``, ``candidates reference`` and
``agent run`` ask :func:`benchmark_of` and never branch on a kind.

A dataset is recognised from the stamp :func:`benchsmith.schema.to_table`
writes into it: its ``benchmark`` name, or, for a file stamped without one,
the one registered benchmark whose records it holds. The built-in benchmarks
are imported only when asked for; a new one is a module that calls
:func:`register`.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Generic, Protocol, TypeVar

from benchsmith.errors import BenchsmithError
from benchsmith.schema import read_records, read_stamp
from harness.sandbox import Limits

if TYPE_CHECKING:
    from harness.agents.base import AgentTask, Oracle, Toolbox
    from harness.extraction import Extraction
    from harness.verdict import Verdict
    from harness.models.base import ChatRequest, Message

R = TypeVar("R")


@dataclass(frozen=True)
class EvalOptions:
    dataset: Path
    candidates: Path
    out: Path
    defects4j: Path | None = None  # NL2Fix datasets only
    repos: Path | None = None
    workers: int = 2
    limits: Limits = Limits()
    fast: bool = True
    regression: bool = False  # run the relevant tests even after a trigger test fails (Table 2's "Regression")
    second_opinion: bool = False  # Python classbench: judge every plausible verdict again, arranged otherwise


@dataclass(frozen=True)
class AgentOptions:
    """What ``benchsmith agent run`` asks of a benchmark's agent environment."""

    dataset: Path
    logs: Path  # where the oracle may write its runs' logs
    no_relatives: bool = False  # leave the task's relatives out of every tool's view (seed 002's RQ2)
    limits: Limits = Limits()
    slot: int = 0  # tasks worked at the same time have different slots (as eval's runners do)
    description: str = "detailed"  # the description level the agent is given, which the independent tool queries with


class CandidateRunner(Protocol):
    """Judges the candidates of one instance, one at a time, in one slot."""

    def evaluate(self, code: str, name: str) -> Verdict: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class GenerationItem:
    """One instance as ``generate`` sees it: how its conversation goes and how code comes out of an answer."""

    item_id: str
    turns: int
    conversation: Callable[[list[str]], tuple[Message, ...]]  # earlier turns' answers → the next request's messages
    extract: Callable[[str], Extraction]
    candidate_prefix: str


@dataclass(frozen=True)
class ReferenceCandidate:
    """A candidate made without a model: ``kind`` says what it is ("gold", "buggy", "mutant-3", "empty")."""

    instance_id: str
    kind: str
    code: str


# Who wrote a record's descriptions, kept beside them: the backend, its model, the hash of the prompt templates.
DESCRIPTION_PROVENANCE = ("description_backend", "description_model", "description_prompt_hash")


class Describer(ABC, Generic[R]):
    """How a benchmark's records get their natural-language descriptions (``benchsmith describe``).

    *provenance* maps each of :data:`DESCRIPTION_PROVENANCE` to who is describing now.
    """

    levels: ClassVar[tuple[str, ...]]

    @abstractmethod
    def request(self, record: R, level: str) -> ChatRequest: ...

    @abstractmethod
    def described_by(self, record: R, provenance: dict[str, str]) -> bool:
        """Whether *record* already has every level's description, written under *provenance*."""

    @abstractmethod
    def with_descriptions(self, record: R, texts: dict[str, str], provenance: dict[str, str]) -> R: ...


class Benchmark(ABC, Generic[R]):
    """One benchmark: everything the harness and the stages need to know that differs between benchmarks."""

    name: ClassVar[str]
    record_type: ClassVar[type]
    strategies: ClassVar[tuple[str, ...]]  # what ``generate --strategy`` accepts
    report_columns: ClassVar[tuple[str, ...]] = ("pass@k", "TR")  # per project, beside instances and solved
    describer: ClassVar[Describer | None] = None  # None: its records carry no descriptions to write
    language: ClassVar[str] = ""  # of its candidates' code, for the screen (harness.screen); "": not screened

    @abstractmethod
    def instance_id(self, record: R) -> str: ...

    @abstractmethod
    def project_of(self, record: R) -> str:
        """The group the report counts the instance under: its project or repository."""

    @abstractmethod
    def generation_items(self, records: list[R], strategy: str, description: str | None,
                         dataset: Path) -> tuple[list[GenerationItem], str]:  # fmt: skip
        """The items to prompt for, and the description level used ("" where there is none)."""

    @abstractmethod
    def dedup_key(self, code: str) -> str:
        """Two candidates with the same key are the same program: one runs, the other shares its verdict."""

    @abstractmethod
    def runners(self, options: EvalOptions) -> Callable[[R, int, Path], CandidateRunner]:
        """What opens the runner of a record in a slot, writing logs under a folder; bad options are an error."""

    @abstractmethod
    def reference_candidates(self, records: list[R], mutants: int, seed: int) -> list[ReferenceCandidate]: ...

    def ground_truth(self, record: R) -> str:
        """The gold candidate's code: what the screen holds a candidate's primitives against."""
        return next((r.code for r in self.reference_candidates([record], 0, 0) if r.kind == "gold"), "")

    def ranking_anchor(self, record: R) -> str | None:
        """The text a candidate's embedding is compared with by ``benchsmith rank``; None: not rankable."""
        return None

    def agent_task(self, record: R, description: str | None) -> AgentTask:
        """The record as an agent sees it (description level *description*, None: the benchmark's default)."""
        raise BenchsmithError(f"benchmark {self.name} offers no tasks to agents")

    def agent_environment(self, record: R, options: AgentOptions) -> tuple[Toolbox, Oracle]:
        """The repository tools over the record's repository as the model may see it, and its oracle.

        The caller closes the oracle. Nothing either returns may hold the ground truth.
        """
        raise BenchsmithError(f"benchmark {self.name} offers no repository tools")

    def load(self, dataset: Path) -> dict[str, R]:
        """The dataset's records by instance id."""
        return {self.instance_id(record): record for record in read_records(dataset, self.record_type)}


# The built-in benchmarks: name → (record type's name, module that registers it when imported).
_BUILT_IN: dict[str, tuple[str, str]] = {
    "nl2fix": ("NL2FixInstance", "harness.benchmarks.nl2fix"),
    "classbench": ("ClassBenchTask", "harness.benchmarks.classbench"),
    "classbench-java": ("ClassBenchTask", "harness.benchmarks.classbench_java"),
}
# Built in after datasets were stamped with their benchmark's name: an unstamped file is never one of theirs.
_STAMPED_ONLY = {"classbench-java"}
_REGISTERED: dict[str, Benchmark] = {}


def register(benchmark: Benchmark) -> Benchmark:
    """Make *benchmark* known under its name (a second one of the same name is an error)."""
    existing = _REGISTERED.get(benchmark.name)
    if existing is not None and type(existing) is not type(benchmark):
        raise BenchsmithError(f"benchmark {benchmark.name!r} is registered already ({type(existing).__name__})")
    _REGISTERED[benchmark.name] = benchmark
    return benchmark


def unregister(name: str) -> None:
    _REGISTERED.pop(name, None)


def get(name: str) -> Benchmark:
    if name not in _REGISTERED and name in _BUILT_IN:
        importlib.import_module(_BUILT_IN[name][1])
    try:
        return _REGISTERED[name]
    except KeyError:
        raise BenchsmithError(f"unknown benchmark {name!r} (known: {', '.join(known())})") from None


def known() -> list[str]:
    return sorted(set(_BUILT_IN) | set(_REGISTERED))


def benchmark_of(dataset: Path) -> Benchmark:
    """The benchmark a dataset file belongs to, from its stamp; an unstamped or unknown file is an error naming it."""
    return get(_dataset_kind(Path(dataset)))


def _dataset_kind(dataset: Path) -> str:
    if not dataset.is_file():
        raise BenchsmithError(f"{dataset}: no such dataset file")
    stamp = read_stamp(dataset)
    if stamp is None:
        raise BenchsmithError(f"{dataset}: no benchsmith metadata; not a dataset written by this version of "
                              "benchsmith (rebuild it)")  # fmt: skip
    if stamp.benchmark:
        return stamp.benchmark
    records = {name: kind for name, (kind, _) in _BUILT_IN.items() if name not in _STAMPED_ONLY}
    records.update({name: b.record_type.__name__ for name, b in _REGISTERED.items() if name not in _STAMPED_ONLY})
    holding = sorted(name for name, kind in records.items() if kind == stamp.record)
    if len(holding) != 1:
        raise BenchsmithError(f"{dataset}: holds {stamp.record} records, which " +
                              ("no benchmark scores" if not holding else f"{', '.join(holding)} all score; "
                               "write it with the benchmark's name"))  # fmt: skip
    return holding[0]
