"""The scripted backend (benchsmith/generation/models/scripted.py): the model's side of agent conversations replayed
from a file, so agents run end to end
without an endpoint (the toy benchmark's small real toolbox and a checking oracle stand beside it, not under test)."""

from __future__ import annotations

import json

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.generation.candidates.agent_run import AgentRunOptions, run_agent, transcripts_path
from benchsmith.generation.models import get_backend
from benchsmith.generation.models.base import ChatRequest, Message
from tests.harness.agents.conftest import GOLD_ANSWER, REFLECTION, WRONG_ANSWER, lines, openai_backend, write_dataset
from tests.helpers.openai_server import Reply
from tests.helpers.toy_agents import polygon_task

TASK = polygon_task().task_id


def write_script(path, turns):
    path.write_text("".join(json.dumps(turn) + "\n" for turn in turns), encoding="utf-8")
    return path


def test_a_transcript_replays_as_a_script_to_the_same_candidates(server, dataset, tmp_path):
    server.script.queue.extend(
        [
            WRONG_ANSWER,
            Reply("Thought: undefined name.", (("get_imports", {}),)),
            Reply(None, ()),
            REFLECTION,
            GOLD_ANSWER,
        ]
    )
    recorded = tmp_path / "recorded.jsonl"
    run_agent(dataset, openai_backend(), recorded, AgentRunOptions("rrr", tool_format="openai"))

    replayed = tmp_path / "replayed.jsonl"
    backend = get_backend("scripted", script=transcripts_path(recorded))
    summary = run_agent(dataset, backend, replayed, AgentRunOptions("rrr"))
    assert (summary.passed, summary.tool_format) == (1, "openai")  # auto: the scripted backend offers tools
    assert [c["code"] for c in lines(replayed)] == [c["code"] for c in lines(recorded)]
    assert backend.remaining() == {}
    events = lambda path: [  # noqa: E731
        {k: v for k, v in e.items() if k != "usage"} for e in lines(transcripts_path(path))[0]["events"]
    ]
    assert events(replayed) == events(recorded)  # all but the tokens, which a script does not spend


def test_a_written_script_with_malformed_tool_calls_runs_end_to_end(dataset, tmp_path):
    script = write_script(
        tmp_path / "script.jsonl",
        [
            {
                "item_id": TASK,
                "turn": 1,
                "purpose": "agent/rrr/initial",
                "content": WRONG_ANSWER,
                "model": "scripted-model",
            },
            {
                "item_id": TASK,
                "turn": 2,
                "purpose": "agent/rrr/tools",
                "content": "Thought: check the names.",
                "tool_calls": [
                    {"name": "get_imports", "arguments": '{"verbose": true}'},  # an argument it does not take
                    {"name": "get_everything", "arguments": {}},  # no such tool
                    {"name": "get_imports", "arguments": {}},
                ],
            },
            {"item_id": TASK, "purpose": "agent/rrr/reflect", "content": REFLECTION},
            {"item_id": TASK, "purpose": "agent/rrr/improve", "content": GOLD_ANSWER},
        ],
    )
    out = tmp_path / "rrr.jsonl"
    summary = run_agent(dataset, get_backend("scripted", script=script), out, AgentRunOptions("rrr"))

    assert (summary.passed, summary.candidates) == (1, 2)
    (transcript,) = lines(transcripts_path(out))
    assert transcript["model"] == "scripted-model"
    assert [
        (e["name"], e["error"]) for e in transcript["events"] if e["kind"] == "tool" and not e.get("independent")
    ] == [
        ("get_imports", "get_imports takes no arguments, not verbose"),
        ("get_everything", "unknown tool 'get_everything'; the tools are get_class_info, get_imports, get_signature"),
        ("get_imports", ""),
    ]


def test_a_script_that_runs_out_says_where(dataset, tmp_path):
    script = write_script(tmp_path / "script.jsonl", [{"item_id": TASK, "content": WRONG_ANSWER}])
    out = tmp_path / "rrr.jsonl"
    with pytest.raises(
        BenchsmithError,
        match=r"the script ran out: .*Polygon asked a turn 2 \(agent/rrr/tools\) but the script holds 1",
    ):
        run_agent(dataset, get_backend("scripted", script=script), out, AgentRunOptions("rrr"))
    assert not out.exists()


def test_a_turn_for_another_purpose_is_an_error(tmp_path):
    script = write_script(tmp_path / "script.jsonl", [{"item_id": "t", "purpose": "agent/rrr/tools", "content": "x"}])
    backend = get_backend("scripted", script=script)
    with pytest.raises(
        BenchsmithError,
        match=r"script.jsonl:1: turn 1 of t expects a request for 'agent/rrr/tools', got 'agent/rrr/initial'",
    ):
        backend.complete(ChatRequest((Message("user", "hi"),), item_id="t", purpose="agent/rrr/initial"))


def test_scripts_are_checked_when_read(tmp_path):
    with pytest.raises(BenchsmithError, match="the scripted backend needs --script FILE"):
        get_backend("scripted")
    with pytest.raises(BenchsmithError, match="a script turn needs an item_id"):
        get_backend("scripted", script=write_script(tmp_path / "a.jsonl", [{"content": "x"}]))
    with pytest.raises(BenchsmithError, match="turn 3 of t follows 1 turns of it"):
        get_backend(
            "scripted",
            script=write_script(
                tmp_path / "b.jsonl", [{"item_id": "t", "content": "x"}, {"item_id": "t", "turn": 3, "content": "y"}]
            ),
        )
    with pytest.raises(BenchsmithError, match="no turns for 'other'"):
        backend = get_backend("scripted", script=write_script(tmp_path / "c.jsonl", [{"item_id": "t", "content": "x"}]))
        backend.complete(ChatRequest((Message("user", "hi"),), item_id="other"))


def test_tasks_worked_at_once_give_what_one_at_a_time_gives(tmp_path):
    tasks = [polygon_task(f"toy::{name}.py::Polygon") for name in ("a", "b", "c")]
    data = write_dataset(tmp_path / "toy.parquet", tasks)
    turns = [
        {"item_id": t.task_id, "content": text}
        for t in tasks
        for text in (WRONG_ANSWER, "Thought: imports.\nAction: get_imports()", REFLECTION, GOLD_ANSWER)
    ]
    script = write_script(tmp_path / "script.jsonl", turns)
    outs = {}
    for workers in (1, 3):
        outs[workers] = tmp_path / f"rrr-{workers}.jsonl"
        summary = run_agent(
            data,
            get_backend("scripted", script=script),
            outs[workers],
            AgentRunOptions("rrr", tool_format="text", workers=workers),
        )
        assert (summary.tasks, summary.passed) == (3, 3)
    assert lines(outs[1]) == lines(outs[3])
    assert lines(transcripts_path(outs[1])) == lines(transcripts_path(outs[3]))
