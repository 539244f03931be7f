"""The model's side of a conversation, replayed from a file: agents run end to end without a model endpoint.

A script is JSON Lines; each line is one of

* a turn: ``{"item_id", "content"}`` plus optional ``tool_calls`` (a list of
  ``{"id", "name", "arguments"}``, the arguments a JSON object or the raw JSON
  text a model sent, malformed or not), ``purpose`` (what the request must be
  for: its purpose, or a prefix of it ending at a ``/``), ``turn`` (its
  1-based place among the item's turns, checked when given) and ``model``;
* a transcript line as ``benchsmith agent run`` writes them (``{"task_id",
  "events": [...]}``): its ``answer`` events become the item's turns, so a run
  recorded once against a real model replays forever.

The turns of an item answer its requests in order, whatever the order of the
items. The request is checked loosely against what the script expected — the
turn's index, its purpose when the line names one — and a request beyond the
item's last turn is an error saying so, never an invented answer. Nothing is
sent anywhere, so usage stays zero.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import json_objects
from benchsmith.generation.models.base import BackendBase, ChatRequest, ChatResponse, ToolCall


@dataclass(frozen=True)
class ScriptedTurn:
    content: str
    tool_calls: tuple[ToolCall, ...]
    purpose: str  # "" when the line does not say
    where: str  # file:line, for messages


class ScriptedBackend(BackendBase):
    name = "scripted"
    supports_tools = True

    def __init__(self, path: Path | str, model: str | None = None) -> None:
        super().__init__()
        self.path = Path(path)
        self.turns: dict[str, list[ScriptedTurn]] = {}
        self._asked: dict[str, int] = {}
        self._lock = threading.Lock()
        models = self._load()
        self.model = model or (models.pop() if len(models) == 1 else "scripted")

    def _load(self) -> set[str]:
        models: set[str] = set()
        for where, row in json_objects(self.path, "script"):
            if isinstance(row.get("events"), list):
                self._add_transcript(row, where, models)
                continue
            item = row.get("item_id")
            if not isinstance(item, str) or not item:
                raise BenchsmithError(f"{where}: a script turn needs an item_id (the task it answers)")
            turns = self.turns.setdefault(item, [])
            turn = row.get("turn")
            if turn is not None and turn != len(turns) + 1:
                raise BenchsmithError(
                    f"{where}: turn {turn} of {item} follows {len(turns)} turns of it; an item's turns go in order"
                )
            turns.append(_turn(row, where))
            if isinstance(row.get("model"), str):
                models.add(row["model"])
        if not self.turns:
            raise BenchsmithError(f"{self.path}: an empty script")
        return models

    def _add_transcript(self, row: dict, where: str, models: set[str]) -> None:
        item = row.get("task_id")
        if not isinstance(item, str) or item in self.turns:
            raise BenchsmithError(f"{where}: a transcript line needs a task_id of its own")
        turns = self.turns.setdefault(item, [])
        purpose = ""
        for event in row["events"]:
            if event.get("kind") == "request":
                purpose = str(event.get("purpose", ""))
            elif event.get("kind") == "answer":
                turns.append(_turn({**event, "purpose": purpose}, f"{where} (answer {len(turns) + 1})"))
        if isinstance(row.get("model"), str):
            models.add(row["model"])

    def complete(self, request: ChatRequest) -> ChatResponse:
        if request.n != 1:
            raise BenchsmithError(f"{self.path}: the scripted backend answers one sample per request, not {request.n}")
        with self._lock:
            index = self._asked.get(request.item_id, 0)
            self._asked[request.item_id] = index + 1
        turns = self.turns.get(request.item_id)
        if turns is None:
            raise BenchsmithError(
                f"{self.path}: the script has no turns for {request.item_id!r} "
                f"(it scripts {', '.join(sorted(self.turns))})"
            )
        if index >= len(turns):
            raise BenchsmithError(
                f"{self.path}: the script ran out: {request.item_id} asked a turn {index + 1} "
                f"({request.purpose or 'no purpose'}) but the script holds {len(turns)}"
            )
        turn = turns[index]
        if turn.purpose and not _purpose_matches(turn.purpose, request.purpose):
            raise BenchsmithError(
                f"{turn.where}: turn {index + 1} of {request.item_id} expects a request for "
                f"{turn.purpose!r}, got {request.purpose!r}"
            )
        if turn.tool_calls and not request.tools:
            raise BenchsmithError(
                f"{turn.where}: turn {index + 1} of {request.item_id} calls tools, but the request "
                "offered none (a text-format run needs Thought/Action text instead)"
            )
        return ChatResponse(
            texts=[turn.content], model=self.model, tool_calls=[turn.tool_calls] if turn.tool_calls else []
        )

    def remaining(self) -> dict[str, int]:
        """Turns not asked for yet, per item: a finished run that leaves some behind asked less than scripted."""
        with self._lock:
            return {
                item: len(turns) - self._asked.get(item, 0)
                for item, turns in self.turns.items()
                if len(turns) > self._asked.get(item, 0)
            }


def _purpose_matches(expected: str, purpose: str) -> bool:
    return purpose == expected or purpose.startswith(expected.rstrip("/") + "/")


def _turn(row: dict[str, Any], where: str) -> ScriptedTurn:
    content = row.get("content", row.get("text", ""))
    if not isinstance(content, str):
        raise BenchsmithError(f"{where}: content must be a string")
    calls = []
    for number, call in enumerate(row.get("tool_calls") or [], start=1):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise BenchsmithError(f"{where}: tool call {number} needs a name")
        arguments = call.get("arguments", {})
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        calls.append(ToolCall(str(call.get("id") or f"call_{number}"), call["name"], raw))
    purpose = row.get("purpose") or ""
    if not isinstance(purpose, str):
        raise BenchsmithError(f"{where}: purpose must be a string")
    return ScriptedTurn(content, tuple(calls), purpose, where)


def create(model: str | None = None, script: Path | str | None = None) -> ScriptedBackend:
    """The registry's factory: the script file is required; *model* overrides the model the script names."""
    if script is None:
        raise BenchsmithError("the scripted backend needs --script FILE")
    return ScriptedBackend(Path(script), model=model)
