"""RepoClassBench for Java (RepoClassBench paper): a class's description in, its whole file out, judged by the repository's tests.

The records are classbench's (``ClassBenchTask``, language "java"); what
differs is the runner (``harness.java.class_runner``: the warm JVM of NL2Fix,
tests on the JUnit Platform), what a candidate is (a whole file), how two are
the same (javac's tokens) and the empty class's shape. The report adds CR, the
share of candidates that compile.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask
from harness.benchmarks import (
    AgentOptions,
    CandidateRunner,
    EvalOptions,
    GenerationItem,
    ReferenceCandidate,
    register,
)
from harness.benchmarks.classbench import ClassTasks
from harness.prompts.extraction import extract_java_class
from harness.java.insertion import dedup_key
from harness.prompts import classbench as prompts
from benchsmith.core.verdict import Verdict
from sources.javaclass import empty_shell

if TYPE_CHECKING:
    from harness.agents.base import AgentTask, Oracle, Toolbox

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
        from harness.java.class_runner import ClassTaskRunner, task_workspace

        def open_runner(task: ClassBenchTask, slot: int, logs: Path) -> CandidateRunner:
            if task.language != "java":
                raise BenchsmithError(f"{task.task_id}: a {task.language} task in a classbench-java dataset")
            if not task.test_directives:
                raise BenchsmithError(f"{task.task_id}: no test directives (an imported task not built here?)")
            return _Candidates(ClassTaskRunner(task, task_workspace(task), slot, options.limits, logs), options.fast)

        return open_runner

    def agent_task(self, record: ClassBenchTask, description: str | None) -> AgentTask:
        from harness.agents.base import AgentTask

        level = description or "detailed"
        text = prompts.task_description(record, level)  # an undescribed task fails before any request
        return AgentTask(record.task_id, "java", record.file_path, record.class_name, text,
                         lambda answer: extract_java_class(answer, record.class_name))  # fmt: skip

    def agent_environment(self, record: ClassBenchTask, options: AgentOptions) -> tuple[Toolbox, Oracle]:
        from harness.agents.java_tools import java_toolbox
        from harness.agents.oracle import java_oracle

        toolbox = java_toolbox(record, relatives=not options.no_relatives,
                               description=prompts.task_description(record, options.description))  # fmt: skip
        logs = options.logs / "".join(c if c.isalnum() or c in "-_." else "_" for c in record.task_id)
        return toolbox, java_oracle(record, options.limits, logs, slot=options.slot)

    def reference_candidates(self, records: list[ClassBenchTask], mutants: int, seed: int) -> list[ReferenceCandidate]:
        rows = []
        for task in records:
            rows.append(ReferenceCandidate(task.task_id, "gold", task.ground_truth_class))
            try:
                empty = empty_shell(task.ground_truth_class, task.class_name, task.task_id)
            except BenchsmithError as exc:
                # five published tasks name a class their file does not declare (IntegerBooleanHandler in
                # BigIntegerBooleanHandler.java): there is no empty class to make, and their gold fails the check
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
    return GenerationItem(task.task_id, 1, lambda answers: messages, lambda text: extract_java_class(text, task.class_name),
                          f"basic-{level}")  # fmt: skip


register(ClassBenchJava())
