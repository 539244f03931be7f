"""One agent's work on one task: the model, the tools and the oracle behind a journal, and the transcript they leave.

Every answer of the model and every verdict of the oracle is a *step*,
appended to the run's journal as soon as it is known. A run killed midway
resumes by running the agent again from the start with the task's journaled
steps answering in order: nothing is asked of the model or the oracle twice,
and a step whose request differs from the journaled one (another prompt,
another attempt) is an error rather than a silent mismatch. Tools are not
journaled: they are deterministic functions of the repository and their
arguments, and run again.

The transcript is the list of events the session saw — requests, answers,
tool calls and their outputs, verdicts, attempts — with tokens and cost; it
is the same whether the run went through at once or was resumed.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchsmith.core.errors import BenchsmithError
from benchsmith.generation.agents.base import AgentTask, Feedback, Oracle, Toolbox
from benchsmith.generation.agents.toolcalls import (
    MAX_CALLS_PER_ITERATION,
    Call,
    describe_tools,
    from_openai,
    from_text,
    openai_tools,
)
from benchsmith.generation.models.base import Backend, ChatRequest, Message, ToolCall, Usage

log = logging.getLogger(__name__)
TOOL_FORMATS = ("auto", "openai", "text")
NO_CODE_FEEDBACK = (
    "No {language} code was found in the answer, so it could not be run. "
    "Answer with the whole class {class_name} in one ```{language} code block."
)


@dataclass(frozen=True)
class Answer:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class Attempt:
    """One generation: the code pulled out of the answer (the answer itself when none was found)."""

    iteration: int
    code: str
    found: bool
    reason: str


@dataclass
class RunSettings:
    """What every session of a run shares."""

    agent: str
    level: str  # the description level: part of each candidate_id
    temperature: float
    max_tokens: int | None
    tool_format: str  # "openai" or "text"
    tool_format_auto: bool = False  # chosen by "auto": fall back to text when the endpoint refuses tools


class Session:
    def __init__(
        self,
        task: AgentTask,
        backend: Backend,
        settings: RunSettings,
        toolbox: Toolbox | None,
        oracle: Oracle | None,
        replay: Sequence[Mapping[str, Any]],
        record: Callable[[dict], None],
    ) -> None:
        self.task = task
        self.backend = backend
        self.settings = settings
        self.toolbox = toolbox
        self.oracle = oracle
        self._replay = deque(replay)  # the journaled steps of an interrupted run, in order
        self._record = record  # appends a step to the journal
        self._step = 0
        self.events: list[dict[str, Any]] = []
        self.candidates: list[dict[str, Any]] = []
        self.usage = Usage()
        self.model = backend.model

    # --- the model -----------------------------------------------------------------------------------------------

    def ask(
        self, stage: str, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]] = (), iteration: int = 0
    ) -> Answer:
        """The model's answer to *messages* (with *tools* offered through the API, when given)."""
        purpose = f"agent/{self.settings.agent}/{stage}"
        self.events.append(
            {
                "kind": "request",
                "iteration": iteration,
                "purpose": purpose,
                "messages": [_message_event(m) for m in messages],
                "tools": [t["function"]["name"] for t in tools],
            }
        )
        key = _key(
            {
                "purpose": purpose,
                "messages": [_message_event(m) for m in messages],
                "tools": list(tools),
                "temperature": self.settings.temperature,
            }
        )
        value = self._replayed("answer", key)
        if value is None:
            request = ChatRequest(
                messages=tuple(messages),
                n=1,
                temperature=self.settings.temperature,
                max_tokens=self.settings.max_tokens,
                item_id=self.task.task_id,
                purpose=purpose,
                context={"iteration": str(iteration), "agent": self.settings.agent},
                tools=tuple(tools),
            )
            response = self.backend.complete(request)
            if not response.texts:
                raise BenchsmithError(f"{self.task.task_id}: {self.backend.name} returned no answer to {purpose}")
            calls = response.tool_calls[0] if response.tool_calls else ()
            value = {
                "content": response.texts[0],
                "tool_calls": [_call_event(c) for c in calls],
                "model": response.model or self.backend.model,
                "usage": {
                    "requests": response.usage.requests,
                    "prompt_tokens": response.usage.prompt_tokens,
                    "completion_tokens": response.usage.completion_tokens,
                    "cost_usd": response.usage.cost_usd,
                },
            }
            self._journal("answer", key, value)
        usage = value["usage"]
        self.usage.add(
            Usage(usage["requests"], 0, usage["prompt_tokens"], usage["completion_tokens"], usage["cost_usd"])
        )
        self.model = value["model"]
        self.events.append({"kind": "answer", "iteration": iteration, **value})
        calls = tuple(ToolCall(c["id"], c["name"], c["arguments"]) for c in value["tool_calls"])
        return Answer(value["content"], calls)

    def attempt(self, iteration: int, answer: Answer) -> Attempt:
        """The answer's code becomes the candidate of *iteration*; the tools hear of it (get_imports reads it)."""
        extraction = self.task.extract(answer.text)
        code = extraction.code if extraction.found else answer.text
        attempt = Attempt(iteration, code, bool(extraction.found), extraction.reason)
        candidate_id = f"{self.settings.agent}-{self.settings.level}-it{iteration}"
        self.candidates.append(
            {
                "instance_id": self.task.task_id,
                "candidate_id": candidate_id,
                "code": code,
                "model": self.model,
                "strategy": self.settings.agent,
                "temperature": self.settings.temperature,
                "sample": 0,
                "iteration": iteration,
                "extraction": extraction.reason,
            }
        )
        self.events.append(
            {
                "kind": "attempt",
                "iteration": iteration,
                "candidate_id": candidate_id,
                "code_found": attempt.found,
                "extraction": extraction.reason,
            }
        )
        if self.toolbox is not None and attempt.found:
            self.toolbox.attempt(code)
        return attempt

    # --- the oracle ----------------------------------------------------------------------------------------------

    def judge(self, attempt: Attempt) -> Feedback:
        """The oracle's verdict on *attempt*; an answer without code fails without being run."""
        if not attempt.found:
            feedback = Feedback(
                False,
                False,
                0,
                0,
                NO_CODE_FEEDBACK.format(language=self.task.language, class_name=self.task.class_name),
            )
        else:
            if self.oracle is None:
                raise BenchsmithError(f"agent {self.settings.agent} judged an attempt without an oracle")
            key = _key({"code": attempt.code})
            value = self._replayed("verdict", key)
            if value is None:
                judged = self.oracle.judge(attempt.code)
                value = {
                    "passed": judged.passed,
                    "compiled": judged.compiled,
                    "tests_passed": judged.tests_passed,
                    "tests_failed": judged.tests_failed,
                    "text": judged.text,
                }
                self._journal("verdict", key, value)
            feedback = Feedback(**value)
        self.events.append(
            {
                "kind": "verdict",
                "iteration": attempt.iteration,
                "passed": feedback.passed,
                "compiled": feedback.compiled,
                "tests_passed": feedback.tests_passed,
                "tests_failed": feedback.tests_failed,
                "text": feedback.text,
                "oracle": attempt.found,
            }
        )
        return feedback

    # --- the tools -----------------------------------------------------------------------------------------------

    def retrieve(self, iteration: int, query: str | None = None) -> str:
        """The independent tool's output: for the description, or for *query* (RepoCoder's last generation)."""
        toolbox = self._toolbox()
        independent = [t for t in toolbox.tools.values() if t.independent]
        if not independent:
            raise BenchsmithError(f"{self.task.task_id}: the toolbox has no independent tool (get_related_snippets)")
        tool = independent[0]
        arguments = {} if query is None else {"query": query}
        output = toolbox.call(tool.name, arguments)
        self.events.append(
            {
                "kind": "tool",
                "iteration": iteration,
                "name": tool.name,
                "arguments": arguments,
                "thought": "",
                "output": output,
                "error": "",
                "independent": True,
            }
        )
        return output

    def use_tools(
        self, iteration: int, previous: str, feedback: str, prompt: Callable[[str, str], Sequence[Message]]
    ) -> str:
        """RRR's tool phase: the model asks for at most three tool calls; their outputs, as the observations text.

        *prompt* makes the tool invocation prompt from the list of tools and their call shapes.
        """
        tools = self._toolbox().tools
        listing = describe_tools(tools)
        shapes = ", ".join(
            f"{t.name}({', '.join((t.parameters.get('properties') or {}))})"
            for t in tools.values()
            if not t.independent
        )
        conversation = list(prompt(listing, shapes))
        budget = MAX_CALLS_PER_ITERATION
        observations: list[str] = []
        while budget > 0:
            offered = openai_tools(tools) if self.settings.tool_format == "openai" else ()
            answer = self._ask_for_tools(conversation, offered, iteration)
            calls = (
                from_openai(answer.tool_calls, answer.text, tools)
                if answer.tool_calls
                else from_text(answer.text, tools)
            )
            if not calls:
                break
            outputs = []
            for call in calls:
                if budget == 0:
                    output = f"not run: at most {MAX_CALLS_PER_ITERATION} tool calls per iteration"
                    self.events.append(
                        {
                            "kind": "tool",
                            "iteration": iteration,
                            "name": call.name,
                            "arguments": call.arguments,
                            "thought": call.thought,
                            "output": output,
                            "error": "over budget",
                            "raw": call.raw,
                            "skipped": True,
                        }
                    )
                else:
                    output = self._run(call, iteration)
                    observations.append(f"{_shape(call)}:\n{output}")
                    budget -= 1
                outputs.append(output)
            if not answer.tool_calls or budget == 0:
                break  # Thought/Action text: one answer holds the iteration's calls; or the budget is spent
            conversation.append(Message("assistant", answer.text, tool_calls=answer.tool_calls))
            conversation += [Message("tool", output, tool_call_id=call.call_id) for call, output in zip(calls, outputs)]
        return "\n".join(observations)

    def _ask_for_tools(self, conversation: list[Message], offered: tuple, iteration: int) -> Answer:
        from benchsmith.generation.models.openai_backend import ToolsUnsupported

        try:
            return self.ask("tools", conversation, offered, iteration)
        except ToolsUnsupported as exc:
            if not self.settings.tool_format_auto:
                raise
            log.warning("%s refused tools (%s); asking for Thought/Action text instead", self.backend.name, exc)
            self.events.pop()  # the request that was refused
            self.settings.tool_format = "text"
            self._journal("fallback", "", {"reason": str(exc)})
            self.events.append({"kind": "tool-format", "iteration": iteration, "format": "text", "reason": str(exc)})
            return self.ask("tools", conversation, (), iteration)

    def _run(self, call: Call, iteration: int) -> str:
        error = call.error
        if error:
            output = f"error: {error}"
        else:
            try:
                output = self._toolbox().call(call.name, call.arguments, call.thought)
            except (BenchsmithError, ValueError, KeyError, LookupError) as exc:  # the model's arguments, not our bug
                error = f"{type(exc).__name__}: {exc}"
                output = f"error: {call.name} failed: {exc}"
        self.events.append(
            {
                "kind": "tool",
                "iteration": iteration,
                "name": call.name,
                "arguments": call.arguments,
                "thought": call.thought,
                "output": output,
                "error": error,
                "raw": call.raw,
            }
        )
        return output

    def _toolbox(self) -> Toolbox:
        if self.toolbox is None:
            raise BenchsmithError(f"agent {self.settings.agent} used a tool without a toolbox")
        return self.toolbox

    # --- the journal ---------------------------------------------------------------------------------------------

    def _replayed(self, kind: str, key: str) -> dict[str, Any] | None:
        while self._replay and self._replay[0]["kind"] == "fallback":  # the run resumed in text format already
            fallback = self._replay.popleft()
            self._step += 1
            self.events.append(
                {"kind": "tool-format", "iteration": 0, "format": "text", "reason": fallback["value"]["reason"]}
            )
        if not self._replay:
            return None
        step = self._replay.popleft()
        self._step += 1
        if step["kind"] != kind or step["key"] != key:
            raise BenchsmithError(
                f"{self.task.task_id}: step {self._step} of the interrupted run was a {step['kind']} "
                f"for other input than this run's {kind}; the journal belongs to another run "
                "(delete it to start over)"
            )
        return dict(step["value"])

    def _journal(self, kind: str, key: str, value: dict[str, Any]) -> None:
        self._step += 1
        self._record({"task": self.task.task_id, "step": self._step, "kind": kind, "key": key, "value": value})

    def transcript(self) -> dict[str, Any]:
        verdicts = [e for e in self.events if e["kind"] == "verdict"]
        return {
            "task_id": self.task.task_id,
            "agent": self.settings.agent,
            "model": self.model,
            "tool_format": self.settings.tool_format,
            "passed": bool(verdicts and verdicts[-1]["passed"]),
            "iterations": len({c["iteration"] for c in self.candidates}),
            "usage": {
                "requests": self.usage.requests,
                "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens,
                "cost_usd": round(self.usage.cost_usd, 6),
            },
            "events": self.events,
        }


def _key(payload: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _message_event(message: Message) -> dict[str, Any]:
    event: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        event["tool_calls"] = [_call_event(c) for c in message.tool_calls]
    if message.tool_call_id:
        event["tool_call_id"] = message.tool_call_id
    return event


def _call_event(call: ToolCall) -> dict[str, str]:
    return {"id": call.id, "name": call.name, "arguments": call.arguments}


def _shape(call: Call) -> str:
    """How an observation is headed: the call as the model would write it."""
    if call.error:  # what the model wrote, which could not be read
        return call.raw if not call.name or call.raw.startswith(call.name) else f"{call.name}({call.raw})"
    return f"{call.name}({', '.join(str(value) for value in call.arguments.values())})"
