"""Red team, round 8, the Ray executor: what a candidate on a Ray node reaches of the node itself.

Ray makes every folder of its own world-writable without the sticky bit (``try_make_directory_shared``): its
session's ``sockets`` folder (the raylet's and the object store's sockets), its logs, and ``/tmp/ray`` itself, where
``ray.init()`` without an address finds the cluster to join (``ray_current_cluster``). A candidate judged on a node
whose sandbox has no mount namespace shares that node's ``/tmp`` (docs/sandbox.md: trees are copies, modes guard the
files), so it could unlink the raylet's socket (the node's next workers cannot start: the run stops) or name the
cluster the next run joins. The executor now starts its node in a folder only root can enter. The candidate here only
proves it could: it makes and removes a file of its own where Ray's sockets lie, and answers right when it could.
"""

from __future__ import annotations

import secrets
import shutil
from pathlib import Path

import pytest

from benchsmith.runners.java.method_runner import InstanceRunner
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.runners.sandbox.jail import Limits
from tests.harness.test_redteam_java import Attack as Attack
from tests.harness.test_redteam_java import assert_verdicts, if_escaped, java_string, run_all

ray = pytest.importorskip("ray")

pytestmark = [pytest.mark.java, pytest.mark.slow]  # a Ray node of its own, and JVMs


def could_write_in(*folders: Path) -> str:
    """A boolean expression: whether the candidate could make (and then remove) a file of its own in any *folders*."""
    probe = f"benchsmith-probe-{secrets.token_hex(4)}"
    return " | ".join(
        f"((java.util.function.Supplier<Boolean>) () -> {{ try {{ java.io.File f = new java.io.File("
        f"{java_string(str(folder))}, {java_string(probe)}); return f.createNewFile() && f.delete(); }}"
        " catch (Throwable t) { return false; } }).get()"
        for folder in folders
    )


def test_a_candidate_without_a_mount_namespace_cannot_reach_the_ray_node(
    ledger_instances, ledger_workspace, tmp_path, monkeypatch
):
    from benchsmith.runners.sandbox.executors import RayExecutor

    if not sandbox.isolation()["unprivileged_uid"]:
        pytest.skip("needs root: the candidate runs as a sandbox uid, apart from the harness and Ray")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert not ray.is_initialized()
    RayExecutor()
    node = ray._private.worker._global_node
    temp, session = Path(node.get_temp_dir_path()), Path(node.get_session_dir_path())
    try:
        assert (session / "sockets").is_dir()
        # the node's candidates judged without a mount namespace: they share its /tmp
        layers = {**sandbox.isolation(), "mount_namespace": False, "pid_namespace": False, "private_tmp": False}
        monkeypatch.setattr(sandbox, "isolation", lambda: layers)
        instance = ledger_instances["Ledger-1"]
        hostile = [
            Attack("Ray's folders", if_escaped(could_write_in(temp, session, session / "sockets", session / "logs")))
        ]
        with sandbox.leased_slot() as slot:
            runner = InstanceRunner(instance, ledger_workspace("Ledger-1"), slot, Limits(wall_seconds=30), tmp_path)
            try:
                verdicts = run_all(runner, instance, hostile, fast=True)
            finally:
                runner.close()
    finally:
        ray.shutdown()
        if temp.parent.name.startswith("bs-"):  # the executor's own folder (before: Ray's /tmp/ray, kept)
            shutil.rmtree(temp.parent, ignore_errors=True)
    assert_verdicts(verdicts)
