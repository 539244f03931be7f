"""The RepoClassBench paper's RRR and its four baselines (section 5.1, Table 8), each a few lines over a
:class:`Session`.

Iterations are numbered from 1, and each writes a candidate (``<agent>-<level>-it<i>``):

* ``basic``: one generation from the description (BASICPROMPTING).
* ``naive-rag``: one generation from the description and the independent tool's snippets (NAIVERAG).
* ``repocoder``: like naive-rag, then again ``max_calls - 1`` times with snippets retrieved for the last
  generation (REPOCODER); no test feedback, so it never stops early.
* ``reflexion``: the basic generation, then oracle feedback, a reflection and an improved generation, with no
  repository context (REFLEXION).
* ``rrr``: Algorithm 1 — the naive-rag generation (appendix G's initial prompt), then per iteration an oracle
  call, at most three tool calls, a reflection and an improved generation.

``max_calls`` bounds the oracle calls (attempts judged) of reflexion and rrr and the generations of repocoder.
Algorithm 1 returns ``y_{i+1}`` after the last oracle call; here the loop generates no attempt that no oracle
call would judge, so the last candidate is the last judged attempt — the reading under which the RepoClassBench paper's
Table 11 (pass@1 at iterations 1-5) ends on the pass@1 of Table 3, and iteration 1 equals NAIVERAG's pass@1.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from benchsmith.generation.agents import prompts
from benchsmith.generation.agents.session import Attempt, Session

DEFAULT_MAX_CALLS = 5  # the RepoClassBench paper: "we terminate the generation at 5 iterations"


class Agent(ABC):
    """An agent: what it needs from the benchmark, and how it works one task through a session."""

    name: ClassVar[str]
    uses_tools: ClassVar[bool] = False
    uses_oracle: ClassVar[bool] = False

    def __init__(self, max_calls: int = DEFAULT_MAX_CALLS) -> None:
        self.max_calls = max_calls

    @abstractmethod
    def run(self, session: Session) -> None:
        """Work the session's task; every attempt goes through ``session.attempt``."""


class Basic(Agent):
    name = "basic"

    def run(self, session: Session) -> None:
        session.attempt(1, session.ask("generate", prompts.basic(session.task), iteration=1))


class NaiveRag(Agent):
    name = "naive-rag"
    uses_tools = True

    def run(self, session: Session) -> None:
        snippets = session.retrieve(1)
        session.attempt(1, session.ask("generate", prompts.initial(session.task, snippets), iteration=1))


class RepoCoder(Agent):
    name = "repocoder"
    uses_tools = True

    def run(self, session: Session) -> None:
        snippets = session.retrieve(1)
        for iteration in range(1, self.max_calls + 1):
            answer = session.ask("generate", prompts.initial(session.task, snippets), iteration=iteration)
            attempt = session.attempt(iteration, answer)
            if iteration < self.max_calls:
                snippets = session.retrieve(iteration + 1, attempt.code)


class Reflexion(Agent):
    name = "reflexion"
    uses_oracle = True

    def run(self, session: Session) -> None:
        attempt = session.attempt(1, session.ask("generate", prompts.basic(session.task), iteration=1))
        _refine(session, attempt, self.max_calls, with_tools=False)


class RRR(Agent):
    name = "rrr"
    uses_tools = True
    uses_oracle = True

    def run(self, session: Session) -> None:
        snippets = session.retrieve(1)
        attempt = session.attempt(1, session.ask("initial", prompts.initial(session.task, snippets), iteration=1))
        _refine(session, attempt, self.max_calls, with_tools=True)


def _refine(session: Session, attempt: Attempt, max_calls: int, with_tools: bool) -> None:
    """Algorithm 1's loop: judge; stop on a pass or at the last call; else (tools,) reflect, and try again."""
    task = session.task
    for iteration in range(1, max_calls + 1):
        feedback = session.judge(attempt)
        if feedback.passed or iteration == max_calls:
            return
        observations = None
        if with_tools:
            observations = session.use_tools(
                iteration,
                attempt.code,
                feedback.text,
                lambda tools, shapes: prompts.tool_invocation(task, attempt.code, feedback.text, tools, shapes),
            )
        reflection = session.ask(
            "reflect", prompts.reflection(task, attempt.code, feedback.text, observations), iteration=iteration
        ).text.strip()
        improved = session.ask(
            "improve",
            prompts.improvement(task, attempt.code, feedback.text, observations, reflection),
            iteration=iteration,
        )
        attempt = session.attempt(iteration + 1, improved)
