"""``benchsmith agent list``, ``agent run`` with the scripted backend, then ``eval`` and ``report --transcripts``:
pass@1 per iteration (the RepoClassBench paper's Table 11) and tool-call frequencies (Tables 9 and 10). The toy
benchmark's oracle
and eval runner run the candidate with its small repository and check two assertions; the agents and the report are
under test."""

from __future__ import annotations

import json

from benchsmith.cli import main
from tests.harness.agents.conftest import GOLD_ANSWER, REFLECTION, WRONG_ANSWER, lines, write_dataset
from tests.helpers.toy_agents import polygon_task

SOLVED, UNSOLVED = polygon_task("toy::a.py::Polygon"), polygon_task("toy::b.py::Polygon")


def test_agent_run_eval_and_report_show_pass_at_1_per_iteration_and_tool_calls(tmp_path, capsys):
    dataset = write_dataset(tmp_path / "toy.parquet", [SOLVED, UNSOLVED])
    turns = [
        (SOLVED, WRONG_ANSWER),
        (SOLVED, "Thought 1: distance is undefined.\nAction 1: get_imports()\nAction 2: get_class_info(Point)"),
        (SOLVED, REFLECTION),
        (SOLVED, GOLD_ANSWER),
        (UNSOLVED, WRONG_ANSWER),
        (UNSOLVED, "Thought 1: maybe the signature.\nAction 1: get_signature(Point, moved)"),
        (UNSOLVED, "I do not know."),
        (UNSOLVED, WRONG_ANSWER),
    ]
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps({"item_id": task.task_id, "content": text}) + "\n" for task, text in turns))
    out = tmp_path / "rrr.jsonl"

    assert main(["agent", "list"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("rrr        Retrieve-Repotools-Reflect")
    assert (
        main(
            [
                "agent",
                "run",
                "--agent",
                "rrr",
                "--dataset",
                str(dataset),
                "--backend",
                "scripted",
                "--script",
                str(script),
                "--max-calls",
                "2",
                "--tool-format",
                "text",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    printed = capsys.readouterr()
    assert "4 candidates for 2 tasks by rrr (0 from an interrupted run, 1 passing the oracle" in printed.out
    assert "scripted scripted: 0 requests" in printed.err
    assert [(c["instance_id"], c["iteration"]) for c in lines(out)] == [
        (SOLVED.task_id, 1),
        (SOLVED.task_id, 2),
        (UNSOLVED.task_id, 1),
        (UNSOLVED.task_id, 2),
    ]

    results = tmp_path / "results.parquet"
    assert main(["eval", "--dataset", str(dataset), "--candidates", str(out), "--out", str(results)]) == 0
    capsys.readouterr()
    assert (
        main(
            ["report", "--results", str(results), "--k", "1", "--transcripts", str(tmp_path / "rrr.transcripts.jsonl")]
        )
        == 0
    )
    report = capsys.readouterr().out
    assert "## scripted / rrr: 2 instances, 2 candidates" in report  # each instance scored on its last attempt
    assert "| **all** | 2 | 1 | 50.00% | 50.00% |" in report
    assert "| iteration | 1 | 2 |\n| --- | ---: | ---: |\n| pass@1 | 0.00% | 50.00% |" in report
    # Three calls: get_imports and get_class_info in the solved task, get_signature in the other.
    assert "| get_class_info | 1 | 33.33% | 50.00% | 50.00% |" in report
    assert "| get_imports | 1 | 33.33% | 50.00% | 50.00% |" in report
    assert "| get_signature | 1 | 33.33% | 0.00% | 50.00% |" in report

    assert main(["report", "--results", str(results), "--k", "1", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["scripted / rrr"]
    assert summary["attempts"] == 4 and summary["iterations"]["2"] == {"pass@1": 0.5, "instances": 2}
    assert "tools" not in summary  # no transcripts given


def test_the_demonstration_script_walks_rrr_through_every_phase(tmp_path, capsys):
    dataset = write_dataset(tmp_path / "toy.parquet", [SOLVED])
    script, out = tmp_path / "demo.jsonl", tmp_path / "rrr.jsonl"
    assert main(["agent", "demo-script", "--dataset", str(dataset), "--out", str(script)]) == 0
    assert len(lines(script)) == 1 + 3 * 4
    assert (
        main(
            [
                "agent",
                "run",
                "--agent",
                "rrr",
                "--dataset",
                str(dataset),
                "--backend",
                "scripted",
                "--script",
                str(script),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert "2 candidates for 1 tasks by rrr (0 from an interrupted run, 1 passing the oracle" in capsys.readouterr().out
    (transcript,) = lines(tmp_path / "rrr.transcripts.jsonl")
    assert transcript["model"] == "scripted-demo"
    # The toy toolbox has no get_relevant_code: the model is told so, and the loop goes on.
    tools = [(e["name"], e["error"][:40]) for e in transcript["events"] if e["kind"] == "tool"]
    assert tools == [
        ("get_related_snippets", ""),
        ("get_imports", ""),
        ("get_relevant_code", "unknown tool 'get_relevant_code'; the to"),
    ]
    assert [e["passed"] for e in transcript["events"] if e["kind"] == "verdict"] == [False, True]


def test_tool_statistics_count_what_the_model_called_and_skip_what_ran_unasked_or_over_budget():
    from benchsmith.scoring.report import tool_statistics

    def tool(name, **extra):
        return {"kind": "tool", "name": name, **extra}

    transcripts = [
        {
            "task_id": "a",
            "events": [
                tool("get_related_snippets", independent=True),
                tool("get_imports"),
                tool("get_imports"),
                tool(""),
                tool("get_class_info", skipped=True),
            ],
        },
        {"task_id": "b", "events": [tool("get_class_info")]},
        {"task_id": "c", "events": [tool("get_related_snippets", independent=True)]},  # no tool round: not in Table 10
    ]
    stats = tool_statistics(transcripts, solved={"a"})
    assert stats == {
        "(unreadable)": {"calls": 1, "share": 25.0, "share in solved": 100 / 3, "tasks using": 50.0},
        "get_class_info": {"calls": 1, "share": 25.0, "share in solved": 0.0, "tasks using": 50.0},
        "get_imports": {"calls": 2, "share": 50.0, "share in solved": 200 / 3, "tasks using": 50.0},
    }
