"""RRR end to end: the real openai client against a loopback server answering as a model would, the toy benchmark's
small real toolbox, and an oracle that runs the candidate with the repository and checks two assertions (the oracle
is not under test here; the agent loop is)."""

from __future__ import annotations

import json
import os

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.generation.candidates.agent_run import AgentRunOptions, run_agent, transcripts_path
from benchsmith.generation.models import get_backend
from tests.conftest import ROOT
from tests.harness.agents.conftest import GOLD_ANSWER, REFLECTION, WRONG_ANSWER, lines, openai_backend
from tests.helpers.openai_server import Reply

GOLDEN = ROOT / "tests" / "golden" / "agents"


def test_rrr_fixes_a_wrong_first_attempt_through_tool_calls_in_the_openai_format(server, dataset, tmp_path):
    server.script.queue.extend(
        [
            WRONG_ANSWER,  # y1, from the description and the related snippets
            Reply(
                "Thought: distance is not defined in shapes.py; Point may say where it lives.",
                (("get_class_info", {"class_name": "Point"}), ("get_imports", "{not json")),
            ),  # the second is malformed
            Reply(None, (("get_imports", {}),)),  # after the tool messages: the third and last call
            REFLECTION,
            GOLD_ANSWER,  # y2 passes: the loop stops
        ]
    )
    out = tmp_path / "rrr.jsonl"
    summary = run_agent(dataset, openai_backend(), out, AgentRunOptions("rrr", tool_format="openai"))

    assert (summary.tasks, summary.candidates, summary.passed, summary.tool_format) == (1, 2, 1, "openai")
    candidates = lines(out)
    assert [(c["candidate_id"], c["iteration"], c["strategy"]) for c in candidates] == [
        ("rrr-detailed-it1", 1, "rrr"),
        ("rrr-detailed-it2", 2, "rrr"),
    ]
    assert "from geometry.points import distance" in candidates[1]["code"]
    assert "import" not in candidates[0]["code"]

    requests = server.chat_requests()
    assert len(requests) == 5
    initial, tools, tools_again, reflect, improve = (r.body for r in requests)
    assert (
        "Below are some referential code fragments from other files.\n# geometry/points.py"
        in initial["messages"][0]["content"]
    )
    assert "tools" not in initial and "tools" not in reflect and "tools" not in improve
    assert [t["function"]["name"] for t in tools["tools"]] == ["get_imports", "get_class_info", "get_signature"]
    assert "NameError: name 'distance' is not defined" in tools["messages"][0]["content"]
    # The tool messages answer each call by its id; the malformed one hears what was wrong.
    answered = tools_again["messages"]
    assert [m["role"] for m in answered] == ["user", "assistant", "tool", "tool"]
    assert [c["id"] for c in answered[1]["tool_calls"]] == [answered[2]["tool_call_id"], answered[3]["tool_call_id"]]
    assert answered[2]["content"].startswith("class Point (geometry/points.py)")
    assert answered[3]["content"].startswith("error: the arguments of get_imports are not JSON")
    # The reflection and the improved generation see the observations, the last get_imports among them.
    assert "get_imports():\ndistance: from geometry.points import distance" in reflect["messages"][0]["content"]
    assert REFLECTION in improve["messages"][0]["content"]

    (transcript,) = lines(transcripts_path(out))
    pinned = GOLDEN / "rrr-openai.transcript.json"
    if os.environ.get("BENCHSMITH_REGOLD"):
        pinned.write_text(json.dumps(transcript, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert transcript == json.loads(pinned.read_text(encoding="utf-8"))


def test_rrr_in_the_thought_action_format_with_a_malformed_action_and_an_answer_without_code(server, dataset, tmp_path):
    server.script.queue.extend(
        [
            WRONG_ANSWER,
            "Thought 1: distance is not defined.\nAction 1: get_imports()\n"
            "Thought 2: Point's constructor.\nAction 2: get class info of Point\n"  # malformed: not name(args)
            "Action 3: get_signature(Point, '__init__')\nAction 4: get_class_info(Point)",  # the fourth is over budget
            REFLECTION,
            "I am sorry, but I cannot write this class.",  # y2 has no code: a failed attempt, not run by the oracle
            "Thought 1: the last answer had no code.\nAction 1: get_imports()",
            "The previous answer held no code; write the class with the import.",
            GOLD_ANSWER,  # y3
        ]
    )
    out = tmp_path / "rrr.jsonl"
    summary = run_agent(dataset, openai_backend(), out, AgentRunOptions("rrr", tool_format="text"))

    assert (summary.candidates, summary.passed, summary.no_code, summary.tool_format) == (3, 1, 1, "text")
    assert all("tools" not in r.body for r in server.chat_requests())
    (transcript,) = lines(transcripts_path(out))
    events = transcript["events"]
    tools = [(e["iteration"], e["name"], e["arguments"], e["error"]) for e in events if e["kind"] == "tool"]
    assert tools == [
        (1, "get_related_snippets", {}, ""),
        (1, "get_imports", {}, ""),
        (1, "", {}, "could not read the action 'get class info of Point': write it as tool_name(argument, ...)"),
        (1, "get_signature", {"class_name": "Point", "method_name": "__init__"}, ""),
        (1, "get_class_info", {"class_name": "Point"}, "over budget"),
        (2, "get_imports", {}, ""),
    ]
    verdicts = [(e["iteration"], e["passed"], e["oracle"]) for e in events if e["kind"] == "verdict"]
    assert verdicts == [(1, False, True), (2, False, False), (3, True, True)]
    no_code = next(e for e in events if e["kind"] == "verdict" and not e["oracle"])
    assert "No python code was found in the answer" in no_code["text"]
    # The model hears of the missing code in the next tool prompt.
    assert "No python code was found" in server.chat_requests()[4].body["messages"][0]["content"]
    signature = next(e for e in events if e["kind"] == "tool" and e["name"] == "get_signature")
    assert (
        signature["thought"] == "Point's constructor."
        and "def __init__(self, x: float, y: float)" in signature["output"]
    )


def test_auto_falls_back_to_thought_action_text_when_the_endpoint_refuses_tools(server, dataset, tmp_path):
    server.script.refuse_tools = True
    server.script.queue.extend(
        [WRONG_ANSWER, "Thought 1: an import is missing.\nAction 1: get_imports()", REFLECTION, GOLD_ANSWER]
    )
    out = tmp_path / "rrr.jsonl"
    summary = run_agent(dataset, openai_backend(), out, AgentRunOptions("rrr"))

    assert (summary.passed, summary.tool_format) == (1, "text")
    bodies = [r.body for r in server.chat_requests()]
    assert "tools" in bodies[1] and "tools" not in bodies[2]  # refused, then asked again without
    (transcript,) = lines(transcripts_path(out))
    assert [e["format"] for e in transcript["events"] if e["kind"] == "tool-format"] == ["text"]
    assert [e["name"] for e in transcript["events"] if e["kind"] == "tool"] == ["get_related_snippets", "get_imports"]


def test_max_calls_bounds_the_oracle_calls_and_the_last_attempt_is_judged(server, dataset, tmp_path):
    server.script.queue.extend([WRONG_ANSWER, "Thought 1: no idea.", REFLECTION, WRONG_ANSWER])
    out = tmp_path / "rrr.jsonl"
    summary = run_agent(dataset, openai_backend(), out, AgentRunOptions("rrr", max_calls=2, tool_format="text"))

    assert (summary.candidates, summary.passed) == (2, 0)
    assert len(server.chat_requests()) == 4  # no generation after the second (last) verdict
    (transcript,) = lines(transcripts_path(out))
    assert [e["iteration"] for e in transcript["events"] if e["kind"] == "verdict"] == [1, 2]
    improve = server.chat_requests()[3].body["messages"][0]["content"]
    assert "Below are some potentially relevant pieces of information.\n(no tool was called)" in improve


def test_the_openai_tool_format_needs_a_backend_that_sends_tools(dataset, tmp_path):
    out = tmp_path / "rrr.jsonl"
    with pytest.raises(BenchsmithError, match="--tool-format openai: the template backend cannot send tools"):
        run_agent(dataset, get_backend("template"), out, AgentRunOptions("rrr", tool_format="openai"))
    assert not out.exists()
