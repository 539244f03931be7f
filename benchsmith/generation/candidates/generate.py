"""``benchsmith generate``: a dataset and a prompt strategy → a model's answers → candidates JSONL.

Each instance (NL2Fix) or task (RepoClassBench) becomes one conversation.
Single-turn strategies send one request with ``n`` samples. Reasoning
extraction (Defects4J-NL2Fix paper, 3.3.3) asks three times — localise, explain, fix —
and the paper does not say how its 100 samples share the first two turns;
here turns 1 and 2 are asked once per instance (n=1, the run's temperature)
and turn 3 is asked with ``n`` samples, so one reasoning chain conditions
every sample. That costs n+2 answers per instance instead of 3n, and the
samples still differ where it matters, in the fix.

Code is pulled out of each answer by :mod:`benchsmith.generation.prompts.extraction`; when none is
found the answer itself becomes the candidate, and ``eval`` calls it
uncompilable. A finished instance is appended to ``<out>.journal.jsonl``, so
an interrupted run asks only for what is missing; the candidates file is
written atomically once every instance is done.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.benchmarks import GenerationItem, benchmark_of
from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.journal import Journal
from benchsmith.core.progress import progress
from benchsmith.generation.models import complete_many
from benchsmith.generation.models.base import Backend, ChatRequest, Usage

log = logging.getLogger(__name__)


@dataclass
class GenerateSummary:
    items: int = 0
    candidates: int = 0
    resumed: int = 0  # items whose candidates came from the journal of an interrupted run
    without_answers: list[str] = field(default_factory=list)  # items the backend returned no texts for
    not_extracted: int = 0  # candidates that are the raw answer: no method / class was found in it
    usage: Usage = field(default_factory=Usage)  # this run's requests only


def generate(
    dataset: Path,
    strategy: str,
    backend: Backend,
    n: int,
    temperature: float,
    out: Path,
    *,
    description: str | None = None,
    concurrency: int | None = None,
    max_tokens: int | None = None,
) -> GenerateSummary:
    """Write candidates for every item of *dataset* to *out*; *description* picks DETAILED or SKETCHY (classbench)."""
    if n < 1:
        raise BenchsmithError(f"--n {n}: must be at least 1")
    if temperature < 0:
        raise BenchsmithError(f"--temperature {temperature}: must not be negative")
    items, level = _items(Path(dataset), strategy, description)
    settings = {
        "dataset": str(Path(dataset).resolve()),
        "strategy": strategy,
        "description": level,
        "n": n,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "backend": backend.name,
        "model": backend.model,
        "prompt_hash": benchmark_of(dataset).prompt_hash(strategy),
    }
    journal = _Journal(Path(out), settings)
    done = journal.load()
    summary = GenerateSummary(items=len(items), resumed=sum(item.item_id in done for item in items))
    pending = [item for item in items if item.item_id not in done]
    log.info("%d items: %d done in an earlier run, %d to generate", len(items), summary.resumed, len(pending))
    answers: dict[str, list[str]] = {item.item_id: [] for item in pending}
    for turn in range(1, max((item.turns for item in pending), default=0) + 1):
        asking = [item for item in pending if item.turns >= turn and len(answers[item.item_id]) == turn - 1]
        requests = [
            _request(item, turn, answers[item.item_id], strategy, n, temperature, max_tokens) for item in asking
        ]
        label = "generating" if turn == 1 and all(i.turns == 1 for i in asking) else f"turn {turn}"
        answered = complete_many(backend, requests, backend_concurrency(backend, concurrency))
        for index, response in progress(answered, label, total=len(requests), unit="request"):
            item = asking[index]
            summary.usage.add(response.usage)
            if not response.texts:
                summary.without_answers.append(item.item_id)
            elif turn < item.turns:
                answers[item.item_id].append(response.texts[0])
            else:
                rows = [
                    _row(item, sample, text, response.model or backend.model, strategy, temperature)
                    for sample, text in enumerate(response.texts)
                ]
                done[item.item_id] = rows
                journal.append(item.item_id, rows)
    rows = [row for item in items for row in done.get(item.item_id, [])]
    summary.candidates = len(rows)
    summary.not_extracted = sum(not row["extracted"] for row in rows)
    write_text_atomic(Path(out), "".join(json.dumps(_public(row)) + "\n" for row in rows))
    journal.remove()
    if summary.without_answers:
        log.warning(
            "%d items got no answer from %s: %s",
            len(summary.without_answers),
            backend.name,
            ", ".join(sorted(summary.without_answers)[:10]),
        )
    return summary


def _items(dataset: Path, strategy: str, description: str | None) -> tuple[list[GenerationItem], str]:
    benchmark = benchmark_of(dataset)
    if strategy not in benchmark.strategies:
        raise BenchsmithError(
            f"{dataset}: --strategy {strategy} does not apply to the {benchmark.name} benchmark; "
            f"it must be one of {', '.join(benchmark.strategies)}"
        )
    return benchmark.generation_items(list(benchmark.load(dataset).values()), strategy, description, dataset)


def _request(
    item: GenerationItem,
    turn: int,
    answers: list[str],
    strategy: str,
    n: int,
    temperature: float,
    max_tokens: int | None,
) -> ChatRequest:
    final = turn == item.turns
    purpose = f"generate/{strategy}" if item.turns == 1 else f"generate/{strategy}/turn-{turn}"
    context = {} if item.turns == 1 else {"turn": str(turn), "final_turn": "true" if final else "false"}
    return ChatRequest(
        messages=item.conversation(answers),
        n=n if final else 1,
        temperature=temperature,
        max_tokens=max_tokens,
        item_id=item.item_id,
        purpose=purpose,
        context=context,
    )


def _row(item: GenerationItem, sample: int, text: str, model: str, strategy: str, temperature: float) -> dict:
    extraction = item.extract(text)
    return {
        "instance_id": item.item_id,
        "candidate_id": f"{item.candidate_prefix}-{sample}",
        "code": extraction.code,
        "model": model,
        "strategy": strategy,
        "temperature": temperature,
        "sample": sample,
        "extraction": extraction.reason,
        "extracted": extraction.found,
    }


def _public(row: dict) -> dict:
    """The candidates row; ``extraction`` (how the code was found) rides along and readers ignore it."""
    return {key: value for key, value in row.items() if key != "extracted"}


class _Journal:
    """Finished items of an interrupted run: a settings line, then one line per item; valid only for the same
    settings."""

    def __init__(self, out: Path, settings: dict) -> None:
        self.journal = Journal(out)
        self.settings = settings
        self._started = False  # the settings line is in

    def load(self) -> dict[str, list[dict]]:
        entries = self.journal.read(_journal_entry)
        if not entries:
            return {}
        if "settings" not in entries[0]:
            raise BenchsmithError(
                f"{self.journal.path}:1: corrupt journal line (no settings); delete the journal to start over"
            )
        self._check(entries[0]["settings"])
        self._started = True
        return {entry["item_id"]: entry["rows"] for entry in entries[1:] if "item_id" in entry}

    def _check(self, recorded: dict) -> None:
        differing = sorted(
            key for key in set(recorded) | set(self.settings) if recorded.get(key) != self.settings.get(key)
        )
        if differing:
            raise BenchsmithError(
                f"{self.journal.path}: left by an interrupted run with other settings ({', '.join(differing)}); "
                "delete it or choose another --out"
            )

    def append(self, item_id: str, rows: list[dict]) -> None:
        # The settings line goes in with the first item, so a run that finished nothing leaves no journal behind.
        entry = {"item_id": item_id, "rows": rows}
        self.journal.append(entry) if self._started else self.journal.append({"settings": self.settings}, entry)
        self._started = True

    def remove(self) -> None:
        self.journal.remove()


def _journal_entry(entry: dict) -> dict:
    if "settings" in entry:
        return {"settings": dict(entry["settings"])}
    return {"item_id": str(entry["item_id"]), "rows": list(entry["rows"])}


def backend_concurrency(backend: Backend, concurrency: int | None) -> int:
    """*concurrency*, else what the backend was configured with (``--concurrency``), else the default."""
    return concurrency or backend.default_concurrency
