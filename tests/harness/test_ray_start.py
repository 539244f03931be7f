"""`--executor ray` when Ray does not start: a real ``ray.init`` made to fail on purpose, not by loading the machine.

Ray's start is a step of the harness's own (issue 39: under load, 4 of 5 starts of Ray's node failed in time and
`eval` exited with no results). It is tried three times; a node of this machine's own that never starts leaves the run
to the local executor, said in the log and in `eval`'s last line; a named cluster that cannot be joined ends `eval`
with one line naming Ray, before anything is written. The failures: a temporary folder Ray cannot create
(``RAY_TMPDIR`` under ``/proc``), and a cluster address where nothing listens, with Ray's own connection timeouts
shortened (``RAY_py_gcs_connect_timeout_s``, ``RAY_gcs_server_port_wait_time_s``).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time

import pytest

from benchsmith.core.schema import Result, read_records
from benchsmith.runners.sandbox.executors import LocalExecutor, RayExecutor, _children, executor
from tests.conftest import FIXTURE_D4J
from tests.helpers.cli import run_cli

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.slow  # starts Ray's processes, and waits between its tries

NOWHERE = "/proc/benchsmith-no-such-folder"  # not even root can make a folder there


@pytest.fixture
def no_ray(monkeypatch):
    """No Ray initialised in this process, no cluster named in the environment; whatever a test starts is stopped."""
    ray.shutdown()
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    yield
    ray.shutdown()


class FixOnRetry(logging.Handler):
    """Points Ray at a usable temporary folder when the first retry is announced: the first ray.init fails, the
    second can succeed."""

    def __init__(self, folder: str):
        super().__init__(logging.WARNING)
        self.folder, self.announced = folder, []

    def emit(self, record: logging.LogRecord) -> None:
        self.announced.append(record.getMessage())
        os.environ["RAY_TMPDIR"] = self.folder


def test_a_ray_start_that_fails_once_is_tried_again(no_ray, monkeypatch):
    folder = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # short: Ray's socket paths must fit in 107 bytes
    monkeypatch.setenv("RAY_TMPDIR", NOWHERE)
    handler = FixOnRetry(folder)
    retries = logging.getLogger("benchsmith.runners.sandbox.retries")
    retries.addHandler(handler)
    before = _children()
    try:
        started = RayExecutor(pause=0)
        assert started.slots() >= 1 and ray.is_initialized()
    finally:
        retries.removeHandler(handler)
        ray.shutdown()
    assert len(handler.announced) == 1
    assert handler.announced[0].startswith(
        f"starting Ray on this machine failed (FileNotFoundError: [Errno 2] No such file or directory: '{NOWHERE}"
    )
    assert handler.announced[0].endswith("trying again (2 of 3)")
    deadline = time.monotonic() + 30  # ray.shutdown has stopped them; the kernel may take a moment to reap them
    while not _children() <= before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _children() <= before  # nothing of either attempt is left running


def test_ray_that_never_starts_here_leaves_the_work_to_the_local_executor(no_ray, monkeypatch, caplog):
    monkeypatch.setenv("RAY_TMPDIR", NOWHERE)
    with caplog.at_level(logging.WARNING, logger="benchsmith.runners.sandbox.executors"):
        chosen = executor("ray", 3)
    assert isinstance(chosen, LocalExecutor) and chosen.workers == 3
    assert chosen.instead_of.startswith(
        "ray: --executor ray: starting Ray on this machine failed 3 times; the last: FileNotFoundError"
    )
    said = [(r.name.rsplit(".", 1)[-1], r.getMessage()) for r in caplog.records if r.name.startswith("benchsmith")]
    assert [who for who, _ in said] == ["retries", "retries", "executors"]
    assert said[0][1].endswith("trying again in 5 s (2 of 3)") and said[1][1].endswith("trying again in 10 s (3 of 3)")
    assert said[2][1].endswith("judging on the local executor instead, 3 workers")


def candidates_file(path, instances) -> None:
    instance = instances["Ledger-1"]
    rows = [("gold", instance.fixed_method), ("buggy", instance.buggy_method)]
    path.write_text(
        "".join(json.dumps({"instance_id": "Ledger-1", "candidate_id": c, "code": code}) + "\n" for c, code in rows)
    )


def eval_on_ray(tmp_path, ledger_dataset, fixture_repos, *extra: str, env: dict):
    out = tmp_path / "results.parquet"
    completed = run_cli(
        "eval",
        "--dataset",
        str(ledger_dataset),
        "--candidates",
        str(tmp_path / "candidates.jsonl"),
        "--defects4j",
        str(FIXTURE_D4J),
        "--repos",
        str(fixture_repos),
        "--executor",
        "ray",
        *extra,
        "--out",
        str(out),
        env=env,
    )
    return completed, out


@pytest.mark.java
def test_eval_on_a_ray_that_never_starts_judges_locally_and_says_so(
    no_ray, tmp_path, ledger_dataset, ledger_instances, fixture_repos
):
    candidates_file(tmp_path / "candidates.jsonl", ledger_instances)
    completed, out = eval_on_ray(tmp_path, ledger_dataset, fixture_repos, env={"RAY_TMPDIR": NOWHERE})
    assert completed.returncode == 0, completed.stderr
    last = completed.stdout.strip().splitlines()[-1]
    assert last.startswith(f"{out}: 2 results (plausible 1, wrong 1, ")
    assert "; judged on the local executor, instead of ray: --executor ray: starting Ray on this machine failed" in last
    assert "judging on the local executor instead" in completed.stderr
    assert {r.candidate_id: r.status for r in read_records(out, Result)} == {"gold": "plausible", "buggy": "wrong"}


def test_eval_on_a_named_ray_cluster_that_does_not_answer_ends_in_one_line_and_writes_nothing(
    no_ray, tmp_path, ledger_dataset, ledger_instances, fixture_repos
):
    candidates_file(tmp_path / "candidates.jsonl", ledger_instances)
    completed, out = eval_on_ray(
        tmp_path,
        ledger_dataset,
        fixture_repos,
        "--ray-address",
        "127.0.0.1:1",  # nothing listens on port 1
        env={"RAY_py_gcs_connect_timeout_s": "1", "RAY_gcs_server_port_wait_time_s": "1"},
    )
    assert completed.returncode == 2, completed.stderr
    last = completed.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "benchsmith: error: --executor ray: joining the Ray cluster at 127.0.0.1:1 failed 3 times; the last: "
        "ConnectionError"
    ), last
    assert not out.exists() and not list(tmp_path.glob("results.parquet*"))
