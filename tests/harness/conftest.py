import dataclasses
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from benchsmith.core.schema import NL2FixInstance, read_records
from benchsmith.runners.java.defects4j_workspace import Workspace, make_readable, prepare
from benchsmith.runners.java.toolchain import junit_classpath
from benchsmith.sources.defects4j import Defects4JRoot
from tests.conftest import FIXTURE_D4J
from tests.helpers.cli import build_ledger


@pytest.fixture(scope="session")
def ledger_dataset(tmp_path_factory, fixture_repos) -> Path:
    out = tmp_path_factory.mktemp("ledger") / "nl2fix.parquet"
    # strict: the harness tests count the six strict instances; test_workspace.py validates the lenient one apart
    completed = build_ledger(out, fixture_repos, "--selection", "strict")
    assert completed.returncode == 0, completed.stderr
    return out


@pytest.fixture(scope="session")
def ledger_instances(ledger_dataset) -> dict[str, NL2FixInstance]:
    return {r.instance_id: r for r in read_records(ledger_dataset, NL2FixInstance)}


@pytest.fixture(scope="session")
def ledger_workspace(ledger_instances, fixture_repos):
    def prepared(instance_id: str):
        return prepare(ledger_instances[instance_id], Defects4JRoot(FIXTURE_D4J), fixture_repos)

    return prepared


def workspace_with_test_class(original: Workspace, source: str) -> Workspace:
    """A copy of *original* (in the sandbox-readable cache) whose test sources also hold *source*, and its test classes
    the class compiled for the Java release the workspace's tests run on."""
    root = Path(tempfile.mkdtemp(prefix="extra-test-", dir=os.environ["BENCHSMITH_CACHE"]))
    shutil.copytree(original.root, root, dirs_exist_ok=True, symlinks=True)
    workspace = dataclasses.replace(original, root=root)
    package, name = re.search(r"^package ([\w.]+);", source, re.M)[1], re.search(r"public class (\w+)", source)[1]
    path = workspace.tree / workspace.test_dir / package.replace(".", "/") / f"{name}.java"  # the plain path's
    path.write_text(source)
    classpath = os.pathsep.join(map(str, [workspace.classes, *junit_classpath()]))
    subprocess.run(
        ["javac", "--release", "8", "-d", str(workspace.test_classes), "-cp", classpath, str(path)], check=True
    )
    make_readable(root)
    return workspace


def statuses_on_both_paths(
    instance: NL2FixInstance, workspace: Workspace, logs: Path, codes: dict[str, str], excluded: tuple[str, ...] = ()
) -> dict[str, str]:
    """``name@fast`` / ``name@plain`` → the status each of *codes* gets, every test run (no early stop)."""
    from benchsmith.runners.java.method_runner import InstanceRunner, Tests
    from benchsmith.runners.sandbox import jail as sandbox

    everything = Tests.for_instance(instance, excluded, stop_early=False)
    statuses = {}
    with sandbox.leased_slot() as slot:
        runner = InstanceRunner(
            instance, workspace, slot=slot, limits=sandbox.Limits(wall_seconds=60), logs=logs, excluded=excluded
        )
        try:
            for fast in (True, False):
                for name, code in codes.items():
                    label = f"{name}@{'fast' if fast else 'plain'}"
                    statuses[label] = runner.evaluate(code, label, tests=everything, fast=fast).status
        finally:
            runner.close()
    return statuses
