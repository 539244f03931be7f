"""What an agent (the RepoClassBench paper's RRR and its baselines) works with: repository tools and an oracle.

A task's *toolbox* is the repository as the model may see it — the class removed,
its imports removed, its EXPECTED_TO_PASS test files left out — behind named tools
(RepoClassBench paper, Table 2). The *oracle* judges an attempt with the benchmark's own class
harness and answers in words the model can act on. Agents see only these two and a
model backend, so one agent serves every language that provides them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Tool:
    """One repository tool: what the model is told about it and what answers a call.

    ``parameters`` is the JSON schema of its arguments (the OpenAI tools API's
    ``function.parameters``); ``call`` takes them as keyword arguments plus
    ``thought`` (the model's reasoning before the call, which ranks some answers)
    and returns the text shown to the model.

    The independent tool (get_related_snippets) is called with no arguments,
    its query being the task's description, or with ``query`` (RepoCoder's
    iterative retrieval, whose query is the last generation).
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    call: Callable[..., str]
    independent: bool = False  # needs no attempt: usable before the first generation (get_related_snippets)


@dataclass(frozen=True)
class Toolbox:
    """A task's tools, by name, and the text of the attempt that tools such as get_imports inspect."""

    tools: Mapping[str, Tool]
    attempt: Callable[[str], None] = field(default=lambda code: None)  # tells the tools the latest attempt

    def call(self, name: str, arguments: Mapping[str, Any], thought: str = "") -> str:
        tool = self.tools.get(name)
        if tool is None:
            return f"unknown tool {name!r}; tools: {', '.join(sorted(self.tools))}"
        try:
            return tool.call(thought=thought, **arguments)
        except TypeError as exc:  # wrong or missing arguments: the model hears what went wrong
            return f"bad arguments for {name}: {exc}"


@dataclass(frozen=True)
class Feedback:
    """The oracle's answer on one attempt."""

    passed: bool  # every directive passed
    compiled: bool
    tests_passed: int
    tests_failed: int
    text: str  # compiler errors, or the failing directives with their messages, truncated to the budget


class Oracle(Protocol):
    def judge(self, code: str) -> Feedback: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class AgentTask:
    """A task as an agent sees it: what to write, where, and how code comes out of an answer.

    A benchmark makes it (``Benchmark.agent_task``); nothing in it may hold the ground truth.
    """

    task_id: str
    language: str  # "python", "java": picks the prompts' code fence and few-shot example
    file_path: str  # where the class goes
    class_name: str
    description: str  # DETAILED or SKETCHY
    extract: Callable[
        [str], Any
    ]  # an answer → benchsmith.generation.prompts.extraction.Extraction (code, found, reason)
