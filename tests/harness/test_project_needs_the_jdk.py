"""What the project's own code needs of the JDK, its tests get on both paths, as on Defects4J's Java 8.

A project class that reaches ``sun.misc.Unsafe`` by reflection (Gson's UnsafeAllocator, objenesis:
``Class.forName("sun.misc.Unsafe")``, no class reference to it) keeps ``jdk.unsupported`` in the test JVMs, and the
candidate's own class still does not reach it. Dates are written with Java 8's locale data (Gson's
DefaultDateTypeAdapterTest expects "Jan 1, 1970 12:00:00 AM", which CLDR writes with a comma)."""

import dataclasses

import pytest

from benchsmith.runners.java import method_runner
from benchsmith.runners.java.defects4j_workspace import java_public_view
from benchsmith.runners.java.jvm_modules import modules_named
from benchsmith.runners.sandbox import jail as sandbox
from tests.harness.conftest import workspace_with_test_class
from tests.harness.test_redteam_java import if_escaped
from tests.helpers import java_attacks as hack

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox

NEEDS_THE_JDK = """package org.benchsmith.ledger;
import java.text.DateFormat;
import java.util.Date;
import java.util.Locale;
import java.util.TimeZone;
public class NeedsTheJdkTest {
    static final class NoDefaultConstructor {
        final int value;
        NoDefaultConstructor(int value) { this.value = value; }
    }

    /** As Gson's UnsafeAllocator makes an object of a class without a no-argument constructor. */
    @org.junit.Test public void allocatesWithoutAConstructor() throws Exception {
        Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
        java.lang.reflect.Field field = unsafeClass.getDeclaredField("theUnsafe");
        field.setAccessible(true);
        Object unsafe = field.get(null);
        Object made = unsafeClass.getMethod("allocateInstance", Class.class).invoke(unsafe, NoDefaultConstructor.class);
        org.junit.Assert.assertTrue(made instanceof NoDefaultConstructor);
    }

    @org.junit.Test public void writesDatesAsJava8Does() {
        DateFormat format = DateFormat.getDateTimeInstance(DateFormat.MEDIUM, DateFormat.MEDIUM, Locale.US);
        format.setTimeZone(TimeZone.getTimeZone("UTC"));
        org.junit.Assert.assertEquals("Jan 1, 1970 12:00:00 AM", format.format(new Date(0)));
    }
}
"""
TEST_CLASS = "org.benchsmith.ledger.NeedsTheJdkTest"


def test_a_project_class_that_reaches_unsafe_by_name_keeps_it_and_the_candidate_still_does_not(
    ledger_instances, ledger_workspace, tmp_path
):
    original = ledger_instances["Ledger-1"]
    plain_ledger = ledger_workspace("Ledger-1")
    view = java_public_view(plain_ledger, original.file_path)
    # Ledger's own classes name none of the modules: its test JVMs leave jdk.unsupported out, as before
    assert "jdk.unsupported" not in modules_named([view.classes, view.test_classes])
    workspace = workspace_with_test_class(plain_ledger, NEEDS_THE_JDK)
    instance = dataclasses.replace(original, relevant_tests=[*original.relevant_tests, TEST_CLASS])
    codes = {
        "gold": instance.fixed_method,
        # right only when the candidate's own class gets at Unsafe's instance: confined, it does not
        "own unsafe": if_escaped(hack.UNSAFE),
    }
    everything = method_runner.Tests.for_instance(instance, stop_early=False)
    statuses, reasons = {}, {}
    with sandbox.leased_slot() as slot:
        runner = method_runner.InstanceRunner(
            instance, workspace, slot=slot, limits=sandbox.Limits(wall_seconds=60), logs=tmp_path
        )
        try:
            for fast in (True, False):
                for name, code in codes.items():
                    label = f"{name}@{'fast' if fast else 'plain'}"
                    verdict = runner.evaluate(code, label, tests=everything, fast=fast)
                    statuses[label], reasons[label] = verdict.status, verdict.reason
            left_out = runner.modules_left_out
        finally:
            runner.close()
    assert statuses == {
        "gold@fast": "plausible",
        "gold@plain": "plausible",
        "own unsafe@fast": "wrong",
        "own unsafe@plain": "wrong",
    }, reasons
    if runner.runtime.version >= 9:
        assert "jdk.unsupported" not in left_out
    # wrong for its own answer, a trigger test's, not for the project's test of Unsafe
    assert all(TEST_CLASS not in reasons[f"own unsafe@{path}"] for path in ("fast", "plain")), reasons
