"""Judging a candidate leaves nothing in the host's temporary folder: not the jail's hosts file (written once per
process, never removed, until it lived in each run's own tmpfs) nor the test JVM's mirror of the project's class
folder (made in the JVM's /tmp, which is the host's where no mount namespace can be had)."""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from benchsmith.runners.java import method_runner as java_runner
from benchsmith.runners.java.jvm import COMPILER_LANE, TEST_LANES
from benchsmith.runners.sandbox import jail as sandbox
from tests.harness.test_redteam_java import NO_NAMESPACES

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox


def owned_by(folder: Path, uids: set[int]) -> set[str]:
    found = set()
    for entry in os.scandir(folder):
        try:
            if entry.stat(follow_symlinks=False).st_uid in uids:
                found.add(entry.name)
        except FileNotFoundError:  # another process's, removed meanwhile
            pass
    return found


@pytest.mark.slow
@pytest.mark.parametrize("missing", [{}, NO_NAMESPACES], ids=["every layer", "no namespaces"])
def test_judging_a_candidate_leaves_nothing_in_the_hosts_temporary_folder(
    missing, monkeypatch, ledger_instances, ledger_workspace, tmp_path
):
    host_tmp = Path(tempfile.gettempdir())
    # What the harness makes through tempfile lands in a folder of this test's own, which must be empty at the end;
    # what the sandboxed JVMs make in the host's /tmp is theirs (their slot's uids, which this test holds alone).
    own = Path(tempfile.mkdtemp(prefix="leftovers-", dir=host_tmp))
    own.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(own))
    layers = {**sandbox.isolation(), **missing}
    monkeypatch.setattr(sandbox, "isolation", lambda: layers)
    sandbox._jail_hosts.cache_clear()  # made once per process: make it again in this one
    instance = ledger_instances["Ledger-1"]
    workspace = ledger_workspace("Ledger-1")
    try:
        with sandbox.leased_slot() as slot:
            uids = {sandbox.sandbox_uid(slot, lane) for lane in (COMPILER_LANE, *TEST_LANES)} - {None}
            assert uids, "not root: the JVMs' files cannot be told from other processes'"
            before = owned_by(host_tmp, uids)
            runner = java_runner.InstanceRunner(
                instance, workspace, slot=slot, limits=sandbox.Limits(wall_seconds=60), logs=tmp_path / "logs"
            )
            try:
                fast = runner.evaluate(instance.fixed_method, "gold")
                plain = runner.plain(instance.fixed_method, "gold-plain")
            finally:
                runner.close()
            left_by_jvms = owned_by(host_tmp, uids) - before
        left_by_harness = sorted(p.name for p in own.iterdir())
    finally:
        sandbox._jail_hosts.cache_clear()
        for path in own.iterdir():
            shutil.rmtree(path) if path.is_dir() else path.unlink()
        own.rmdir()
    assert (fast.status, fast.path, plain.status) == ("plausible", "fast", "plausible"), (fast, plain)
    assert not left_by_harness, left_by_harness
    assert not left_by_jvms, sorted(left_by_jvms)
