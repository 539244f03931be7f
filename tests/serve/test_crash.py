"""The server SIGKILLed in the middle of a load and started again on the same store: every accepted job is answered
exactly once, none of those answered before the kill is judged again, and the store is intact."""

from __future__ import annotations

import json
import sqlite3
import time

import httpx
import pytest

from benchsmith.serve.client import ServeClient
from tests.helpers.serve import Server

pytestmark = [pytest.mark.java, pytest.mark.slow]


def test_sigkill_mid_load_answers_every_job_once(
    tmp_path, reference, ledger_dataset, geometry_dataset, fixture_repos, tokens
):
    token = tokens[0][0]
    headers = {"Authorization": f"Bearer {token}"}
    store = tmp_path / "store"
    batches = [reference[start : start + 4] for start in range(0, len(reference), 4)]
    total = len(reference)
    server = Server([ledger_dataset, geometry_dataset], store, tokens[1], fixture_repos, "--batch", "2").start()
    try:
        ids: list[str] = []
        for number, batch in enumerate(batches):
            accepted = httpx.post(
                f"{server.url}/v1/jobs",
                json={"candidates": batch},
                headers={**headers, "Idempotency-Key": f"load-{number}"},
            )
            assert accepted.status_code == 202, accepted.text
            ids += [job["job_id"] for job in accepted.json()["jobs"]]
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            found = httpx.post(f"{server.url}/v1/jobs/results", json={"job_ids": ids}, headers=headers).json()
            done = {job["job_id"]: job["answer"] for job in found["jobs"] if job["state"] == "done"}
            if len(done) >= 6:
                break
            time.sleep(0.2)
        server.kill()  # SIGKILL, mid-load
    finally:
        server.kill()
    # what the store holds at the kill: the answers it gave (a job may have been answered after the last poll)
    with sqlite3.connect(store / "jobs.sqlite3") as db:
        before = dict(db.execute("SELECT job_id, answer FROM jobs WHERE state = 'done'").fetchall())
        running = db.execute("SELECT COUNT(*) FROM jobs WHERE state = 'running'").fetchone()[0]
    print(f"at the kill: {len(before)} of {total} answered, {running} being judged")
    assert set(done) <= set(before) and len(before) < total, "the kill came after the load"

    again = Server([ledger_dataset, geometry_dataset], store, tokens[1], fixture_repos, "--batch", "2").start()
    try:
        resubmitted: list[str] = []
        for number, batch in enumerate(batches):  # a client that never heard its acknowledgements retries them
            accepted = httpx.post(
                f"{again.url}/v1/jobs",
                json={"candidates": batch},
                headers={**headers, "Idempotency-Key": f"load-{number}"},
            ).json()
            assert accepted["replayed"]
            resubmitted += [job["job_id"] for job in accepted["jobs"]]
        assert resubmitted == ids
        with ServeClient(again.url, token) as client:
            answers = client.results(ids, timeout=600)
        judged_after = again.metric(token, "benchsmith_verdicts_total")
    finally:
        again.stop()
    assert [a["job_id"] for a in answers] == ids
    assert [(a["instance_id"], a["candidate_id"]) for a in answers] == [
        (row["instance_id"], row["candidate_id"]) for row in reference
    ]
    by_id = {a["job_id"]: a for a in answers}
    for job_id, stored in before.items():  # answered before the kill: the same answer, not judged again
        assert by_id[job_id] == json.loads(stored)
    assert judged_after == total - len(before)  # the restarted server judged only the rest
    statuses = {(a["instance_id"], a["candidate_id"]): a["status"] for a in answers}
    assert statuses[("Ledger-1", "gold")] == "plausible" and statuses[("Ledger-1", "buggy")] == "wrong"
    with sqlite3.connect(store / "jobs.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("SELECT COUNT(*), COUNT(DISTINCT job_id) FROM jobs").fetchone() == (total, total)
        assert db.execute("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetchall() == [("done", total)]
        attempts = dict(db.execute("SELECT job_id, attempts FROM jobs").fetchall())
    assert all(attempts[job_id] == 1 for job_id in before)
    assert max(attempts.values()) <= 2  # at most once more: the jobs the killed server was running
