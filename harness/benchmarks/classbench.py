"""RepoClassBench: a class's description in, the whole class out, judged by the repository's tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask
from harness.benchmarks import (
    DESCRIPTION_PROVENANCE,
    AgentOptions,
    Benchmark,
    CandidateRunner,
    Describer,
    EvalOptions,
    GenerationItem,
    ReferenceCandidate,
    register,
)
from harness.prompts.extraction import extract_python_class
from harness.models.base import ChatRequest
from harness.prompts import CLASSBENCH_STRATEGIES
from harness.prompts import classbench as prompts

if TYPE_CHECKING:
    from harness.agents.base import AgentTask, Oracle, Toolbox


class ClassDescriber(Describer[ClassBenchTask]):
    levels = prompts.DESCRIPTION_LEVELS  # ("detailed", "sketchy")

    def request(self, task: ClassBenchTask, level: str) -> ChatRequest:
        metadata = task.detailed_metadata if level == "detailed" else task.sketchy_metadata
        # Deterministic (temperature 0): a dataset's descriptions are data, not samples.
        return ChatRequest(messages=prompts.describe(task, level), n=1, temperature=0.0, item_id=task.task_id,
                           purpose=f"describe/{level}", context={"metadata": metadata, "class_name": task.class_name})  # fmt: skip

    def described_by(self, task: ClassBenchTask, provenance: dict[str, str]) -> bool:
        same = all(getattr(task, key) == provenance[key] for key in DESCRIPTION_PROVENANCE)
        return same and bool(task.detailed_description.strip()) and bool(task.sketchy_description.strip())

    def with_descriptions(self, task: ClassBenchTask, texts: dict[str, str], provenance: dict[str, str]) -> ClassBenchTask:
        return dataclasses.replace(task, detailed_description=texts["detailed"], sketchy_description=texts["sketchy"],
                                   **{key: provenance[key] for key in DESCRIPTION_PROVENANCE})  # fmt: skip


class ClassTasks(Benchmark[ClassBenchTask]):
    """What RepoClassBench's two languages share: the records, their ids and repositories, descriptions, prompts."""

    record_type = ClassBenchTask
    strategies = CLASSBENCH_STRATEGIES
    describer = ClassDescriber()

    def instance_id(self, record: ClassBenchTask) -> str:
        return record.task_id

    def project_of(self, record: ClassBenchTask) -> str:
        return record.task_id.split("::", 1)[0]  # the repository's key, as benchsmith.core.schema.task_id made it

    def generation_items(self, records: list[ClassBenchTask], strategy: str, description: str | None,
                         dataset: Path) -> tuple[list[GenerationItem], str]:  # fmt: skip
        level = description or "detailed"
        return [self.generation_item(task, level) for task in records], level

    def generation_item(self, task: ClassBenchTask, level: str) -> GenerationItem:
        raise NotImplementedError


class ClassBench(ClassTasks):
    name = "classbench"
    language = "python"

    def generation_item(self, task: ClassBenchTask, level: str) -> GenerationItem:
        return _item(task, level)

    def dedup_key(self, code: str) -> str:
        from harness.python.class_runner import python_dedup_key

        return python_dedup_key(code)

    def runners(self, options: EvalOptions) -> Callable[[ClassBenchTask, int, Path], CandidateRunner]:
        from harness.python.class_runner import TaskRunner

        return lambda task, slot, logs: TaskRunner(task, slot, options.limits, logs, second_opinion=options.second_opinion)

    def agent_task(self, record: ClassBenchTask, description: str | None) -> AgentTask:
        return _agent_task(record, description or "detailed")

    def agent_environment(self, record: ClassBenchTask, options: AgentOptions) -> tuple[Toolbox, Oracle]:
        from harness.agents.oracle import python_oracle
        from harness.agents.python_tools import python_toolbox

        if record.language != "python":
            raise BenchsmithError(f"{record.task_id}: repository tools exist for python tasks only, not {record.language}")
        toolbox = python_toolbox(record, relatives=not options.no_relatives,
                                 description=prompts.task_description(record, options.description))  # fmt: skip
        logs = options.logs / "".join(c if c.isalnum() or c in "-_." else "_" for c in record.task_id)
        return toolbox, python_oracle(record, options.limits, logs, slot=options.slot)

    def reference_candidates(self, records: list[ClassBenchTask], mutants: int, seed: int) -> list[ReferenceCandidate]:
        from harness.python.class_runner import reference_solution

        rows = []
        for task in records:
            rows.append(ReferenceCandidate(task.task_id, "gold", reference_solution(task)))
            rows.append(ReferenceCandidate(task.task_id, "empty", f"class {task.class_name}:\n    pass\n"))
        return rows


def _agent_task(task: ClassBenchTask, level: str) -> AgentTask:
    from harness.agents.base import AgentTask, Oracle, Toolbox

    if task.language != "python":
        raise BenchsmithError(f"{task.task_id}: agents support python tasks only, not {task.language}")
    description = prompts.task_description(task, level)  # an undescribed task fails before any request
    return AgentTask(task.task_id, task.language, task.file_path, task.class_name, description,
                     lambda text: extract_python_class(text, task.class_name))  # fmt: skip


def _item(task: ClassBenchTask, level: str) -> GenerationItem:
    if task.language != "python":
        raise BenchsmithError(f"{task.task_id}: generation supports python tasks only, not {task.language}")
    messages = prompts.basic(task, level)  # renders now, so an undescribed task fails before any request
    return GenerationItem(task.task_id, 1, lambda answers: messages, lambda text: extract_python_class(text, task.class_name),
                          f"basic-{level}")  # fmt: skip


register(ClassBench())
