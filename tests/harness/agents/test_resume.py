"""A run killed midway resumes with nothing asked twice: the loopback server counts the model's requests and the
oracle (which runs the candidate with the toy repository and checks two assertions; not under test) counts its
verdicts; the resumed run's transcripts equal those of a run that went through at once."""

from __future__ import annotations

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.journal import journal_path
from benchsmith.generation.candidates.agent_run import AgentRunOptions, run_agent, transcripts_path
from tests.harness.agents.conftest import GOLD_ANSWER, REFLECTION, WRONG_ANSWER, lines, openai_backend, write_dataset
from tests.helpers.interrupted import InterruptedAfter
from tests.helpers.openai_server import OpenAIServer, Reply
from tests.helpers.toy_agents import CheckOracle, polygon_task

TASKS = [polygon_task("toy::geometry/shapes.py::Polygon"), polygon_task("toy::geometry/other.py::Polygon")]


def conversation() -> list:
    """What the model says for one task: wrong, two tool calls, a reflection, right."""
    return [
        WRONG_ANSWER,
        Reply("Thought: distance is undefined.", (("get_imports", {}), ("get_class_info", {"class_name": "Point"}))),
        Reply(None, ()),
        REFLECTION,
        GOLD_ANSWER,
    ]


@pytest.fixture
def judged(monkeypatch) -> list[str]:
    """Every code the oracle judged, in order."""
    seen: list[str] = []
    judge = CheckOracle.judge

    def counting(self, code):
        seen.append(code)
        return judge(self, code)

    monkeypatch.setattr(CheckOracle, "judge", counting)
    return seen


def test_a_kill_mid_task_resumes_without_asking_anything_twice(server, tmp_path, monkeypatch, judged):
    dataset = write_dataset(tmp_path / "toy.parquet", TASKS)
    server.script.queue.extend(conversation() + conversation())
    out = tmp_path / "rrr.jsonl"
    options = AgentRunOptions("rrr", tool_format="openai")
    # Seven answers: the first task's five, then the second task's first two; the eighth request is interrupted.
    with pytest.raises(KeyboardInterrupt):
        run_agent(dataset, InterruptedAfter(openai_backend(), 7), out, options)
    assert not out.exists() and journal_path(out).exists()
    assert len(server.chat_requests()) == 7 and len(judged) == 3  # task 1: two verdicts; task 2: one

    summary = run_agent(dataset, openai_backend(), out, options)
    assert (summary.tasks, summary.resumed, summary.passed) == (2, 1, 2)
    assert len(server.chat_requests()) == 10  # 2 x 5: none asked twice
    assert len(judged) == 4  # the second task's second verdict only
    assert not journal_path(out).exists()

    # The same run in one go, against a fresh server saying the same: the same candidates and transcripts.
    with OpenAIServer() as fresh:
        monkeypatch.setenv("OPENAI_BASE_URL", fresh.base_url)
        fresh.script.queue.extend(conversation() + conversation())
        once = tmp_path / "once.jsonl"
        run_agent(dataset, openai_backend(), once, options)
    assert lines(once) == lines(out)
    assert lines(transcripts_path(once)) == lines(transcripts_path(out))


def test_a_journal_of_other_settings_is_refused(server, dataset, tmp_path):
    server.script.queue.extend([WRONG_ANSWER])
    out = tmp_path / "rrr.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run_agent(dataset, InterruptedAfter(openai_backend(), 1), out, AgentRunOptions("rrr", tool_format="openai"))
    with pytest.raises(BenchsmithError, match=r"other settings \(max_calls\)"):
        run_agent(dataset, openai_backend(), out, AgentRunOptions("rrr", tool_format="openai", max_calls=3))


def test_a_run_that_fell_back_to_text_resumes_in_text(server, dataset, tmp_path):
    server.script.refuse_tools = True
    server.script.queue.extend(
        [WRONG_ANSWER, "Thought 1: an import is missing.\nAction 1: get_imports()", REFLECTION, GOLD_ANSWER]
    )
    out = tmp_path / "rrr.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run_agent(dataset, InterruptedAfter(openai_backend(), 3), out, AgentRunOptions("rrr"))
    assert len(server.chat_requests()) == 3  # the initial generation, the refused tool request, the text one

    summary = run_agent(dataset, openai_backend(), out, AgentRunOptions("rrr"))
    assert (summary.passed, summary.tool_format) == (1, "text")
    bodies = [r.body for r in server.chat_requests()]
    assert len(bodies) == 5 and not any("tools" in body for body in bodies[2:])
    (transcript,) = lines(transcripts_path(out))
    assert [e["kind"] for e in transcript["events"]].count("tool-format") == 1
