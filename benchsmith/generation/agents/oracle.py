"""The oracle of the RepoClassBench paper (Algorithm 1, O): an attempt judged by the benchmark's own class harness, in
words.

:class:`HarnessOracle` wraps the runner a benchmark judges a task's candidates with (its ``agent_environment``
makes it): each attempt runs sandboxed exactly as ``eval`` runs a candidate, and the verdict (decided by the
out-of-band outcomes, sentinels included) is turned into the feedback the model sees: a parse error, or the failing
directives, each with the end of pytest's report of its failure, within a character budget.
"""

from __future__ import annotations

from benchsmith.core.schema import ClassBenchTask
from benchsmith.core.verdict import Verdict
from benchsmith.generation.agents.base import Feedback

FEEDBACK_BUDGET = 2000  # characters of feedback per attempt
COMPILER_ERRORS = "compiler"  # Verdict.messages' key for a candidate's compiler errors (Java)


def feedback_text(verdict: Verdict, total: int, budget: int = FEEDBACK_BUDGET) -> str:
    """What the model reads about *verdict*: at most *budget* characters."""
    if verdict.status == "plausible":
        return f"All {total} tests passed."
    if verdict.status == "uncompilable":
        errors = verdict.messages.get(COMPILER_ERRORS, "")
        return _cut(f"The code could not be used: {errors or verdict.reason}", budget)
    if verdict.status == "timeout":
        return _cut(f"The tests did not finish in time ({verdict.reason}); {total} tests count as failed.", budget)
    lines = [f"{verdict.tests_failed} of {total} tests failed:"]
    for directive in verdict.failing_tests:
        lines.append(f"* {directive}")
    text = "\n".join(lines)
    # Directives failing alike share one message; messages share what the list leaves of the budget, each its fair
    # part, so that every distinct failure says something.
    groups: dict[str, list[str]] = {}
    for directive in verdict.failing_tests:
        message = verdict.messages.get(directive, "").strip()
        if message:
            groups.setdefault(message, []).append(directive)
    room = budget - len(text) - 2
    if groups and room > 0:
        share = room // len(groups) - 100
        parts = []
        for message, directives in groups.items():
            if share <= 20:
                break
            if len(message) > share:
                message = "..." + message[-(share - 3) :]  # the end: where the assertion or the exception is
            parts.append(f"--- {', '.join(directives)}\n{message}")
        text += "\n\n" + "\n".join(parts)
    return _cut(text, budget)


def _cut(text: str, budget: int) -> str:
    return text if len(text) <= budget else text[: budget - 15] + "\n[... truncated]"


class HarnessOracle:
    """Judges attempts at one classbench task through the benchmark's runner; one sandbox slot, held until ``close``."""

    def __init__(self, task: ClassBenchTask, runner, budget: int = FEEDBACK_BUDGET) -> None:
        self.runner = runner
        self.budget = budget
        self.total = len(task.test_directives)
        self.attempts = 0
        self.last_verdict: Verdict | None = None

    def judge(self, code: str) -> Feedback:
        self.attempts += 1
        verdict = self.runner.evaluate(code, f"attempt-{self.attempts}")
        self.last_verdict = verdict
        return Feedback(
            passed=verdict.status == "plausible",
            compiled=verdict.compiled,
            tests_passed=verdict.tests_passed,
            tests_failed=verdict.tests_failed,
            text=feedback_text(verdict, self.total, self.budget),
        )

    def close(self) -> None:
        self.runner.close()
