from pathlib import Path

import pytest

from benchsmith.sources.java.comments import strip_comments

GOLDEN = Path(__file__).parent.parent / "golden" / "comments"


def test_tricky_method_matches_golden():
    source = (GOLDEN / "tricky.java").read_text()
    assert strip_comments(source) == (GOLDEN / "tricky.expected.java").read_text()


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('String s = "//";', 'String s = "//";'),
        ('String s = "/* x */";', 'String s = "/* x */";'),
        ("char c = '\\'';// c", "char c = '\\'';"),
        ("a = b; // }", "a = b;"),
        ("if (x) { /* } */ y(); }", "if (x) { y(); }"),
        ("int/**/x;", "int x;"),
        ("x = 1;\n// gone\ny = 2;", "x = 1;\ny = 2;"),
        ("x = 1;\n\ny = 2;", "x = 1;\n\ny = 2;"),  # blank lines that held no comment stay
        ('s = "a\\\\"; // c', 's = "a\\\\";'),  # an escaped backslash ends the literal
        ("/* unterminated", ""),
        ('url = "http://x"', 'url = "http://x"'),
    ],
)
def test_strip_comments_cases(source, expected):
    assert strip_comments(source) == expected


def test_stripping_is_idempotent():
    source = (GOLDEN / "tricky.java").read_text()
    once = strip_comments(source)
    assert strip_comments(once) == once
