"""A toy benchmark, registered from this one module: the model writes a Python expression, a fresh interpreter
prints its value, and the instance is solved when the value is the expected one.

Nothing in ``eval`` or ``report`` knows of it; the registry is the only door.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchsmith.benchmarks import Benchmark, CandidateRunner, EvalOptions, GenerationItem, ReferenceCandidate, register
from benchsmith.core.verdict import Verdict
from benchsmith.generation.models.base import Message
from benchsmith.generation.prompts.extraction import Extraction


@dataclass(frozen=True)
class ArithmeticTask:
    task_id: str
    topic: str
    question: str
    answer: int


class Arithmetic(Benchmark[ArithmeticTask]):
    name = "toy-arithmetic"
    record_type = ArithmeticTask
    strategies = ("ask",)
    report_columns = ("pass@k",)  # no test pass rate: one check per task

    def instance_id(self, record: ArithmeticTask) -> str:
        return record.task_id

    def project_of(self, record: ArithmeticTask) -> str:
        return record.topic

    def generation_items(
        self, records: list[ArithmeticTask], strategy: str, description: str | None, dataset: Path
    ) -> tuple[list[GenerationItem], str]:
        return [
            GenerationItem(
                t.task_id,
                1,
                lambda answers, t=t: (Message("user", t.question),),
                lambda text: Extraction(text.strip(), True, "whole answer"),
                strategy,
            )
            for t in records
        ], ""

    def dedup_key(self, code: str) -> str:
        return "".join(code.split())

    def runners(self, options: EvalOptions) -> Callable[[ArithmeticTask, int, Path], CandidateRunner]:
        return lambda task, slot, logs: _Interpreter(task, options.limits.wall_seconds)

    def reference_candidates(self, records: list[ArithmeticTask], mutants: int, seed: int) -> list[ReferenceCandidate]:
        return [
            c
            for t in records
            for c in (
                ReferenceCandidate(t.task_id, "gold", str(t.answer)),
                ReferenceCandidate(t.task_id, "off-by-one", f"{t.answer} + 1"),
            )
        ]


@dataclass
class _Interpreter:
    task: ArithmeticTask
    timeout: float

    def evaluate(self, code: str, name: str) -> Verdict:
        started = time.monotonic()
        try:
            ran = subprocess.run(
                [sys.executable, "-I", "-c", f"print({code})"], capture_output=True, text=True, timeout=self.timeout
            )
        except subprocess.TimeoutExpired:
            return Verdict("timeout", compiled=True, tests_failed=1, seconds=time.monotonic() - started)
        seconds = time.monotonic() - started
        if ran.returncode != 0:
            status = "uncompilable" if "SyntaxError" in ran.stderr else "wrong"
            return Verdict(
                status,
                compiled=status != "uncompilable",
                tests_failed=1,
                failing_tests=["value"],
                reason=ran.stderr.strip().splitlines()[-1],
                seconds=seconds,
            )
        right = ran.stdout.strip() == str(self.task.answer)
        return Verdict(
            "plausible" if right else "wrong",
            compiled=True,
            tests_passed=int(right),
            tests_failed=int(not right),
            failing_tests=[] if right else ["value"],
            seconds=seconds,
        )

    def close(self) -> None:
        pass


ARITHMETIC = register(Arithmetic())
