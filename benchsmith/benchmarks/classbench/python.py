"""RepoClassBench: a class's description in, the whole class out, judged by the repository's tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from benchsmith.benchmarks import (
    AgentOptions,
    CandidateRunner,
    EvalOptions,
    GenerationItem,
    ReferenceCandidate,
    register,
)
from benchsmith.benchmarks.classbench.tasks import ClassTasks
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask
from benchsmith.generation.agents.base import AgentTask
from benchsmith.generation.agents.oracle import FEEDBACK_BUDGET, HarnessOracle
from benchsmith.generation.prompts import classbench as prompts
from benchsmith.generation.prompts.extraction import extract_python_class
from benchsmith.runners.sandbox.jail import Limits

if TYPE_CHECKING:
    from benchsmith.generation.agents.base import AgentTask, Oracle, Toolbox
    from benchsmith.generation.agents.python.visible import VisibleRepository


class ClassBench(ClassTasks):
    name = "classbench"
    language = "python"

    def generation_item(self, task: ClassBenchTask, level: str) -> GenerationItem:
        return _item(task, level)

    def dedup_key(self, code: str) -> str:
        from benchsmith.runners.python.class_runner import python_dedup_key

        return python_dedup_key(code)

    def runners(self, options: EvalOptions) -> Callable[[ClassBenchTask, int, Path], CandidateRunner]:
        from benchsmith.runners.python.class_runner import TaskRunner

        return lambda task, slot, logs: TaskRunner(
            task, slot, options.limits, logs, second_opinion=options.second_opinion
        )

    def agent_task(self, record: ClassBenchTask, description: str | None) -> AgentTask:
        return _agent_task(record, description or "detailed")

    def agent_environment(self, record: ClassBenchTask, options: AgentOptions) -> tuple[Toolbox, Oracle]:
        from benchsmith.generation.agents.python.tools import python_toolbox

        if record.language != "python":
            raise BenchsmithError(
                f"{record.task_id}: repository tools exist for python tasks only, not {record.language}"
            )
        toolbox = python_toolbox(
            record,
            visible_repository_of(record, relatives=not options.no_relatives),
            description=prompts.task_description(record, options.description),
        )
        logs = options.logs / "".join(c if c.isalnum() or c in "-_." else "_" for c in record.task_id)
        return toolbox, python_oracle(record, options.limits, logs, slot=options.slot)

    def reference_candidates(self, records: list[ClassBenchTask], mutants: int, seed: int) -> list[ReferenceCandidate]:
        from benchsmith.runners.python.class_runner import reference_solution

        rows = []
        for task in records:
            rows.append(ReferenceCandidate(task.task_id, "gold", reference_solution(task)))
            rows.append(ReferenceCandidate(task.task_id, "empty", f"class {task.class_name}:\n    pass\n"))
        return rows


def _agent_task(task: ClassBenchTask, level: str) -> AgentTask:

    if task.language != "python":
        raise BenchsmithError(f"{task.task_id}: agents support python tasks only, not {task.language}")
    description = prompts.task_description(task, level)  # an undescribed task fails before any request
    return AgentTask(
        task.task_id,
        task.language,
        task.file_path,
        task.class_name,
        description,
        lambda text: extract_python_class(text, task.class_name),
    )


def _item(task: ClassBenchTask, level: str) -> GenerationItem:
    if task.language != "python":
        raise BenchsmithError(f"{task.task_id}: generation supports python tasks only, not {task.language}")
    messages = prompts.basic(task, level)  # renders now, so an undescribed task fails before any request
    return GenerationItem(
        task.task_id,
        1,
        lambda answers: messages,
        lambda text: extract_python_class(text, task.class_name),
        f"basic-{level}",
    )


register(ClassBench())


def visible_repository_of(task: ClassBenchTask, relatives: bool = True) -> VisibleRepository:
    """*task*'s repository as an agent's tools show it: its public view, the tree candidates are judged in."""
    from benchsmith.generation.agents.python.visible import visible_repository
    from benchsmith.runners.python.public_view import python_public_view
    from benchsmith.sources.python.repo import resolve

    repo = resolve(task.repo, task.commit or None)
    return visible_repository(task, repo, python_public_view(repo, task.file_path, task.class_name), relatives)


def python_oracle(
    task: ClassBenchTask, limits: Limits, logs: Path, *, slot: int, budget: int = FEEDBACK_BUDGET
) -> HarnessOracle:
    """The oracle of *task*: its class harness in sandbox *slot* (one this process leased: a run kills every process
    of its slot's uid when it ends), run logs under *logs*, feedback within *budget*."""
    from benchsmith.runners.python.class_runner import TaskRunner

    logs.mkdir(parents=True, exist_ok=True)
    return HarnessOracle(task, TaskRunner(task, slot, limits, logs), budget)
