"""Where the control tests run (benchsmith.runners.java.method_runner.InstanceRunner._placed): every request runs
them where the reference run checked them on the ground truth, so a twin of a test that reads state other tests leave
behind gets, in every run, the outcome it had there.

Cli-8 on the real Defects4J showed why: the twin of BugsTest::test13666 (help text for options built by Cli's static
OptionBuilder), placed afresh in each request, failed in some places and passed in others, and took its original with
it: one program (four of RepairLlama's ten candidates for the bug) came out wrong in 5 of 20 runs."""

import dataclasses

import pytest

from benchsmith.runners.java import jvm as jvm_module
from benchsmith.runners.java import method_runner
from benchsmith.runners.sandbox import jail as sandbox
from tests.harness.conftest import workspace_with_test_class

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox

PROPERTY = "benchsmith.ledger.left"
# A trigger test that passes only while no test of Dirty ran since the last of Clean: its twins (trigger tests are
# twinned first) fail wherever they run between the two, and pass before Dirty or after Clean.
STATEFUL = f"""package org.benchsmith.ledger;
import org.junit.Assert;
import org.junit.Test;
public class LeftBehindTest {{
    @Test public void readsWhatOthersLeave() {{
        Assert.assertNull("left behind", System.getProperty("{PROPERTY}"));
        Assert.assertEquals("-05", TextUtils.pad(-5, 3));
    }}
    public static class Dirty {{ @Test public void leaves() {{ System.setProperty("{PROPERTY}", "yes"); }} }}
    public static class Clean {{ @Test public void clears() {{ System.clearProperty("{PROPERTY}"); }} }}
}}
"""
READS = "org.benchsmith.ledger.LeftBehindTest::readsWhatOthersLeave"


def test_every_request_runs_its_controls_where_the_reference_run_checked_them(
    ledger_instances, ledger_workspace, tmp_path, monkeypatch
):
    original = ledger_instances["Ledger-1"]
    workspace = workspace_with_test_class(ledger_workspace("Ledger-1"), STATEFUL)
    instance = dataclasses.replace(
        original,
        trigger_tests=[*original.trigger_tests, READS],
        relevant_tests=[
            "org.benchsmith.ledger.LeftBehindTest$Dirty",
            *original.relevant_tests,
            "org.benchsmith.ledger.LeftBehindTest$Clean",
        ],
    )
    requests: list[tuple[str, list[str]]] = []  # (rights, phase 2) of every run a test JVM was asked for
    run = jvm_module.TestJvm.run

    def recorded(self, classpath, run_all, excluded, phase1, phase2, *rest, **options):
        requests.append((rest[1] if len(rest) > 1 else "", list(phase2)))
        return run(self, classpath, run_all, excluded, phase1, phase2, *rest, **options)

    monkeypatch.setattr(jvm_module.TestJvm, "run", recorded)
    tests = method_runner.Tests.for_instance(instance, stop_early=False)
    statuses = []
    with sandbox.leased_slot() as slot:
        runner = method_runner.InstanceRunner(
            instance, workspace, slot, sandbox.Limits(wall_seconds=60), tmp_path / "logs"
        )
        try:
            for number in range(6):
                fast = number != 5  # the plain path places them alike
                statuses.append(runner.evaluate(instance.fixed_method, f"gold-{number}", fast=fast, tests=tests).status)
            statuses.append(runner.evaluate(instance.buggy_method, "buggy", tests=tests).status)
        finally:
            runner.close()
    assert statuses == ["plausible"] * 6 + ["wrong"]
    [(_, reference)] = [(rights, phase2) for rights, phase2 in requests if rights == "audit"]
    relevant = set(instance.relevant_tests)
    assert [spec for spec in reference if spec in relevant] == instance.relevant_tests
    controls = [spec for spec in reference if spec not in relevant]
    assert len(controls) >= 2  # the twins of three trigger tests, or the fixed sentinels
    for rights, phase2 in requests:
        if rights != "audit":  # each request: the reference run's order, the controls dropped there left out
            assert phase2 == [spec for spec in reference if spec in set(phase2)]
            assert [spec for spec in phase2 if spec in relevant] == instance.relevant_tests
