"""``benchsmith describe``: fill each RepoClassBench task's DETAILED and SKETCHY descriptions (seed 002, stage 4).

A backend writes each description from the task's metadata: a hosted model
(``openai``, as the paper's GPT-4), recorded answers (``replay``) or the
offline renderer (``template``). Who wrote them is kept beside them
(backend, model, and the hash of the prompt templates), so a rerun skips the
tasks already described the same way and re-describes the rest. Finished
tasks are appended to ``<out>.journal.jsonl`` as they come, so an
interrupted run resumes; the dataset is written atomically at the end.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from benchsmith.atomic import atomic_path
from benchsmith.errors import BenchsmithError
from benchsmith.journal import Journal
from benchsmith.progress import progress
from benchsmith.schema import ClassBenchTask, dataset_kind, read_records, to_table
from harness.generate import backend_concurrency
from harness.models import complete_many
from harness.models.base import Backend, ChatRequest, Usage
from harness.prompts import classbench as prompts
from harness.prompts import strategy_hash

log = logging.getLogger(__name__)
_PROVENANCE = ("description_backend", "description_model", "description_prompt_hash")

LEVELS = prompts.DESCRIPTION_LEVELS  # ("detailed", "sketchy")


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
    """Describe every task of *dataset* not yet described by *backend*; write the dataset to *out* (default: in place)."""
    dataset = Path(dataset)
    out = Path(out) if out is not None else dataset
    _check_classbench(dataset)
    tasks = read_records(dataset, ClassBenchTask)
    provenance = dict(zip(_PROVENANCE, (backend.name, backend.model, strategy_hash("describe"))))
    summary = DescribeSummary(tasks=len(tasks))
    journal = Journal(out)
    finished = {task_id: texts for task_id, texts, made_by in journal.read(_journal_entry) if made_by == provenance}
    todo = []
    for task in tasks:
        if _described_by(task, provenance):
            summary.skipped += 1
        elif task.task_id in finished:
            summary.resumed += 1
        else:
            todo.append(task)
    log.info("%d tasks: %d already described this way, %d from an interrupted run, %d to describe",
             len(tasks), summary.skipped, summary.resumed, len(todo))  # fmt: skip
    requests = [_request(task, level) for task in todo for level in LEVELS]
    answers: dict[str, dict[str, str]] = {}
    answered = complete_many(backend, requests, backend_concurrency(backend, concurrency))
    for index, response in progress(answered, "describing", total=len(requests), unit="request"):
        task, level = todo[index // len(LEVELS)], LEVELS[index % len(LEVELS)]
        summary.usage.add(response.usage)
        text = response.texts[0].strip() if response.texts else ""
        if not text:
            if task.task_id not in summary.without_answers:
                summary.without_answers.append(task.task_id)
            continue
        answers.setdefault(task.task_id, {})[level] = text
        if len(answers[task.task_id]) == len(LEVELS) and task.task_id not in summary.without_answers:
            finished[task.task_id] = answers[task.task_id]
            summary.described += 1
            journal.append({"task_id": task.task_id, **provenance, **answers[task.task_id]})
    updated = []
    for task in tasks:
        texts = finished.get(task.task_id)
        if texts is not None and not _described_by(task, provenance):
            task = dataclasses.replace(
                task, detailed_description=texts["detailed"], sketchy_description=texts["sketchy"], **provenance
            )
        updated.append(task)
    if updated != tasks or out.resolve() != dataset.resolve():
        table = to_table(updated, ClassBenchTask)
        with atomic_path(out) as tmp:
            pq.write_table(table, tmp)
    journal.remove()
    if summary.without_answers:
        log.warning("%d tasks got an empty description from %s and were left as they were: %s",
                    len(summary.without_answers), backend.name, ", ".join(summary.without_answers[:10]))  # fmt: skip
    return summary


def _check_classbench(dataset: Path) -> None:
    if dataset_kind(dataset) != "classbench":
        raise BenchsmithError(f"{dataset}: not a classbench dataset (describe writes class descriptions)")


def _described_by(task: ClassBenchTask, provenance: dict[str, str]) -> bool:
    same = all(getattr(task, key) == value for key, value in provenance.items())
    return same and bool(task.detailed_description.strip()) and bool(task.sketchy_description.strip())


def _request(task: ClassBenchTask, level: str) -> ChatRequest:
    metadata = task.detailed_metadata if level == "detailed" else task.sketchy_metadata
    # Deterministic (temperature 0): a dataset's descriptions are data, not samples.
    return ChatRequest(messages=prompts.describe(task, level), n=1, temperature=0.0, item_id=task.task_id,
                       purpose=f"describe/{level}", context={"metadata": metadata, "class_name": task.class_name})  # fmt: skip


def _journal_entry(entry: dict) -> tuple[str, dict[str, str], dict[str, str]]:
    """A finished task's id, its descriptions, and who wrote them (entries of other backends are not resumed)."""
    texts = {level: str(entry[level]) for level in LEVELS}
    return str(entry["task_id"]), texts, {key: entry.get(key) for key in _PROVENANCE}
