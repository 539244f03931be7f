"""What RepoClassBench's two languages share as benchmarks: the records, their ids and repositories, descriptions."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from benchsmith.benchmarks import DESCRIPTION_PROVENANCE, Benchmark, Describer, GenerationItem
from benchsmith.core.schema import ClassBenchTask
from benchsmith.generation.models.base import ChatRequest
from benchsmith.generation.prompts import CLASSBENCH_STRATEGIES
from benchsmith.generation.prompts import classbench as prompts


class ClassDescriber(Describer[ClassBenchTask]):
    levels = prompts.DESCRIPTION_LEVELS  # ("detailed", "sketchy")

    def request(self, task: ClassBenchTask, level: str) -> ChatRequest:
        metadata = task.detailed_metadata if level == "detailed" else task.sketchy_metadata
        # Deterministic (temperature 0): a dataset's descriptions are data, not samples.
        return ChatRequest(
            messages=prompts.describe(task, level),
            n=1,
            temperature=0.0,
            item_id=task.task_id,
            purpose=f"describe/{level}",
            context={"metadata": metadata, "class_name": task.class_name},
        )

    def described_by(self, task: ClassBenchTask, provenance: dict[str, str]) -> bool:
        same = all(getattr(task, key) == provenance[key] for key in DESCRIPTION_PROVENANCE)
        return same and bool(task.detailed_description.strip()) and bool(task.sketchy_description.strip())

    def with_descriptions(
        self, task: ClassBenchTask, texts: dict[str, str], provenance: dict[str, str]
    ) -> ClassBenchTask:
        return dataclasses.replace(
            task,
            detailed_description=texts["detailed"],
            sketchy_description=texts["sketchy"],
            **{key: provenance[key] for key in DESCRIPTION_PROVENANCE},
        )


class ClassTasks(Benchmark[ClassBenchTask]):
    """What RepoClassBench's two languages share: the records, their ids and repositories, descriptions, prompts."""

    record_type = ClassBenchTask
    strategies = CLASSBENCH_STRATEGIES
    describer = ClassDescriber()

    def instance_id(self, record: ClassBenchTask) -> str:
        return record.task_id

    def project_of(self, record: ClassBenchTask) -> str:
        return record.task_id.split("::", 1)[0]  # the repository's key, as benchsmith.core.schema.task_id made it

    def generation_items(
        self, records: list[ClassBenchTask], strategy: str, description: str | None, dataset: Path
    ) -> tuple[list[GenerationItem], str]:
        level = description or "detailed"
        return [self.generation_item(task, level) for task in records], level

    def generation_item(self, task: ClassBenchTask, level: str) -> GenerationItem:
        raise NotImplementedError
