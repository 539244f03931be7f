"""Tool calls in the two shapes models send them: the OpenAI tools API, and the paper's Thought/Action text.

The RepoClassBench paper's tool invocation prompt (appendix G) asks the model to "interleave
Thought and Action"; an answer then reads::

    Thought 1: Item has no attribute cost; the members of Item will say what it has.
    Action 1: get_class_info(Item)
    Action 2: get_signature(Item, price_with_tax)

Arguments are positional in the order of the tool's parameters (or
``name=value``), bare or quoted; ``None`` is Python's None (get_method_body's
class of a free function). Endpoints with function calling get the same tools
as ``tools`` and answer with ``tool_calls``. Whatever the model gets wrong — an
action that does not parse, arguments that are not a JSON object, an unknown
tool, a wrong argument — becomes a :class:`Call` whose ``error`` is what the
model is told, never an exception.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from benchsmith.generation.agents.base import Tool
from benchsmith.generation.models.base import ToolCall

MAX_CALLS_PER_ITERATION = 3  # the RepoClassBench paper, appendix G: "at max 3 tool calls can be made"

# "Action 1: x", "**Action 1:** x", "Action: x" (Markdown emphasis is how chat models often set the labels)
_ACTION = re.compile(r"^\s*\**\s*Action\s*\d*\s*\**\s*:\s*\**\s*(?P<action>.*?)\s*$", re.IGNORECASE)
_THOUGHT = re.compile(r"^\s*\**\s*Thought\s*\d*\s*\**\s*:\s*\**\s*(?P<thought>.*?)\s*$", re.IGNORECASE)
_INVOCATION = re.compile(r"^`*(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*\((?P<arguments>.*)\)`*\s*\.?$", re.DOTALL)


@dataclass(frozen=True)
class Call:
    """One tool call as the model made it: the tool, its arguments (when they could be read) and the thought before
    it."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    thought: str = ""
    error: str = ""  # why the call cannot run, in words for the model; "" when it can
    raw: str = ""  # what the model wrote: the Action line, or the tool call's JSON arguments
    call_id: str = ""  # the tools API's id, answered by a "tool" message


def openai_tools(tools: Mapping[str, Tool]) -> tuple[dict[str, Any], ...]:
    """The dependent tools as the tools API's function declarations (the independent one runs unasked)."""
    return tuple(
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": dict(t.parameters)},
        }
        for t in tools.values()
        if not t.independent
    )


def describe_tools(tools: Mapping[str, Tool]) -> str:
    """The numbered list of dependent tools the tool invocation prompt shows: ``(1) name(args): description``."""
    lines = []
    for number, tool in enumerate((t for t in tools.values() if not t.independent), start=1):
        lines.append(f"({number}) {tool.name}({', '.join(parameter_names(tool))}): {tool.description}")
    return "\n".join(lines)


def parameter_names(tool: Tool) -> list[str]:
    return list((tool.parameters.get("properties") or {}).keys())


def from_openai(calls: tuple[ToolCall, ...], thought: str, tools: Mapping[str, Tool]) -> list[Call]:
    """The tools API's calls; *thought* is the text the model wrote beside them."""
    read = []
    for call in calls:
        try:
            arguments = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError as exc:
            read.append(
                Call(
                    call.name,
                    {},
                    thought,
                    f"the arguments of {call.name} are not JSON ({exc}); send a JSON object",
                    call.arguments,
                    call.id,
                )
            )
            continue
        if not isinstance(arguments, dict):
            read.append(
                Call(
                    call.name,
                    {},
                    thought,
                    f"the arguments of {call.name} must be a JSON object, got {call.arguments}",
                    call.arguments,
                    call.id,
                )
            )
            continue
        read.append(Call(call.name, arguments, thought, _check(call.name, arguments, tools), call.arguments, call.id))
    return read


def from_text(answer: str, tools: Mapping[str, Tool]) -> list[Call]:
    """The Action lines of a Thought/Action answer, each with the last thought written before it."""
    calls = []
    thought: list[str] = []
    in_thought = False  # continuation lines belong to a thought until the next Action
    for line in answer.splitlines():
        action = _ACTION.match(line)
        if action is not None:
            # An action without a thought of its own is preceded by the last one written.
            calls.append(_parse_action(action["action"], " ".join(thought), tools))
            in_thought = False
            continue
        match = _THOUGHT.match(line)
        if match is not None:
            thought, in_thought = [match["thought"]], True
        elif in_thought and line.strip():
            thought.append(line.strip())
    return calls


def _parse_action(action: str, thought: str, tools: Mapping[str, Tool]) -> Call:
    invocation = _INVOCATION.match(action.strip())
    if invocation is None:
        return Call(
            "", {}, thought, f"could not read the action {action!r}: write it as tool_name(argument, ...)", action
        )
    name = invocation["name"]
    try:
        positional, keywords = _arguments(invocation["arguments"])
    except ValueError as exc:
        return Call(name, {}, thought, f"could not read the arguments of {action!r}: {exc}", action)
    tool = tools.get(name)
    if tool is None:
        return Call(name, keywords, thought, _check(name, keywords, tools), action)
    names = parameter_names(tool)
    if len(positional) > len(names):
        takes = ", ".join(names) or "no arguments"
        return Call(name, {}, thought, f"{name} takes {takes}; got {len(positional)} arguments", action)
    arguments = {**dict(zip(names, positional)), **keywords}
    return Call(name, arguments, thought, _check(name, arguments, tools), action)


def _arguments(text: str) -> tuple[list[Any], dict[str, Any]]:
    """``Item, 'price'`` or ``class_name=Item`` → values; bare words are strings, ``None`` is None."""
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    for part in _split(text):
        key, value = None, part
        keyword = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)\s*(.*)$", part, re.DOTALL)
        if keyword:
            key, value = keyword[1], keyword[2]
        parsed = _value(value.strip())
        if key is None:
            if keywords:
                raise ValueError("a positional argument after a keyword argument")
            positional.append(parsed)
        else:
            keywords[key] = parsed
    return positional, keywords


def _split(text: str) -> list[str]:
    """Top-level comma-separated parts (commas inside quotes or brackets stay)."""
    parts, depth, quote, current = [], 0, "", []
    for char in text:
        if quote:
            current.append(char)
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
            current.append(char)
        elif char in "([{":
            depth += 1
            current.append(char)
        elif char in ")]}":
            depth -= 1
            current.append(char)
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if quote:
        raise ValueError("an unclosed quote")
    parts.append("".join(current))
    parts = [part.strip() for part in parts]
    return [] if parts == [""] else parts


def _value(text: str) -> Any:
    if text == "None":
        return None
    if text[:1] in "'\"" or text[:1].isdigit():
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            raise ValueError(f"{text} is not a value") from None
    if not text:
        raise ValueError("an empty argument")
    return text  # a bare name: get_class_info(Item)


def _check(name: str, arguments: Mapping[str, Any], tools: Mapping[str, Tool]) -> str:
    """Why a call cannot run ("" when it can): an unknown or independent tool, unknown or missing arguments."""
    tool = tools.get(name)
    callable_tools = sorted(t.name for t in tools.values() if not t.independent)
    if tool is None or tool.independent:
        return f"unknown tool {name!r}; the tools are {', '.join(callable_tools)}"
    names = parameter_names(tool)
    unknown = sorted(set(arguments) - set(names))
    if unknown:
        return f"{name} takes {', '.join(names) or 'no arguments'}, not {', '.join(unknown)}"
    missing = [n for n in tool.parameters.get("required") or [] if n not in arguments]
    if missing:
        return f"{name} needs {', '.join(missing)}"
    return ""
