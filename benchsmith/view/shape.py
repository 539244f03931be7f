"""The page's data: compact columns for the instance table, and per candidate the details its own page shows.

The table holds every candidate of every run at once, so its columns are small: the repeated strings (run, instance,
model, strategy, status) are numbers into dictionaries, and only the first words of a verdict's reason are kept for
search. Everything else about a candidate (its code and what it is diffed against, the failing tests with their
messages, the compiler's first errors, the tail of its log) goes into detail chunks the page loads when a candidate
is opened.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchsmith.core.schema import Result
from benchsmith.core.verdict import Status
from benchsmith.view.inputs import Run, candidate_key

REASON_CHARS = 160  # of a verdict's reason, in the table (the candidate's page has all of it)
LOG_TAIL_LINES = 60
LOG_TAIL_CHARS = 8000
LOG_READ_BYTES = 2_000_000  # of a log, searched for the failing tests' messages
FAILING_SHOWN = 25  # failing tests listed with their messages; the rest are counted
COMPILER_LINES = 15

FLAG_SUSPICIOUS, FLAG_DUPLICATE, FLAG_TRANSCRIPT, FLAG_NO_LOG, FLAG_NO_CODE = 1, 2, 4, 8, 16


@dataclass
class Log:
    path: str  # where it was found, or where the results said it is
    found: bool
    text: str = ""  # its first LOG_READ_BYTES

    def tail(self) -> str:
        lines = self.text.splitlines()[-LOG_TAIL_LINES:]
        return "\n".join(lines)[-LOG_TAIL_CHARS:]


def locate_log(run: Run, log_path: str) -> Path | None:
    """The log where the results say it is, or, when the run's folder was moved, at the same place under the logs
    folder beside the results file (``<results>.logs/<instance>/<candidate>.log``)."""
    if not log_path:
        return None
    path = Path(log_path)
    if not path.is_absolute():
        path = run.path.parent / path
    if path.is_file():
        return path
    parts = path.parts
    for i, part in enumerate(parts):
        if part == f"{run.path.name}.logs":
            moved = run.path.parent.joinpath(part, *parts[i + 1 :])
            if moved.is_file():
                return moved
    return None


@functools.lru_cache(maxsize=512)  # candidates that share a verdict share a log; rows come grouped by instance
def _read_log(path: Path) -> str:
    with open(path, "rb") as handle:
        return handle.read(LOG_READ_BYTES).decode("utf-8", errors="replace")


def read_log(run: Run, log_path: str) -> Log:
    found = locate_log(run, log_path)
    if found is None:
        return Log(log_path, False)
    return Log(str(found), True, _read_log(found))


def failing_messages(failing: list[str], log: str) -> list[list[str]]:
    """Each failing test (the first FAILING_SHOWN) with the message its log line gives after its name: the Java
    runner writes ``failed  Class::test message``, pytest's summary ``FAILED path::test - message``. The verdict came
    from the runner's structured report; these lines only explain it to a reader."""
    shown = []
    lines = log.splitlines()
    for name in failing[:FAILING_SHOWN]:
        message = ""
        for line in lines:
            at = line.find(name)
            if at < 0:
                continue
            rest = line[at + len(name) :].strip().removeprefix("-").strip()
            if rest:
                message = rest
                break
        shown.append([name, message])
    return shown


def compiler_errors(log: str) -> list[str]:
    """The first lines of an uncompilable candidate's log that are not the runner's section headers."""
    lines = [line for line in log.splitlines() if line.strip() and not line.startswith("[")]
    return lines[:COMPILER_LINES]


@dataclass
class Dictionary:
    """Strings numbered in order of first use, for a column of the table."""

    values: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)

    def number(self, value: str) -> int:
        if value not in self.index:
            self.index[value] = len(self.values)
            self.values.append(value)
        return self.index[value]


@dataclass
class Table:
    """Every candidate of every run, as columns."""

    runs: Dictionary = field(default_factory=Dictionary)
    instances: Dictionary = field(default_factory=Dictionary)
    projects: Dictionary = field(default_factory=Dictionary)
    models: Dictionary = field(default_factory=Dictionary)
    strategies: Dictionary = field(default_factory=Dictionary)
    statuses: Dictionary = field(default_factory=Dictionary)
    columns: dict[str, list] = field(
        default_factory=lambda: {name: [] for name in ("r", "i", "c", "p", "m", "g", "s", "tp", "tf", "t", "f", "x")}
    )

    def __post_init__(self) -> None:
        for status in Status:
            self.statuses.number(status.value)

    def __len__(self) -> int:
        return len(self.columns["c"])

    def add(self, run: str, result: Result, flags: int) -> int:
        c = self.columns
        c["r"].append(self.runs.number(run))
        c["i"].append(self.instances.number(result.instance_id))
        c["c"].append(result.candidate_id)
        c["p"].append(self.projects.number(result.project))
        c["m"].append(self.models.number(result.model))
        c["g"].append(self.strategies.number(result.strategy))
        c["s"].append(self.statuses.number(result.status))
        c["tp"].append(result.tests_passed)
        c["tf"].append(result.tests_failed)
        c["t"].append(round(result.seconds, 2))
        c["f"].append(flags)
        c["x"].append(result.reason[:REASON_CHARS])
        return len(self) - 1

    def dictionaries(self) -> dict[str, list[str]]:
        return {
            "r": self.runs.values,
            "i": self.instances.values,
            "p": self.projects.values,
            "m": self.models.values,
            "g": self.strategies.values,
            "s": self.statuses.values,
        }

    def slice(self, start: int, stop: int) -> dict[str, list]:
        return {name: values[start:stop] for name, values in self.columns.items()}


def transcript_of(run: Run) -> dict[tuple[str, str, str], int]:
    """(task, model, agent) -> the transcript's place in the run's list."""
    return {(t["task_id"], t.get("model", ""), t.get("agent", "")): n for n, t in enumerate(run.transcripts)}


def instance_title(record: Any) -> str:
    """A line naming what an instance asks: an NL2Fix bug's issue title, a classbench task's class and file."""
    if record is None:
        return ""
    for name in ("issue_title", "class_name"):
        value = getattr(record, name, "")
        if value:
            where = getattr(record, "file_path", "")
            return f"{value} ({where})" if name == "class_name" and where else value
    return ""


def candidate_detail(
    run: Run,
    result: Result,
    row_of: dict[tuple[str, str], int],
    transcript: int | None,
    strings: Dictionary,
) -> tuple[dict[str, Any], int]:
    """One candidate's page, and the flags its row carries in the table."""
    flags = 0
    log = read_log(run, result.log_path)
    if not log.found:
        flags |= FLAG_NO_LOG
    code = run.code.get(candidate_key(result))
    if code is None:
        flags |= FLAG_NO_CODE
    if result.suspicious:
        flags |= FLAG_SUSPICIOUS
    if result.duplicate_of:
        flags |= FLAG_DUPLICATE
    if transcript is not None:
        flags |= FLAG_TRANSCRIPT
    reference = run.references.get(result.instance_id)
    ranked = run.ranking.get((result.instance_id, result.candidate_id)) if run.ranking else None
    detail = {
        "run": run.name,
        "instance": result.instance_id,
        "title": instance_title(run.instances.get(result.instance_id)),
        "candidate": result.candidate_id,
        "model": result.model,
        "strategy": result.strategy,
        "iteration": result.iteration,
        "status": result.status,
        "reason": result.reason,
        "compiled": result.compiled,
        "passed": result.tests_passed,
        "failed": result.tests_failed,
        "regression": result.regression_passed,
        "failing": failing_messages(result.failing_tests, log.text),
        "failingTotal": len(result.failing_tests),
        "compiler": compiler_errors(log.text) if result.status == Status.UNCOMPILABLE.value else [],
        "seconds": result.seconds,
        "runner": result.runner,
        "node": result.node,
        "suspicious": [name for name in result.suspicious.split(",") if name],
        "duplicateOf": result.duplicate_of,
        "duplicateRow": row_of.get((result.instance_id, result.duplicate_of)) if result.duplicate_of else None,
        "log": {"path": log.path, "found": log.found, "tail": log.tail()},
        "code": strings.number(code) if code is not None else None,
        "reference": strings.number(reference) if reference is not None else None,
        "referenceLabel": run.reference_label,
        "rank": {"rank": ranked.rank, "similarity": ranked.similarity, "pruned": ranked.pruned} if ranked else None,
        "transcript": transcript,
    }
    return detail, flags


def transcript_page(transcript: dict[str, Any], rows: dict[str, int]) -> dict[str, Any]:
    """A transcript as the page walks it: its events in order, each attempt linked to its candidate's row."""
    events = []
    for event in transcript["events"]:
        event = dict(event)
        if event.get("kind") == "attempt" and event.get("candidate_id") in rows:
            event["row"] = rows[event["candidate_id"]]
        events.append(event)
    return {**{k: v for k, v in transcript.items() if k != "events"}, "events": events}
