"""The same server with ``--executor ray``: judging spread over a Ray cluster (one it starts on this machine), with the
verdicts the local executor gives."""

from __future__ import annotations

import pytest

from benchsmith.serve.client import ServeClient
from tests.helpers.serve import Server

pytest.importorskip("ray")
pytestmark = [pytest.mark.java, pytest.mark.slow]


def test_serve_on_ray_gives_the_local_verdicts(
    tmp_path, ledger_dataset, geometry_dataset, fixture_repos, tokens, reference, monkeypatch
):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    rows = [r for r in reference if r["instance_id"] in ("Ledger-1", "Ledger-8") or "::" in r["instance_id"]]
    datasets = [ledger_dataset, geometry_dataset]
    local = Server(datasets, tmp_path / "local", tokens[1], fixture_repos).start()
    try:
        with ServeClient(local.url, tokens[0][0]) as client:
            expected = client.judge_many(rows, batch=4, timeout=600)
    finally:
        local.stop()
    on_ray = Server(datasets, tmp_path / "ray", tokens[1], fixture_repos, "--executor", "ray").start(timeout=180)
    try:
        assert "on ray" in on_ray.log.read_text()
        with ServeClient(on_ray.url, tokens[0][0]) as client:
            answers = client.judge_many(rows, batch=4, timeout=600)
    finally:
        on_ray.stop()
    compared = ("status", "tests_passed", "tests_failed", "failing_tests", "reward", "suspicious")
    assert [{k: a[k] for k in compared} for a in answers] == [{k: a[k] for k in compared} for a in expected]
    assert {a["status"] for a in answers} >= {"plausible", "wrong"}
