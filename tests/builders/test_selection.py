"""The lenient rule on small made-up classes: what it keeps besides the one method, and what it still rejects."""

import difflib

import pytest

from benchsmith.builders.selection import lenient_decision
from benchsmith.builders.single_method import MULTI_METHOD, code_changes, is_single_method_fix
from benchsmith.sources.java.source import analyse_java
from benchsmith.sources.patches import parse_patch

FIXED = """package p;

class A {
    private static final int LIMIT = 10;
    private int count;

    int size() {
        return Math.min(count, LIMIT);
    }

    int other() {
        return 1;
    }

    private static int clamp(int value) {
        return Math.max(0, value);
    }
}
"""


def decide(buggy: str):
    """The strict decision and the lenient one for a fix from *buggy* to FIXED (Defects4J patches go fixed → buggy)."""
    diff = "".join(difflib.unified_diff(FIXED.splitlines(True), buggy.splitlines(True), "a/A.java", "b/A.java"))
    patches = parse_patch(diff, "made-up")
    fixed, buggy_files = {"A.java": analyse_java(FIXED)}, {"A.java": analyse_java(buggy)}
    strict = is_single_method_fix(patches, fixed, buggy_files)
    changes = code_changes(patches, fixed, buggy_files)
    return strict, lenient_decision(changes, "A.java", fixed, buggy_files, MULTI_METHOD)


def test_a_field_and_an_added_helper_are_recorded_as_extra_changes():
    buggy = FIXED.replace("LIMIT = 10", "LIMIT = 100").replace("Math.min(count, LIMIT)", "count")
    buggy = buggy.replace(
        """    private static int clamp(int value) {
        return Math.max(0, value);
    }
""",
        "",
    )
    strict, lenient = decide(buggy)
    assert not strict.accepted
    assert lenient.identity == ("A", "size", ())
    assert [(e.kind, e.name, e.fixed_lines, e.buggy_lines) for e in lenient.extra_changes] == [
        ("field", "A.LIMIT", [4], [4]),
        ("method added", "A.clamp(int)", [15, 16, 17], []),
    ]


def test_a_removed_field_is_numbered_in_the_buggy_file():
    buggy = FIXED.replace("    private int count;\n", "    private int count;\n    private int stale;\n")
    buggy = buggy.replace("Math.min(count, LIMIT)", "count")
    _, lenient = decide(buggy)
    assert [(e.kind, e.name, e.fixed_lines, e.buggy_lines) for e in lenient.extra_changes] == [
        ("field", "A.stale", [], [6])
    ]


@pytest.mark.parametrize(
    "buggy, reason",
    [
        (FIXED.replace("Math.min(count, LIMIT)", "count").replace("return 1;", "return 2;"), MULTI_METHOD),
        (FIXED.replace("LIMIT = 10", "LIMIT = 100"), ""),  # no method changes: strict's reason stands
    ],
)
def test_lenient_still_wants_exactly_one_existing_method(buggy, reason):
    strict, lenient = decide(buggy)
    assert not strict.accepted and lenient.identity == () and lenient.reason == reason
