"""The Java classbench candidate's top-level types, read as javac reads them (red team round 6).

javac ends a ``//`` comment at a lone carriage return (a line terminator, JLS 3.4); javalang's tokenizer, which the
check read the candidate's file with, does not, so a top-level class named like a test class after ``// \\r`` was
invisible to the check while javac compiled it. (It was refused then only because javac also compiled the test's
own source beside it: "duplicate class".) The check is ClassTaskRunner.check itself, on the fixture's task.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from benchsmith.runners.java.class_runner import ClassTaskRunner

GOLD = (
    "package org.example.geometry;\n\npublic class Rectangle extends Polygon {\n"
    "    public int sides() { return 4; }\n}\n"
)
TEST = "class RectangleTest { @org.junit.Test public void perimeterAndSides() { } }"


def check(code: str) -> tuple[bool, str]:
    runner = SimpleNamespace(
        task=SimpleNamespace(class_name="Rectangle"), package="org.example.geometry", allowed_types={"Rectangle"}
    )
    return ClassTaskRunner.check(runner, code)


@pytest.mark.parametrize("ending", ["\r", "\n", "\r\n", "\\u000a", "\\u000d"])
def test_a_type_after_a_line_comment_counts_wherever_javac_ends_the_comment(ending):
    assert check(GOLD) == (True, "")
    hidden = GOLD + f"// a note {ending} {TEST}\n"
    ok, reason = check(hidden)
    assert not ok and reason.startswith("declares top-level types the file does not have: RectangleTest"), reason


def test_a_type_inside_a_comment_is_no_type():
    assert check(GOLD + "// class RectangleTest { }\n/* \r class Other { } */\n") == (True, "")
