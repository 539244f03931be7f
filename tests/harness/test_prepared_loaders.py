"""A test JVM started ahead makes its request's class loaders before the candidate arrives, and defines the public
classes in them (BenchsmithRunner.prepare). A class that needs the candidate's, such as a subclass of the class under
repair, cannot be defined then: it must load once the candidate is there, as it would without the head start."""

import dataclasses
import re
import time

import pytest

from benchsmith.runners.java import method_runner as java_runner
from benchsmith.runners.sandbox import jail as sandbox
from tests.harness.conftest import workspace_with_test_class

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox

SUBCLASS = """package org.benchsmith.ledger;
public class LedgerSubclassTest {
    static class Audited extends Ledger {
        Audited() { super("USD"); }
    }
    @org.junit.Test public void aSubclassOfTheClassUnderRepairLoads() {
        org.junit.Assert.assertEquals(0, new Audited().getEntries().size());
    }
}
"""
SERVED = re.compile(
    r"class loaders made ahead serve the request \((\d+) classes defined in them; not yet: (\d+)"
    r"[^;]*; prepared in full\)"
)


def test_a_subclass_of_the_class_under_repair_loads_in_loaders_made_ahead(ledger_instances, ledger_workspace, tmp_path):
    original = next(i for i in ledger_instances.values() if i.file_path.endswith("/Ledger.java"))
    workspace = workspace_with_test_class(ledger_workspace(original.instance_id), SUBCLASS)
    instance = dataclasses.replace(
        original, relevant_tests=[*original.relevant_tests, "org.benchsmith.ledger.LedgerSubclassTest"]
    )
    tests = java_runner.Tests.for_instance(instance, stop_early=False)
    verdicts, served = [], []
    with sandbox.leased_slot() as slot:
        runner = java_runner.InstanceRunner(
            instance, workspace, slot=slot, limits=sandbox.Limits(wall_seconds=60), logs=tmp_path
        )
        try:
            for attempt in range(10):  # until a JVM started ahead had the time to prepare in full (slow under load)
                time.sleep(3)
                verdicts.append(runner.evaluate(instance.fixed_method, f"gold-{attempt}", tests=tests))
                served = SERVED.findall((tmp_path / f"gold-{attempt}.log").read_text())
                if served:
                    break
        finally:
            runner.close()
    assert [v.status for v in verdicts] == ["plausible"] * len(verdicts), verdicts
    assert served, "no request was served by class loaders made ahead"
    defined, not_yet = served[0]
    assert int(defined) > 10 and int(not_yet) >= 1  # LedgerSubclassTest$Audited, before the candidate came
