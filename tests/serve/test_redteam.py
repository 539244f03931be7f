"""The Python red team's candidates (tests/harness/test_redteam_python.py) submitted through the server: the verdicts
``eval`` gives them, no hostile one plausible, every honest one plausible, and no answer quoting the ground truth."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from benchsmith.core.schema import Result, read_records
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.serve.client import ServeClient
from tests.harness.test_redteam_python import MARK, PLANT, hostile_runs, interleaved, plant_canaries
from tests.helpers.cli import eval_cli

pytestmark = [pytest.mark.java, pytest.mark.slow]


@pytest.fixture
def planted():
    paths = plant_canaries(Path(os.environ["BENCHSMITH_CACHE"]))
    yield paths
    paths["home_canary"].unlink(missing_ok=True)
    for leftover in (Path("/tmp") / PLANT, Path("/dev/shm") / PLANT, Path("/tmp") / f"{PLANT}-daemon"):
        leftover.unlink(missing_ok=True)


def test_red_team_through_the_server_gets_evals_verdicts(
    server, tokens, geometry_dataset, geometry_task, fixture_repos, planted, tmp_path
):
    if not sandbox.isolation()["unprivileged_uid"] or not sandbox.isolation()["mount_namespace"]:
        pytest.skip("needs root and a mount namespace: the red team checks what a sandbox uid can reach")
    site = Path(sys.base_prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    paths = {**planted, "dataset": geometry_dataset, "base_site_packages": site}
    runs = interleaved(geometry_task, hostile_runs(geometry_task, paths))
    rows = [{"instance_id": geometry_task.task_id, "candidate_id": run.name, "code": run.code} for run in runs]
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text("".join(json.dumps(row) + "\n" for row in rows))
    completed = eval_cli(geometry_dataset, candidates, tmp_path / "results.parquet", fixture_repos)
    assert completed.returncode == 0, completed.stderr[-3000:]
    expected = {r.candidate_id: r for r in read_records(tmp_path / "results.parquet", Result)}
    with ServeClient(server.url, tokens[0][0]) as client:
        answers = {a["candidate_id"]: a for a in client.judge_many(rows, batch=8)}
    assert set(answers) == set(expected) == {run.name for run in runs}
    differing = {
        name: (answers[name]["status"], result.status, answers[name]["feedback"][:1000])
        for name, result in expected.items()
        if (answers[name]["status"], answers[name]["failing_tests"]) != (result.status, result.failing_tests)
    }
    assert differing == {}, "\n".join(f"{n}: {d}" for n, d in list(differing.items())[:3])
    for run in runs:
        answer = answers[run.name]
        assert answer["status"] == "plausible" if run.honest else answer["status"] != "plausible", run.name
        assert MARK not in answer["feedback"], run.name  # the ground truth's docstring never comes back
    print(f"{len(runs)} red-team candidates ({sum(not r.honest for r in runs)} hostile): verdicts as eval's")
