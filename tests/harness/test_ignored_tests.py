"""A relevant class with nothing to run (an @Ignore'd nested class Defects4J lists, or one whose every test is
@Ignore'd) asks for nothing: its reference run reports every test ignored, so no candidate is expected to pass it."""

import dataclasses
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from harness import sandbox
from harness.java_runner import InstanceRunner, Tests
from harness.javatools import junit_classpath
from harness.sandbox import Limits
from harness.workspace import make_readable

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox

IGNORED = """package org.benchsmith.ledger;
import org.junit.Ignore;
import org.junit.Test;
public class IgnoredTest {
    @Test @Ignore public void manual() { throw new AssertionError("never run"); }
    @Ignore("don't run this code in the test runner")
    public static class Never { @Test public void no() { throw new AssertionError("never run"); } }
}
"""


def test_a_relevant_class_with_nothing_to_run_asks_for_nothing(ledger_instances, ledger_workspace, tmp_path):
    original = ledger_workspace("Ledger-1")
    root = Path(tempfile.mkdtemp(prefix="ignored-", dir=os.environ["BENCHSMITH_CACHE"]))
    shutil.copytree(original.root, root, dirs_exist_ok=True, symlinks=True)
    workspace = dataclasses.replace(original, root=root)
    source = tmp_path / "IgnoredTest.java"
    source.write_text(IGNORED)
    classpath = os.pathsep.join(map(str, [workspace.classes, *junit_classpath()]))
    subprocess.run(["javac", "--release", "8", "-d", str(workspace.test_classes), "-cp", classpath, str(source)], check=True)
    make_readable(root)
    instance = dataclasses.replace(ledger_instances["Ledger-1"], relevant_tests=[
        *ledger_instances["Ledger-1"].relevant_tests, "org.benchsmith.ledger.IgnoredTest",
        "org.benchsmith.ledger.IgnoredTest$Never"])  # fmt: skip
    everything = Tests.for_instance(instance, stop_early=False)
    with sandbox.leased_slot() as slot:
        runner = InstanceRunner(instance, workspace, slot=slot, limits=Limits(wall_seconds=60), logs=tmp_path / "logs")
        try:
            for fast in (True, False):
                verdict = runner.evaluate(instance.fixed_method, f"gold-{fast}", tests=everything, fast=fast)
                assert verdict.status == "plausible", verdict
                buggy = runner.evaluate(instance.buggy_method, f"buggy-{fast}", tests=everything, fast=fast)
                assert buggy.status == "wrong", buggy  # the trigger test still decides
        finally:
            runner.close()
