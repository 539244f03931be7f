"""Inverted twins of requested tests (benchsmith.runners.java.sentinels): copies that make the original's calls, one of
them
unable to pass."""

import os
import random
import re
import shutil
import subprocess

import pytest

from benchsmith.runners.java.sentinels import declared_tests, twin_class
from benchsmith.runners.java.toolchain import junit_classpath
from tests.conftest import FIXTURE_D4J

BUG1 = (
    FIXTURE_D4J.parent
    / "ledger"
    / "bugs"
    / "1"
    / "tests"
    / "src"
    / "test"
    / "java"
    / "org"
    / "benchsmith"
    / "ledger"
    / "Bug1Test.java"
).read_text()
JUNIT3 = """package p;

import junit.framework.TestCase;

public class OldStyleTest extends TestCase {
    public OldStyleTest(String name) { super(name); }

    protected void setUp() { }

    /** Checks {@link Widget}. */
    public void testWidth() throws Exception {
        assertEquals(3, new Widget(3).width());
    }

    public void testOther() {
        if (OldStyleTest.class == null) return;
    }
}
"""


def test_twins_make_the_originals_calls_and_only_one_can_pass():
    twins = {
        holds: twin_class(BUG1, "Bug1Test", "padsNegativeNumberToExactWidth", name, copy, holds, random.Random(1))
        for name, copy, holds in (("PadLedgerTest", "padsAgain", True), ("PadBookTest", "padsMore", False))
    }
    for holds, twin in twins.items():
        name, copy = ("PadLedgerTest", "padsAgain") if holds else ("PadBookTest", "padsMore")
        assert twin is not None and f"class {name}" in twin and "Bug1Test" not in twin
        assert "padsNegativeNumberToExactWidth" not in twin and "padsNegativeNumberWithSeveralZeros" in twin
        assert twin.count('assertEquals("-05", TextUtils.pad(-5, 3));') == 1  # the original's calls
        [(n, text)] = re.findall(r'org\.junit\.Assert\.assertEquals\((\d+), "([^"]*)"\.length\(\)\);', twin)
        assert (int(n) == len(text)) is holds
        assert re.search(rf"public void {copy}\(\)", twin) and twin.count("@Test") == 2


def test_junit3_tests_are_found_and_twinned_with_their_constructor_renamed():
    assert declared_tests(JUNIT3, "OldStyleTest") == ["testWidth", "testOther"]
    assert declared_tests(BUG1, "Bug1Test") == ["padsNegativeNumberToExactWidth", "padsNegativeNumberWithSeveralZeros"]
    twin = twin_class(JUNIT3, "OldStyleTest", "testWidth", "WidthTest", "testWidthAgain", True, random.Random(2))
    assert "public WidthTest(String name)" in twin and "/** Checks {@link Widget}. */" in twin
    assert twin.count("new Widget(3).width()") == 1 and "testWidth()" not in twin
    assert twin_class(JUNIT3, "OldStyleTest", "testInherited", "X", "a", True, random.Random(3)) is None


STATEFUL = """package p;

import org.junit.Assert;
import org.junit.Test;

public class EventsTest {
    /** Like Math-44's EventStateTest: the last time an event fired, kept for the class's life. */
    private static double lastTime = Double.NEGATIVE_INFINITY;

    @Test
    public void firesForwardOnly() {
        for (double t = 0; t < 3; t++) {
            Assert.assertTrue("going backward in time! (" + t + " < " + lastTime + ")", t >= lastTime);
            lastTime = t;
        }
    }
}
"""


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK")
@pytest.mark.parametrize("passing_first", [True, False])
def test_a_pair_of_a_test_with_static_state_behaves_in_either_order(tmp_path, passing_first):
    """Each copy has a class of its own, so neither sees the static state the other leaves; run in one class loader in
    either order (the harness places them at random), the passing copy passes and the failing one fails."""
    source = tmp_path / "src" / "p"
    source.mkdir(parents=True)
    pair = {"PassingTest": ("again", True), "FailingTest": ("more", False)}
    for name, (copy, holds) in pair.items():
        text = twin_class(STATEFUL, "EventsTest", "firesForwardOnly", name, copy, holds, random.Random(4))
        (source / f"{name}.java").write_text(text)
    classpath = os.pathsep.join(map(str, junit_classpath()))
    subprocess.run(
        ["javac", "-d", str(tmp_path / "out"), "-cp", classpath, *map(str, source.glob("*.java"))], check=True
    )
    order = ["p.PassingTest", "p.FailingTest"] if passing_first else ["p.FailingTest", "p.PassingTest"]
    run = subprocess.run(
        ["java", "-cp", f"{tmp_path / 'out'}{os.pathsep}{classpath}", "org.junit.runner.JUnitCore", *order],
        capture_output=True,
        text=True,
    )
    failures = re.findall(r"^\d+\) (\w+)\(p\.(\w+)\)", run.stdout, re.M)
    assert failures == [("more", "FailingTest")], run.stdout
    assert "going backward" not in run.stdout
