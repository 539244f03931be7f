"""RRR on a real classbench task, as `make dataset` runs it: the classbench benchmark's own repository tools and
sandboxed oracle, the scripted backend playing the model's side, then `eval` and `report` on what it wrote."""

import json
import shutil

import pytest

from benchsmith.core.schema import ClassBenchTask, Result, read_records
from tests.helpers.cli import run_cli

pytestmark = pytest.mark.slow  # describes, runs the oracle twice and evaluates: about a minute


@pytest.fixture(scope="module")
def described(geometry_dataset, tmp_path_factory):
    dataset = tmp_path_factory.mktemp("rrr") / "geometry.parquet"
    shutil.copy(geometry_dataset, dataset)
    completed = run_cli("describe", "--dataset", str(dataset), "--backend", "template")
    assert completed.returncode == 0, completed.stderr
    return dataset


def test_rrr_runs_with_the_benchmark_s_tools_and_oracle(described, tmp_path):
    script, out, results = tmp_path / "script.jsonl", tmp_path / "rrr.jsonl", tmp_path / "rrr.parquet"
    assert run_cli("agent", "demo-script", "--dataset", str(described), "--out", str(script)).returncode == 0
    completed = run_cli(
        "agent",
        "run",
        "--agent",
        "rrr",
        "--dataset",
        str(described),
        "--backend",
        "scripted",
        "--script",
        str(script),
        "--max-calls",
        "5",
        "--out",
        str(out),
    )
    assert completed.returncode == 0, completed.stderr
    (transcript,) = [json.loads(line) for line in (tmp_path / "rrr.transcripts.jsonl").read_text().splitlines()]
    tool_outputs = [e for e in transcript["events"] if e["kind"] == "tool"]
    assert [e["name"] for e in tool_outputs] == ["get_related_snippets", "get_imports", "get_relevant_code"]
    (task,) = read_records(described, ClassBenchTask)
    for event in tool_outputs:  # the real tools answered, and none of them with the removed class
        assert event["output"].strip() and f"class {task.class_name}" not in event["output"]
    verdicts = [e for e in transcript["events"] if e["kind"] == "verdict"]
    assert [v["passed"] for v in verdicts] == [False, True]  # the empty class fails the real tests, the gold passes

    completed = run_cli("eval", "--dataset", str(described), "--candidates", str(out), "--out", str(results))
    assert completed.returncode == 0, completed.stderr
    assert [(r.iteration, r.status) for r in read_records(results, Result)] == [(1, "wrong"), (2, "plausible")]
    report = run_cli(
        "report", "--results", str(results), "--k", "1", "--transcripts", str(tmp_path / "rrr.transcripts.jsonl")
    )
    assert report.returncode == 0, report.stderr
    assert "pass@1 per iteration" in report.stdout and "| get_relevant_code | 1 |" in report.stdout
