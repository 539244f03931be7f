"""A relevant class with nothing to run (an @Ignore'd nested class Defects4J lists, or one whose every test is
@Ignore'd or assumes what does not hold) asks for nothing: its reference run skips every test, so no candidate is
expected to pass it."""

import dataclasses

import pytest

from tests.harness.conftest import statuses_on_both_paths, workspace_with_test_class

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox

IGNORED = """package org.benchsmith.ledger;
import org.junit.Ignore;
import org.junit.Test;
public class IgnoredTest {
    @Test @Ignore public void manual() { throw new AssertionError("never run"); }
    @Test public void elsewhere() { org.junit.Assume.assumeTrue(false); }  // skipped here, as under Defects4J
    @Ignore("don't run this code in the test runner")
    public static class Never { @Test public void no() { throw new AssertionError("never run"); } }
}
"""


def test_a_relevant_class_with_nothing_to_run_asks_for_nothing(ledger_instances, ledger_workspace, tmp_path):
    workspace = workspace_with_test_class(ledger_workspace("Ledger-1"), IGNORED)
    instance = dataclasses.replace(
        ledger_instances["Ledger-1"],
        relevant_tests=[
            *ledger_instances["Ledger-1"].relevant_tests,
            "org.benchsmith.ledger.IgnoredTest",
            "org.benchsmith.ledger.IgnoredTest$Never",
        ],
    )
    statuses = statuses_on_both_paths(
        instance, workspace, tmp_path / "logs", {"gold": instance.fixed_method, "buggy": instance.buggy_method}
    )
    # the gold passes; the trigger test still judges the buggy method
    assert statuses == {
        "gold@fast": "plausible",
        "buggy@fast": "wrong",
        "gold@plain": "plausible",
        "buggy@plain": "wrong",
    }


ONE_TEST = """package org.benchsmith.ledger;
public class OneBrokenTest {
    @org.junit.Test public void broken() { throw new AssertionError("known broken"); }
}
"""


def test_a_relevant_class_whose_every_test_is_excluded_asks_for_nothing(ledger_instances, ledger_workspace, tmp_path):
    """Defects4J's failing_tests can list every test of a class (Mockito's ClassCacheVersusClassReloadingTest): JUnit
    then reports a failure of its Filter's, which is not a test of the class."""
    workspace = workspace_with_test_class(ledger_workspace("Ledger-1"), ONE_TEST)
    instance = dataclasses.replace(
        ledger_instances["Ledger-1"],
        relevant_tests=[*ledger_instances["Ledger-1"].relevant_tests, "org.benchsmith.ledger.OneBrokenTest"],
    )
    excluded = ("org.benchsmith.ledger.OneBrokenTest::broken",)
    statuses = statuses_on_both_paths(instance, workspace, tmp_path / "logs", {"gold": instance.fixed_method}, excluded)
    assert statuses == {"gold@fast": "plausible", "gold@plain": "plausible"}
