"""RepoClassBench for Java (RepoClassBench paper): a class's description in, its whole file out, judged by the
repository's tests.

The records are classbench's (``ClassBenchTask``, language "java"); what
differs is the runner (``benchsmith.runners.java.class_runner``: the warm JVM of NL2Fix,
tests on the JUnit Platform), what a candidate is (a whole file), how two are
the same (javac's tokens) and the empty class's shape. The report adds CR, the
share of candidates that compile.
"""

from __future__ import annotations

import logging
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
from benchsmith.core.verdict import Verdict
from benchsmith.generation.agents.base import AgentTask
from benchsmith.generation.agents.oracle import FEEDBACK_BUDGET, HarnessOracle
from benchsmith.generation.prompts import classbench as prompts
from benchsmith.generation.prompts.extraction import extract_java_class
from benchsmith.runners.java.insertion import dedup_key
from benchsmith.runners.sandbox.jail import Limits
from benchsmith.sources.java.class_file import empty_shell

if TYPE_CHECKING:
    from benchsmith.generation.agents.base import AgentTask, Oracle, Toolbox

log = logging.getLogger(__name__)


class ClassBenchJava(ClassTasks):
    name = "classbench-java"
    language = "java"
    report_columns = ("pass@k", "TR", "CR")

    def generation_item(self, task: ClassBenchTask, level: str) -> GenerationItem:
        return _item(task, level)

    def dedup_key(self, code: str) -> str:
        return dedup_key(code)

    def runners(self, options: EvalOptions) -> Callable[[ClassBenchTask, int, Path], CandidateRunner]:
        from benchsmith.runners.java.class_runner import ClassTaskRunner, task_workspace

        def open_runner(task: ClassBenchTask, slot: int, logs: Path) -> CandidateRunner:
            if task.language != "java":
                raise BenchsmithError(f"{task.task_id}: a {task.language} task in a classbench-java dataset")
            if not task.test_directives:
                raise BenchsmithError(f"{task.task_id}: no test directives (an imported task not built here?)")
            return _Candidates(ClassTaskRunner(task, task_workspace(task), slot, options.limits, logs), options.fast)

        return open_runner

    def agent_task(self, record: ClassBenchTask, description: str | None) -> AgentTask:

        level = description or "detailed"
        text = prompts.task_description(record, level)  # an undescribed task fails before any request
        return AgentTask(
            record.task_id,
            "java",
            record.file_path,
            record.class_name,
            text,
            lambda answer: extract_java_class(answer, record.class_name),
        )

    def agent_environment(self, record: ClassBenchTask, options: AgentOptions) -> tuple[Toolbox, Oracle]:
        from benchsmith.generation.agents.java.tools import java_toolbox
        from benchsmith.runners.java.jvm import release_api

        toolbox = java_toolbox(
            record,
            visible_files(record, relatives=not options.no_relatives),
            jdk_api=release_api(),
            description=prompts.task_description(record, options.description),
        )
        logs = options.logs / "".join(c if c.isalnum() or c in "-_." else "_" for c in record.task_id)
        return toolbox, java_oracle(record, options.limits, logs, slot=options.slot)

    def reference_candidates(self, records: list[ClassBenchTask], mutants: int, seed: int) -> list[ReferenceCandidate]:
        rows = []
        for task in records:
            rows.append(ReferenceCandidate(task.task_id, "gold", task.ground_truth_class))
            try:
                empty = empty_shell(task.ground_truth_class, task.class_name, task.task_id)
            except BenchsmithError as exc:
                # a published task whose class_name neither its file nor the file's name declares: there is no
                # empty class to make, and its gold fails the check
                log.warning("no empty class: %s", exc)
                continue
            rows.append(ReferenceCandidate(task.task_id, "empty", empty))
        return rows


class _Candidates:
    def __init__(self, runner, fast: bool):
        self.runner, self.fast = runner, fast

    def evaluate(self, code: str, name: str) -> Verdict:
        return self.runner.evaluate(code, name, fast=self.fast)

    def close(self) -> None:
        self.runner.close()


def _item(task: ClassBenchTask, level: str) -> GenerationItem:
    messages = prompts.basic(task, level)
    return GenerationItem(
        task.task_id,
        1,
        lambda answers: messages,
        lambda text: extract_java_class(text, task.class_name),
        f"basic-{level}",
    )


register(ClassBenchJava())


def visible_files(task: ClassBenchTask, relatives: bool = True) -> dict[str, str]:
    """The Java files an agent's tools show: the task's public view (the tree candidates are judged in) without the
    directives' test files (and the relatives')."""
    from benchsmith.runners.java.class_runner import task_workspace
    from benchsmith.runners.java.defects4j_workspace import java_public_view

    prepared = task_workspace(task)
    view = java_public_view(prepared.workspace, task.file_path)
    hidden = {f"src/test/java/{d.split('::')[0].split('$')[0].replace('.', '/')}.java" for d in task.test_directives}
    if not relatives:
        hidden |= {f"src/main/java/{r.replace('.', '/')}.java" for r in task.relatives}
    files = {}
    for path in sorted(view.tree.rglob("*.java")):
        relative = str(path.relative_to(view.tree))
        if relative != task.file_path and relative not in hidden:
            files[relative] = path.read_text(encoding="utf-8", errors="replace")
    return files


def java_oracle(
    task: ClassBenchTask, limits: Limits, logs: Path, *, slot: int, budget: int = FEEDBACK_BUDGET
) -> HarnessOracle:
    """A Java task's oracle: the class harness (compiler errors, or failing directives with their messages)."""
    from benchsmith.runners.java.class_runner import ClassTaskRunner, task_workspace

    logs.mkdir(parents=True, exist_ok=True)
    return HarnessOracle(task, ClassTaskRunner(task, task_workspace(task), slot, limits, logs), budget)
