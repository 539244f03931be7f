"""``benchsmith describe``: fill each RepoClassBench task's DETAILED and SKETCHY descriptions (RepoClassBench paper,
stage 4).

A backend writes each description from the task's metadata: a hosted model
(``openai``, as the paper's GPT-4), recorded answers (``replay``) or the
offline renderer (``template``). Who wrote them is kept beside them
(backend, model, and the hash of the prompt templates), so a rerun skips the
tasks already described the same way and re-describes the rest. Finished
tasks are appended to ``<out>.journal.jsonl`` as they come, so an
interrupted run resumes; the dataset is written atomically at the end.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.benchmarks import DESCRIPTION_PROVENANCE, Describer, benchmark_of
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.export import write_records
from benchsmith.core.journal import Journal
from benchsmith.core.progress import progress
from benchsmith.generation.candidates.generate import backend_concurrency
from benchsmith.generation.models import complete_many
from benchsmith.generation.models.base import Backend, Usage
from benchsmith.generation.prompts import strategy_hash

log = logging.getLogger(__name__)


@dataclass
class DescribeSummary:
    tasks: int = 0
    described: int = 0  # by this run
    skipped: int = 0  # already described by the same backend, model and prompt
    resumed: int = 0  # described by an interrupted run of this command
    without_answers: list[str] = field(default_factory=list)  # tasks left as they were: a description came back empty
    usage: Usage = field(default_factory=Usage)


def describe(
    dataset: Path, backend: Backend, out: Path | None = None, concurrency: int | None = None
) -> DescribeSummary:
    """Describe every task of *dataset* not yet described by *backend*; write the dataset to *out* (default: in
    place)."""
    dataset = Path(dataset)
    out = Path(out) if out is not None else dataset
    benchmark = benchmark_of(dataset)
    describer: Describer | None = benchmark.describer
    if describer is None:
        raise BenchsmithError(f"{dataset}: a {benchmark.name} dataset, whose instances carry no descriptions to write")
    tasks = list(benchmark.load(dataset).values())
    levels = describer.levels
    provenance = dict(zip(DESCRIPTION_PROVENANCE, (backend.name, backend.model, strategy_hash("describe"))))
    summary = DescribeSummary(tasks=len(tasks))
    journal = Journal(out)
    finished = {task_id: texts for task_id, texts, made_by in journal.read(_journal_entry) if made_by == provenance}
    todo = []
    for task in tasks:
        if describer.described_by(task, provenance):
            summary.skipped += 1
        elif benchmark.instance_id(task) in finished:
            summary.resumed += 1
        else:
            todo.append(task)
    log.info(
        "%d tasks: %d already described this way, %d from an interrupted run, %d to describe",
        len(tasks),
        summary.skipped,
        summary.resumed,
        len(todo),
    )
    requests = [describer.request(task, level) for task in todo for level in levels]
    answers: dict[str, dict[str, str]] = {}
    answered = complete_many(backend, requests, backend_concurrency(backend, concurrency))
    for index, response in progress(answered, "describing", total=len(requests), unit="request"):
        task, level = todo[index // len(levels)], levels[index % len(levels)]
        task_id = benchmark.instance_id(task)
        summary.usage.add(response.usage)
        text = response.texts[0].strip() if response.texts else ""
        if not text:
            if task_id not in summary.without_answers:
                summary.without_answers.append(task_id)
            continue
        answers.setdefault(task_id, {})[level] = text
        if len(answers[task_id]) == len(levels) and task_id not in summary.without_answers:
            finished[task_id] = answers[task_id]
            summary.described += 1
            journal.append({"task_id": task_id, **provenance, **answers[task_id]})
    updated = []
    for task in tasks:
        texts = finished.get(benchmark.instance_id(task))
        if texts is not None and not describer.described_by(task, provenance):
            task = describer.with_descriptions(task, texts, provenance)
        updated.append(task)
    if updated != tasks or out.resolve() != dataset.resolve():
        write_records(out, updated, benchmark.record_type, benchmark=benchmark.name)
    journal.remove()
    if summary.without_answers:
        log.warning(
            "%d tasks got an empty description from %s and were left as they were: %s",
            len(summary.without_answers),
            backend.name,
            ", ".join(summary.without_answers[:10]),
        )
    return summary


def _journal_entry(entry: dict) -> tuple[str, dict[str, str], dict[str, str]]:
    """A finished task's id, its descriptions, and who wrote them (entries of other backends are not resumed)."""
    texts = {key: str(value) for key, value in entry.items() if key != "task_id" and key not in DESCRIPTION_PROVENANCE}
    return str(entry["task_id"]), texts, {key: entry.get(key) for key in DESCRIPTION_PROVENANCE}
