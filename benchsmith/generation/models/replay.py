"""Answers recorded in a JSON Lines file: rerun generation or description offline, exactly.

Two row shapes, freely mixed:

* candidates rows, as ``benchsmith generate`` writes them:
  ``{"instance_id", "candidate_id", "code"}`` plus optional ``model``,
  ``strategy`` and ``turn``. They answer ``generate/<strategy>`` requests
  about that instance with the ``code`` values, in file order, up to n.
  Rows with a ``strategy`` answer only that strategy, and are preferred over
  rows without one, which answer any strategy.
* description rows: ``{"task_id", "detailed_description", "sketchy_description"}``
  (either description may be absent) plus optional ``model``. They answer
  ``describe/detailed`` and ``describe/sketchy``.

Multi-turn strategies send ``generate/<strategy>/turn-<k>``. A row with a
``turn`` field answers that turn only; rows without one answer the final turn.
Intermediate turns without rows of their own get empty texts (one per sample),
which keep the conversation well-formed. A turn is final when the request's
context says ``final_turn: "true"``, or, without that key, when it is the
last of the strategy's known turns (reasoning extraction asks three times:
localize, explain, fix — the Defects4J-NL2Fix paper, 3.3.3).

``context["sample"]`` (a number) makes the answers start at that recorded row,
for callers that send one request per sample. The replay never invents: an
item without recorded answers gets a response with no texts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import json_objects
from benchsmith.generation.models.base import BackendBase, ChatRequest, ChatResponse

KNOWN_TURNS = {"reasoning": 3}
_DESCRIPTION_FIELDS = {"describe/detailed": "detailed_description", "describe/sketchy": "sketchy_description"}
_GENERATE = re.compile(r"generate/(?P<strategy>[^/]+)(?:/turn-(?P<turn>\d+))?")


@dataclass(frozen=True)
class RecordedAnswer:
    text: str
    model: str
    strategy: str = ""
    turn: int | None = None


class ReplayBackend(BackendBase):
    name = "replay"

    def __init__(self, path: Path | str, model: str | None = None) -> None:
        super().__init__()  # usage stays zero: nothing is sent anywhere
        self.path = Path(path)
        self.generated: dict[str, list[RecordedAnswer]] = {}
        self.descriptions: dict[tuple[str, str], RecordedAnswer] = {}
        models = self._load()
        self.model = model or (models.pop() if len(models) == 1 and "" not in models else "replay")

    def _load(self) -> set[str]:
        """Read the file; return the set of model names (with "" for a row that names none)."""
        models: set[str] = set()
        for where, row in json_objects(self.path, "replay"):
            model = _optional_str(row, "model", where)
            models.add(model)
            if "instance_id" in row:
                self._add_candidate(row, model, where)
            elif "task_id" in row:
                self._add_description(row, model, where)
            else:
                shapes = "a candidates row (instance_id) nor a description row (task_id)"
                raise BenchsmithError(f"{where}: neither {shapes}")
        if not models:
            raise BenchsmithError(f"{self.path}: empty replay file")
        return models

    def _add_candidate(self, row: dict, model: str, where: str) -> None:
        missing = [k for k in ("instance_id", "candidate_id", "code") if not isinstance(row.get(k), str)]
        if missing:
            raise BenchsmithError(f"{where}: missing or non-string {', '.join(missing)}")
        turn = row.get("turn")
        if turn is not None and (not isinstance(turn, int) or isinstance(turn, bool) or turn < 1):
            raise BenchsmithError(f"{where}: turn must be a positive integer, got {turn!r}")
        answer = RecordedAnswer(row["code"], model, _optional_str(row, "strategy", where), turn)
        self.generated.setdefault(row["instance_id"], []).append(answer)

    def _add_description(self, row: dict, model: str, where: str) -> None:
        if not isinstance(row["task_id"], str):
            raise BenchsmithError(f"{where}: task_id must be a string")
        present = [f for f in _DESCRIPTION_FIELDS.values() if row.get(f) is not None]
        if not present:
            raise BenchsmithError(f"{where}: a description row needs detailed_description or sketchy_description")
        for field_name in present:
            text = row[field_name]
            if not isinstance(text, str):
                raise BenchsmithError(f"{where}: {field_name} must be a string")
            if (row["task_id"], field_name) in self.descriptions:
                raise BenchsmithError(f"{where}: a second {field_name} for task {row['task_id']}")
            self.descriptions[(row["task_id"], field_name)] = RecordedAnswer(text, model)

    def complete(self, request: ChatRequest) -> ChatResponse:
        if request.purpose in _DESCRIPTION_FIELDS:
            found = self.descriptions.get((request.item_id, _DESCRIPTION_FIELDS[request.purpose]))
            answers = [found] if found is not None else []
        else:
            match = _GENERATE.fullmatch(request.purpose)
            if match is None:
                raise BenchsmithError(f"{self.path}: the replay backend cannot answer purpose {request.purpose!r}")
            answers = self._generated(request, match["strategy"], int(match["turn"]) if match["turn"] else None)
            if answers is None:  # an intermediate turn of a recorded item
                return ChatResponse(texts=[""] * request.n, model=self.model)
        start = _sample_offset(request)
        answers = answers[start : start + request.n]
        models = {a.model for a in answers}
        model = models.pop() if len(models) == 1 and "" not in models else self.model
        return ChatResponse(texts=[a.text for a in answers], model=model)

    def _generated(self, request: ChatRequest, strategy: str, turn: int | None) -> list[RecordedAnswer] | None:
        rows = self.generated.get(request.item_id)
        if rows is None:
            return []
        exact = [a for a in rows if a.strategy == strategy]
        rows = exact or [a for a in rows if not a.strategy]
        if turn is None:
            return [a for a in rows if a.turn is None]
        of_turn = [a for a in rows if a.turn == turn]
        if of_turn:
            return of_turn
        if _is_final_turn(request, strategy, turn):
            return [a for a in rows if a.turn is None]
        return None


def _is_final_turn(request: ChatRequest, strategy: str, turn: int) -> bool:
    if "final_turn" in request.context:
        return str(request.context["final_turn"]).lower() == "true"
    return turn >= KNOWN_TURNS.get(strategy, 1)


def _sample_offset(request: ChatRequest) -> int:
    value = request.context.get("sample", "0")
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        raise BenchsmithError(f"{request.item_id}: context sample must be a number, got {value!r}") from None


def _optional_str(row: dict, key: str, where: str) -> str:
    value = row.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BenchsmithError(f"{where}: {key} must be a string")
    return value


def create(model: str | None = None, replay: Path | str | None = None) -> ReplayBackend:
    """The registry's factory: the file is required; *model* overrides the model the file names."""
    if replay is None:
        raise BenchsmithError("the replay backend needs --replay FILE")
    return ReplayBackend(Path(replay), model=model)
