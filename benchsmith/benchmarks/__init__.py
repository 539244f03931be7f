"""The benchmarks benchsmith scores, behind one interface, and their registry.

What differs between NL2Fix and classbench lives in a :class:`Benchmark`: its
record type, the items and prompts ``generate`` sends, how code comes out of
an answer, what makes two candidates the same, the runner that judges them,
the reference candidates, the project of an instance, the report's columns,
what ranking compares a candidate with, how descriptions are written, and what
an agent sees (the task, the repository tools and the oracle). ``evaluate``,
``generate``, ``rank``, ``report``, ``describe``, ``candidates reference`` and
``agent run`` ask :func:`benchmark_of` and never branch on a kind.

A dataset is recognised from the stamp :func:`benchsmith.core.schema.to_table`
writes into it: its ``benchmark`` name, or, for a file stamped without one,
the one registered benchmark whose records it holds. The built-in benchmarks
are imported only when asked for; a new one is a module that calls
:func:`register`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Generic, Protocol, TypeVar

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.registry import Registry
from benchsmith.core.schema import read_records, read_stamp
from benchsmith.generation.prompts import STRATEGIES, strategy_hash
from benchsmith.runners.sandbox.jail import Limits

if TYPE_CHECKING:
    from benchsmith.core.verdict import Verdict
    from benchsmith.generation.agents.base import AgentTask, Oracle, Toolbox
    from benchsmith.generation.models.base import ChatRequest, Message
    from benchsmith.generation.prompts.extraction import Extraction

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
    no_relatives: bool = False  # leave the task's relatives out of every tool's view (the RepoClassBench paper's RQ2)
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
    language: ClassVar[str] = (
        ""  # of its candidates' code, for the screen (benchsmith.runners.sandbox.screen); "": not screened
    )

    @abstractmethod
    def instance_id(self, record: R) -> str: ...

    @abstractmethod
    def project_of(self, record: R) -> str:
        """The group the report counts the instance under: its project or repository."""

    @abstractmethod
    def generation_items(
        self, records: list[R], strategy: str, description: str | None, dataset: Path
    ) -> tuple[list[GenerationItem], str]:
        """The items to prompt for, and the description level used ("" where there is none)."""

    @abstractmethod
    def dedup_key(self, code: str) -> str:
        """Two candidates with the same key are the same program: one runs, the other shares its verdict."""

    @abstractmethod
    def runners(self, options: EvalOptions) -> Callable[[R, int, Path], CandidateRunner]:
        """What opens the runner of a record in a slot, writing logs under a folder; bad options are an error."""

    @abstractmethod
    def reference_candidates(self, records: list[R], mutants: int, seed: int) -> list[ReferenceCandidate]: ...

    def prompt_hash(self, strategy: str) -> str:
        """What identifies the prompt text of *strategy* in a run's settings: the hash of the templates it renders
        (:mod:`benchsmith.generation.prompts`); "" for a strategy that renders none of them (a plugin's own prompts)."""
        return strategy_hash(strategy) if strategy in STRATEGIES else ""

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


# The benchmarks, by name. benchsmith's own register themselves when their module is imported (``register``), and
# are imported only when asked for; each entry records its record type's name, so that an unstamped file is matched
# to a benchmark without importing any. Third-party benchmarks join through the entry point group
# "benchsmith.benchmarks" (a Benchmark subclass or instance) and are found by the name stamped in their datasets.
BENCHMARKS: Registry = Registry("benchmark", "benchsmith.benchmarks", base=Benchmark, verb="known:")
BENCHMARKS.add("nl2fix", "benchsmith.benchmarks.nl2fix:NL2Fix", record="NL2FixInstance")
BENCHMARKS.add("classbench", "benchsmith.benchmarks.classbench.python:ClassBench", record="ClassBenchTask")
BENCHMARKS.add("classbench-java", "benchsmith.benchmarks.classbench.java:ClassBenchJava", record="ClassBenchTask")
# Built in after datasets were stamped with their benchmark's name: an unstamped file is never one of theirs.
_STAMPED_ONLY = {"classbench-java"}


def register(benchmark: Benchmark) -> Benchmark:
    """Make *benchmark* known under its name (a second one of the same name is an error)."""
    return BENCHMARKS.put(benchmark.name, benchmark)


def unregister(name: str) -> None:
    BENCHMARKS.remove(name)


def get(name: str) -> Benchmark:
    benchmark = BENCHMARKS.load(name)
    if isinstance(benchmark, type):  # a plugin's class: made once
        benchmark = BENCHMARKS.put(name, benchmark())
    return benchmark


def known() -> list[str]:
    return sorted(BENCHMARKS.names())


def benchmark_of(dataset: Path) -> Benchmark:
    """The benchmark a dataset file belongs to, from its stamp; an unstamped or unknown file is an error naming it."""
    return get(_dataset_kind(Path(dataset)))


def _dataset_kind(dataset: Path) -> str:
    if not dataset.is_file():
        raise BenchsmithError(f"{dataset}: no such dataset file")
    stamp = read_stamp(dataset)
    if stamp is None:
        raise BenchsmithError(
            f"{dataset}: no benchsmith metadata; not a dataset written by this version of benchsmith (rebuild it)"
        )
    if stamp.benchmark:
        return stamp.benchmark
    records = {}
    for name, entry in BENCHMARKS.entries().items():
        loaded = BENCHMARKS.load(name) if BENCHMARKS.is_loaded(name) else None
        if name in _STAMPED_ONLY or isinstance(loaded, type):
            continue
        kind = entry.extra.get("record") or (loaded.record_type.__name__ if loaded is not None else None)
        if kind:
            records[name] = kind
    holding = sorted(name for name, kind in records.items() if kind == stamp.record)
    if len(holding) != 1:
        raise BenchsmithError(
            f"{dataset}: holds {stamp.record} records, which "
            + (
                "no benchmark scores"
                if not holding
                else f"{', '.join(holding)} all score; write it with the benchmark's name"
            )
        )
    return holding[0]
