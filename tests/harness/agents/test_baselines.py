"""The four baselines end to end against the loopback server (real openai client), with the toy benchmark's small
real toolbox and an oracle that runs the candidate and checks two assertions (the oracle is not under test)."""

from __future__ import annotations

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.generation.agents import agents, get_agent
from benchsmith.generation.candidates.agent_run import AgentRunOptions, run_agent, transcripts_path
from tests.harness.agents.conftest import GOLD_ANSWER, REFLECTION, WRONG, WRONG_ANSWER, lines, openai_backend

RELATED = "Below are some referential code fragments from other files.\n"


def test_basic_asks_once_from_the_description_alone(server, dataset, tmp_path):
    server.script.queue.append(WRONG_ANSWER)
    out = tmp_path / "basic.jsonl"
    summary = run_agent(dataset, openai_backend(), out, AgentRunOptions("basic"))

    assert (summary.candidates, summary.passed) == (1, 0)
    prompt = server.chat_requests()[0].body["messages"][0]["content"]
    assert "Description: Polygon keeps a list of Points" in prompt and "referential code" not in prompt
    (candidate,) = lines(out)
    assert (candidate["candidate_id"], candidate["strategy"], candidate["iteration"]) == (
        "basic-detailed-it1",
        "basic",
        1,
    )
    assert candidate["code"] == WRONG.rstrip("\n")
    (transcript,) = lines(transcripts_path(out))
    assert [e["kind"] for e in transcript["events"]] == ["request", "answer", "attempt"]  # no oracle, no tools


def test_naive_rag_adds_the_related_snippets_once(server, dataset, tmp_path):
    server.script.queue.append(GOLD_ANSWER)
    out = tmp_path / "naive-rag.jsonl"
    run_agent(dataset, openai_backend(), out, AgentRunOptions("naive-rag"))

    prompt = server.chat_requests()[0].body["messages"][0]["content"]
    assert f"# Question 2\n{RELATED}# geometry/points.py" in prompt
    assert len(server.chat_requests()) == 1
    assert [c["candidate_id"] for c in lines(out)] == ["naive-rag-detailed-it1"]


def test_repocoder_queries_with_its_last_generation_and_takes_no_feedback(server, dataset, tmp_path):
    first = "```python\nclass Polygon:\n    def perimeter(self):\n        return 0  # moved elsewhere\n```"
    server.script.queue.extend([first, WRONG_ANSWER, GOLD_ANSWER])
    out = tmp_path / "repocoder.jsonl"
    summary = run_agent(dataset, openai_backend(), out, AgentRunOptions("repocoder", max_calls=3))

    assert summary.candidates == 3 and summary.passed == 0  # no oracle: nothing passes by its own account
    (transcript,) = lines(transcripts_path(out))
    retrievals = [e for e in transcript["events"] if e["kind"] == "tool"]
    assert [e["arguments"] for e in retrievals] == [
        {},
        {"query": "class Polygon:\n    def perimeter(self):\n        return 0  # moved elsewhere"},
        {"query": WRONG.rstrip("\n")},
    ]
    assert not any(e["kind"] == "verdict" for e in transcript["events"])
    assert all(RELATED in r.body["messages"][0]["content"] for r in server.chat_requests())
    assert [c["iteration"] for c in lines(out)] == [1, 2, 3]


def test_reflexion_reflects_on_the_oracle_feedback_without_repository_context(server, dataset, tmp_path):
    server.script.queue.extend([WRONG_ANSWER, REFLECTION, GOLD_ANSWER])
    out = tmp_path / "reflexion.jsonl"
    summary = run_agent(dataset, openai_backend(), out, AgentRunOptions("reflexion"))

    assert (summary.candidates, summary.passed) == (2, 1)
    initial, reflect, improve = (r.body["messages"][0]["content"] for r in server.chat_requests())
    assert "referential code" not in initial
    for prompt in (reflect, improve):
        assert "potentially relevant" not in prompt and "get_class_info" not in prompt
        assert "# Question 2:\nGenerate the following class\nFile: geometry/shapes.py" in prompt
        assert "FAILED check.py - NameError: name 'distance' is not defined" in prompt
    assert f"Reflection on previous faulty implementation:\n{REFLECTION}" in improve
    (transcript,) = lines(transcripts_path(out))
    assert not any(e["kind"] == "tool" for e in transcript["events"])


def test_the_registry_names_the_five_agents_and_refuses_an_unknown_one():
    assert list(agents()) == ["basic", "naive-rag", "repocoder", "reflexion", "rrr"]
    assert all(get_agent(name).name == name for name in agents())
    with pytest.raises(BenchsmithError, match="unknown agent 'rrrr'"):
        get_agent("rrrr")


def test_a_task_without_repository_tools_says_so(server, tmp_path):
    """The classbench tools serve Python tasks; an agent given a Java task stops with the task's id before asking
    anything."""
    import dataclasses

    import pyarrow.parquet as pq

    from benchsmith.core.schema import ClassBenchTask, to_table
    from tests.helpers.records import classbench_task

    path = tmp_path / "classbench.parquet"
    task = dataclasses.replace(classbench_task(), language="java")
    pq.write_table(to_table([task], ClassBenchTask, benchmark="classbench"), path)
    with pytest.raises(BenchsmithError, match="python tasks only, not java"):
        run_agent(path, openai_backend(), tmp_path / "rrr.jsonl", AgentRunOptions("rrr"))
    assert server.chat_requests() == []
