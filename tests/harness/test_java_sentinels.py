"""Inverted twins of requested tests (harness.java.sentinels): copies that make the original's calls, one of them
unable to pass."""

import random
import re

from harness.java.sentinels import declared_tests, twin_class
from tests.conftest import FIXTURE_D4J

BUG1 = (FIXTURE_D4J.parent / "ledger" / "bugs" / "1" / "tests" / "src" / "test" / "java" / "org" / "benchsmith" / "ledger"
        / "Bug1Test.java").read_text()  # fmt: skip
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
    twin = twin_class(BUG1, "Bug1Test", "padsNegativeNumberToExactWidth", "PadLedgerTest", ["padsAgain", "padsMore"],
                      random.Random(1))  # fmt: skip
    assert twin is not None and "class PadLedgerTest" in twin and "Bug1Test" not in twin
    assert "padsNegativeNumberToExactWidth" not in twin and "padsNegativeNumberWithSeveralZeros" in twin
    assert twin.count('assertEquals("-05", TextUtils.pad(-5, 3));') == 2  # both copies, same calls
    checks = re.findall(r'org\.junit\.Assert\.assertEquals\((\d+), "([^"]*)"\.length\(\)\);', twin)
    assert sorted(int(n) == len(text) for n, text in checks) == [False, True]
    bodies = dict(re.findall(r"public void (padsAgain|padsMore)\(\) \{(.*?)\n    \}", twin, re.S))
    holds = {name: any(f'assertEquals({len(t)}, "{t}"' in body for _, t in checks) for name, body in bodies.items()}
    assert holds == {"padsAgain": True, "padsMore": False}  # names[0] is the copy that passes
    assert twin.count("@Test") == 3


def test_junit3_tests_are_found_and_twinned_with_their_constructor_renamed():
    assert declared_tests(JUNIT3, "OldStyleTest") == ["testWidth", "testOther"]
    assert declared_tests(BUG1, "Bug1Test") == ["padsNegativeNumberToExactWidth", "padsNegativeNumberWithSeveralZeros"]
    twin = twin_class(JUNIT3, "OldStyleTest", "testWidth", "WidthTest", ["testWidthAgain", "testWidthMore"], random.Random(2))
    assert "public WidthTest(String name)" in twin and "/** Checks {@link Widget}. */" in twin
    assert twin.count("new Widget(3).width()") == 2 and "testWidth()" not in twin
    assert twin_class(JUNIT3, "OldStyleTest", "testInherited", "X", ["a", "b"], random.Random(3)) is None
