"""`eval` on a real Ray cluster: a head and a second node started on loopback by the test.

The cluster is Ray's own (``ray.cluster_utils.Cluster`` starts real GCS and
raylet processes); the second node is killed without warning in the middle of
a run, and the run must still complete with the local executor's verdicts and
every verdict recorded once.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from benchsmith.benchmarks import EvalOptions
from benchsmith.core.journal import Journal
from benchsmith.runners.sandbox.executors import LocalExecutor
from benchsmith.runners.sandbox.jail import Limits
from benchsmith.scoring.evaluate import evaluate
from tests.conftest import FIXTURE_D4J
from tests.helpers.cli import reaped

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

pytestmark = [pytest.mark.java, pytest.mark.slow]

NODE = {"num_cpus": 1, "object_store_memory": 80 * 1024 * 1024}


def variants(method: str, count: int) -> list[str]:
    """*count* distinct programs that behave as *method*: a dead local declared after its opening brace."""
    return [method.replace("{", "{ int unused%d = %d;" % (n, n), 1) for n in range(count)]


def write_candidates(path, instances) -> list[tuple[str, str]]:
    rows = []
    for instance_id in ("Ledger-1", "Ledger-8"):
        instance = instances[instance_id]
        codes = variants(instance.fixed_method, 5) + [instance.buggy_method] + variants(instance.buggy_method, 3)
        rows += [(instance_id, f"c{n}", code) for n, code in enumerate(codes)]
    path.write_text(
        "".join(json.dumps({"instance_id": i, "candidate_id": c, "code": code}) + "\n" for i, c, code in rows)
    )
    return [(i, c) for i, c, _ in rows]


@pytest.fixture(scope="module")
def cluster():
    """A head and a second node whose processes ignore SIGINT, as a cluster started from a shell's background job
    does (CI scripts, a nohup'd ``ray start``): ray.cancel must still stop a run on it (a driver stopped by SIGTERM
    waited 300 s and more for a cancelled run that went on, in the fresh-clone gates of 2026-12-07)."""
    kept = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the nodes' processes inherit it, and their workers
    try:
        cluster = cluster_utils.Cluster(initialize_head=True, head_node_args=NODE)
        second = cluster.add_node(**NODE)
    finally:
        signal.signal(signal.SIGINT, kept)
    cluster.wait_for_nodes()
    raylets = [pid for pid in _descendants_of(os.getpid()) if "raylet" in _command_of(pid)]
    assert len(raylets) == 2 and all(_ignores_sigint(pid) for pid in raylets)  # which their workers inherit
    try:
        yield cluster, second
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_validate_on_ray_matches_local(tmp_path, cluster, ledger_instances, fixture_repos):
    from benchsmith.builders.validate import validate_all
    from benchsmith.runners.sandbox.executors import RayExecutor
    from benchsmith.sources.defects4j import Defects4JRoot

    instances = [ledger_instances["Ledger-1"], ledger_instances["Ledger-8"]]
    d4j, limits = Defects4JRoot(FIXTURE_D4J), Limits(wall_seconds=120)
    local = validate_all(instances, d4j, fixture_repos, 2, limits, tmp_path / "local")
    on_ray = validate_all(instances, d4j, fixture_repos, 2, limits, tmp_path / "ray", RayExecutor(cluster[0].address))
    assert on_ray == local and {v.status for v in local.values()} == {"reproduced"}


def options(ledger_dataset, candidates, out, fixture_repos) -> EvalOptions:
    return EvalOptions(
        dataset=ledger_dataset,
        candidates=candidates,
        out=out,
        defects4j=FIXTURE_D4J,
        repos=fixture_repos,
        workers=2,
        limits=Limits(wall_seconds=120),
    )


def verdicts(results) -> dict:
    return {
        (r.instance_id, r.candidate_id): (r.status, r.tests_passed, r.tests_failed, r.duplicate_of) for r in results
    }


def test_ray_matches_local_and_survives_a_lost_node(
    tmp_path, cluster, ledger_dataset, ledger_instances, fixture_repos, monkeypatch
):
    from benchsmith.runners.sandbox.executors import RayExecutor

    head_cluster, second = cluster
    candidates = tmp_path / "candidates.jsonl"
    pairs = write_candidates(candidates, ledger_instances)

    local = evaluate(options(ledger_dataset, candidates, tmp_path / "local.parquet", fixture_repos), LocalExecutor(2))

    recorded: Counter = Counter()
    append = Journal.append

    def counting(self, entry):  # the driver's one way of recording a verdict
        recorded[(entry["instance_id"], entry["candidate_id"])] += 1
        return append(self, entry)

    monkeypatch.setattr(Journal, "append", counting)
    executor = RayExecutor(head_cluster.address)
    assert executor.slots() == 2
    second_id = second.node_id[:8]
    killed = threading.Event()

    def kill_second_node() -> None:  # once the second node has judged something, it dies without warning
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not killed.is_set():
            if any(second_id in node for node in nodes_seen()):
                head_cluster.remove_node(second, allow_graceful=False)
                killed.set()
                return
            time.sleep(0.05)

    out = tmp_path / "ray.parquet"

    def nodes_seen() -> list[str]:
        return (
            [entry.get("node", "") for entry in Journal(out).read(lambda entry: entry)] if out.parent.exists() else []
        )

    killer = threading.Thread(target=kill_second_node, daemon=True)
    killer.start()
    results = evaluate(options(ledger_dataset, candidates, out, fixture_repos), executor)
    killer.join(timeout=5)

    assert killed.is_set(), "the second node finished before it could be killed"
    assert verdicts(results) == verdicts(local)
    assert sorted(recorded) == sorted(pairs) and set(recorded.values()) == {1}  # every verdict recorded once
    nodes = Counter(r.node for r in results if not r.duplicate_of)
    assert (
        any(second_id in node for node in nodes) and len(nodes) == 2
    )  # both nodes judged, the lost one kept its verdicts
    assert all(r.node for r in results)


def test_without_ray_the_executor_says_how_to_install_it(monkeypatch):
    import sys

    from benchsmith.core.errors import BenchsmithError
    from benchsmith.runners.sandbox.executors import executor

    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    with pytest.raises(BenchsmithError, match=r"pip install 'benchsmith\[ray\]'"):
        executor("ray", 2)
    assert executor("local", 3).workers == 3


def test_a_node_without_every_sandbox_layer_is_named_once_in_the_log(caplog):
    import logging

    from benchsmith.runners.sandbox.executors import RayExecutor

    executor = RayExecutor.__new__(RayExecutor)  # the bookkeeping only: no cluster needed to say what a node lacks
    executor._warned, executor._lock = set(), threading.Lock()
    with caplog.at_level(logging.WARNING, logger="benchsmith.runners.sandbox.executors"):
        for _ in range(3):
            executor._note_layers("10.0.0.7/abcd1234", ["mount_namespace", "unprivileged_uid"])
        executor._note_layers("10.0.0.8/ef567890", [])
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "node 10.0.0.7/abcd1234 cannot apply the sandbox's mount_namespace, unprivileged_uid layers; "
        "candidates it judges are less isolated"
    ]


SLEEPS = "while (System.nanoTime() > 0) { try { Thread.sleep(100); } catch (InterruptedException e) { } }"


def _descendants_of(root: int) -> dict[int, int]:
    """Every process under *root* (pid -> parent), read from /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path("/proc", entry, "stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = {}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in found:
                found[pid] = ppid
                frontier.append(pid)
    return found


def _command_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _ignores_sigint(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status").read_text()
    ignored = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:")), 16)
    return bool(ignored & (1 << (signal.SIGINT - 1)))


def _jailed_on_the_cluster() -> list[int]:
    """The processes of a sandbox uid under this test process that the harness did not start: runs on the
    cluster's nodes, which are this process's children (Ray's cluster_utils)."""
    jailed = []
    for pid in _descendants_of(os.getpid()):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        uid = int(next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:")))
        if uid != os.getuid():
            jailed.append(pid)
    return jailed


def _sigterm_to_a_thread_but_the_main_one(pid: int) -> None:
    """SIGTERM to one thread of *pid* other than its main one that does not block it (Ray's C++ threads do not), as
    the kernel may deliver a SIGTERM sent to the process (tgkill(2): Python's os has no call for it)."""
    for task in sorted(Path(f"/proc/{pid}/task").iterdir()):
        if int(task.name) == pid:
            continue
        status = dict(line.split(":", 1) for line in (task / "status").read_text().splitlines() if ":" in line)
        if not int(status["SigBlk"].strip(), 16) & (1 << (signal.SIGTERM - 1)):
            libc = ctypes.CDLL(None, use_errno=True)
            assert libc.syscall(_SYS_TGKILL, pid, int(task.name), signal.SIGTERM) == 0, ctypes.get_errno()
            return
    raise AssertionError(f"no thread of {pid} but the main one takes SIGTERM")


_SYS_TGKILL = 234  # x86-64


@pytest.mark.parametrize("to", ["the process", "another thread"])
def test_a_driver_stopped_by_sigterm_stops_the_runs_on_the_cluster(
    tmp_path, cluster, ledger_dataset, ledger_instances, fixture_repos, to
):
    """The harness runs on the head; the runs go on in Ray's workers, which are not its children. Sent SIGTERM
    while a candidate sleeps in its test, it stops those runs too (each worker kills its jails and removes their
    folders) before it exits, and writes no results. Also when the kernel delivers the signal to one of Ray's
    threads rather than the main one: the main thread slept on, waiting for the runs (gate7 of 2026-12-07: no exit
    in 300 s, under load)."""
    head_cluster, _ = cluster
    fixed = ledger_instances["Ledger-1"].fixed_method
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text(
        json.dumps({"instance_id": "Ledger-1", "candidate_id": "sleeps", "code": fixed.replace("{", "{ " + SLEEPS, 1)})
        + "\n"
    )
    out = tmp_path / "ray.parquet"
    harness = subprocess.Popen(
        [sys.executable, "-m", "benchsmith.cli", "eval", "--dataset", str(ledger_dataset)]
        + ["--candidates", str(candidates), "--out", str(out), "--defects4j", str(FIXTURE_D4J)]
        + ["--repos", str(fixture_repos), "--executor", "ray", "--ray-address", head_cluster.address]
        + ["--timeout", "600"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with reaped(harness):
        deadline = time.monotonic() + 600
        while not (jailed := _jailed_on_the_cluster()) and harness.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert jailed, "no run started on the cluster"
        time.sleep(3)  # well into the candidate's test
        if to == "the process":
            harness.send_signal(signal.SIGTERM)
        else:
            _sigterm_to_a_thread_but_the_main_one(harness.pid)
        _, stderr = harness.communicate(timeout=300)
    assert harness.returncode == 128 + signal.SIGTERM, stderr[-2000:]
    assert "benchsmith: stopped by SIGTERM" in stderr
    assert _jailed_on_the_cluster() == []
    assert not out.exists()
