"""``benchsmith agent run``: an agent over every task of a dataset → candidates JSONL and transcripts.

Candidates are those of ``generate`` plus ``iteration``: one per attempt, so
``eval`` judges each and ``report`` shows pass@1 per iteration (the RepoClassBench paper's
Table 11) beside the final pass@1. Transcripts (``<out stem>.transcripts.jsonl``,
one line per task) hold every request, answer, tool call and output, verdict,
tokens and cost; ``report --transcripts`` counts their tool calls (Tables 9
and 10), and the scripted backend replays their answers.

Every model answer and oracle verdict is journaled as it comes
(``<out>.journal.jsonl``, see :mod:`benchsmith.generation.agents.session`); an interrupted
run resumes where it stopped, asking nothing twice, as long as its settings
are the same. Both files are written atomically once every task is done.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from benchsmith.benchmarks import AgentOptions, benchmark_of
from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.journal import Journal
from benchsmith.generation.agents import get_agent
from benchsmith.generation.agents.prompts import agents_prompt_hash
from benchsmith.generation.agents.session import TOOL_FORMATS, RunSettings, Session
from benchsmith.generation.models.base import Backend, Usage
from benchsmith.runners.sandbox.executors import LocalExecutor, RayExecutor
from benchsmith.runners.sandbox.jail import Limits

log = logging.getLogger(__name__)


def transcripts_path(out: Path) -> Path:
    """Where the transcripts of the run writing *out* go: ``rrr.jsonl`` → ``rrr.transcripts.jsonl``."""
    out = Path(out)
    return out.with_name(out.name.removesuffix(".jsonl") + ".transcripts.jsonl")


@dataclass
class AgentRunSummary:
    tasks: int = 0
    resumed: int = 0  # tasks finished by an interrupted run
    candidates: int = 0
    passed: int = 0  # tasks whose last oracle verdict passed (eval judges the candidates anew)
    no_code: int = 0  # answers with no code found in them
    usage: Usage = field(default_factory=Usage)  # as the transcripts count it, resumed steps included
    tool_format: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class AgentRunOptions:
    agent: str
    description: str | None = None  # "detailed" (default) or "sketchy"
    max_calls: int = 5
    tool_format: str = "auto"
    no_relatives: bool = False
    temperature: float = 0.2  # the RepoClassBench paper, appendix C
    max_tokens: int | None = None
    limits: Limits = Limits()
    workers: int = 1  # tasks worked at once, each with its own oracle slot


def run_agent(
    dataset: Path,
    backend: Backend,
    out: Path,
    options: AgentRunOptions,
    executor: LocalExecutor | RayExecutor | None = None,
) -> AgentRunSummary:
    """Run *options.agent* on every task of *dataset*; write candidates to *out* and transcripts beside them.

    Tasks run on *executor* (default: ``options.workers`` threads here), each with a sandbox slot leased for its
    oracle; every step is journaled on this machine as it arrives."""
    started = time.monotonic()
    dataset, out = Path(dataset), Path(out)
    if options.max_calls < 1:
        raise BenchsmithError(f"--max-calls {options.max_calls}: must be at least 1")
    if options.tool_format not in TOOL_FORMATS:
        raise BenchsmithError(f"--tool-format {options.tool_format}: must be one of {', '.join(TOOL_FORMATS)}")
    if options.temperature < 0:
        raise BenchsmithError(f"--temperature {options.temperature}: must not be negative")
    if options.workers < 1:
        raise BenchsmithError(f"--workers {options.workers}: must be at least 1")
    agent = get_agent(options.agent, max_calls=options.max_calls)
    benchmark = benchmark_of(dataset)
    records = benchmark.load(dataset)
    tasks = {task_id: benchmark.agent_task(record, options.description) for task_id, record in records.items()}
    level = options.description or "detailed"
    supports_tools = bool(getattr(backend, "supports_tools", False))
    if options.tool_format == "openai" and not supports_tools:
        raise BenchsmithError(f"--tool-format openai: the {backend.name} backend cannot send tools; use text or auto")
    resolved = (
        "openai" if options.tool_format == "openai" or (options.tool_format == "auto" and supports_tools) else "text"
    )
    languages = sorted({task.language for task in tasks.values()})
    journal = _RunJournal(
        out,
        {
            "dataset": str(dataset.resolve()),
            "agent": options.agent,
            "description": level,
            "max_calls": options.max_calls,
            "tool_format": options.tool_format,
            "no_relatives": options.no_relatives,
            "temperature": options.temperature,
            "max_tokens": options.max_tokens,
            "backend": backend.name,
            "model": backend.model,
            "prompt_hash": {language: agents_prompt_hash(language) for language in languages},
        },
    )
    steps, done, fell_back = journal.load()
    settings = RunSettings(
        options.agent,
        level,
        options.temperature,
        options.max_tokens,
        "text" if fell_back else resolved,
        options.tool_format == "auto",
    )
    summary = AgentRunSummary(tasks=len(tasks), resumed=sum(task_id in done for task_id in tasks))
    pending = [task_id for task_id in tasks if task_id not in done]
    log.info(
        "%d tasks: %d done in an earlier run, %d to run (%s, %s tool calls)",
        len(tasks),
        summary.resumed,
        len(pending),
        options.agent,
        settings.tool_format,
    )
    environment = AgentOptions(
        dataset=dataset,
        logs=out.with_name(out.name + ".logs"),
        no_relatives=options.no_relatives,
        limits=options.limits,
        description=level,
    )
    lock = threading.Lock()
    bar = tqdm(total=len(pending), desc=options.agent, unit="task", mininterval=1.0)

    def record(entry: dict[str, Any], node: str = "") -> None:
        with lock:
            journal.append(entry)
            if "done" in entry:
                done[entry["task"]] = entry["done"]
                bar.update(1)

    def prepare(task_id: str) -> tuple:
        return records[task_id], tasks[task_id], steps.get(task_id, [])

    def work(payload: tuple, slot: int, emit) -> None:
        record_, task, replayed = payload
        toolbox = oracle = None
        if agent.uses_tools or agent.uses_oracle:
            toolbox, oracle = benchmark.agent_environment(record_, dataclasses.replace(environment, slot=slot))
        session = Session(
            task,
            backend,
            settings,
            toolbox if agent.uses_tools else None,
            oracle if agent.uses_oracle else None,
            replayed,
            emit,
        )
        try:
            agent.run(session)
        finally:
            if oracle is not None:
                oracle.close()
        emit({"task": task.task_id, "done": {"candidates": session.candidates, "transcript": session.transcript()}})

    try:
        (executor or LocalExecutor(options.workers)).run(pending, prepare, work, record)
    finally:
        bar.close()
    candidates = [row for task_id in tasks for row in done[task_id]["candidates"]]
    transcripts = [done[task_id]["transcript"] for task_id in tasks]
    write_text_atomic(out, "".join(json.dumps(row) + "\n" for row in candidates))
    write_text_atomic(transcripts_path(out), "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in transcripts))
    journal.remove()
    summary.candidates = len(candidates)
    summary.passed = sum(t["passed"] for t in transcripts)
    summary.no_code = sum(e["kind"] == "attempt" and not e["code_found"] for t in transcripts for e in t["events"])
    for transcript in transcripts:
        usage = transcript["usage"]
        summary.usage.add(
            Usage(usage["requests"], 0, usage["prompt_tokens"], usage["completion_tokens"], usage["cost_usd"])
        )
    summary.tool_format = settings.tool_format if agent.uses_tools else "no"
    summary.seconds = time.monotonic() - started
    return summary


class _RunJournal:
    """A settings line, then steps (model answers, oracle verdicts, a fallback to text) and finished tasks."""

    def __init__(self, out: Path, settings: dict[str, Any]) -> None:
        self.journal = Journal(out)
        self.settings = settings
        self._started = False

    def load(self) -> tuple[dict[str, list[dict]], dict[str, dict], bool]:
        """Steps by task (of tasks not finished), finished tasks, and whether the run fell back to text."""
        entries = self.journal.read(_entry)
        if not entries:
            return {}, {}, False
        if "settings" not in entries[0]:
            raise BenchsmithError(
                f"{self.journal.path}:1: corrupt journal line (no settings); delete the journal to start over"
            )
        differing = sorted(
            key
            for key in set(entries[0]["settings"]) | set(self.settings)
            if entries[0]["settings"].get(key) != self.settings.get(key)
        )
        if differing:
            raise BenchsmithError(
                f"{self.journal.path}: left by an interrupted run with other settings "
                f"({', '.join(differing)}); delete it or choose another --out"
            )
        self._started = True
        steps: dict[str, list[dict]] = {}
        done: dict[str, dict] = {}
        fell_back = False
        for entry in entries[1:]:
            if "done" in entry:
                done[entry["task"]] = entry["done"]
                steps.pop(entry["task"], None)
            else:
                steps.setdefault(entry["task"], []).append(entry)
                fell_back = fell_back or entry["kind"] == "fallback"
        return steps, done, fell_back

    def append(self, entry: dict[str, Any]) -> None:
        # The settings line goes in with the first entry: a run that did nothing leaves no journal behind.
        self.journal.append(entry) if self._started else self.journal.append({"settings": self.settings}, entry)
        self._started = True

    def remove(self) -> None:
        self.journal.remove()


def _entry(entry: dict) -> dict:
    if "settings" in entry:
        return {"settings": dict(entry["settings"])}
    if "done" in entry:
        done = entry["done"]
        return {
            "task": str(entry["task"]),
            "done": {"candidates": list(done["candidates"]), "transcript": dict(done["transcript"])},
        }
    return {
        "task": str(entry["task"]),
        "step": int(entry["step"]),
        "kind": str(entry["kind"]),
        "key": str(entry["key"]),
        "value": dict(entry["value"]),
    }
