"""Extraction of one Java method / one Python class from chatty model answers."""

from __future__ import annotations

import ast

import pytest

from benchsmith.generation.prompts.extraction import extract_java_method, extract_python_class
from benchsmith.runners.java.insertion import is_single_method
from benchsmith.runners.python.class_runner import defines_class

BUGGY = "public int scale(int value, int factor) {\n    return value + factor;\n}"
FIXED = "public int scale(int value, int factor) {\n    return value * factor;\n}"


def java(answer: str, name: str = "scale", buggy: str = BUGGY):
    extraction = extract_java_method(answer, name, buggy)
    if extraction.found:
        assert is_single_method(extraction.code) == (True, ""), extraction.code
    return extraction


def test_labelled_fence_with_prose_and_explanation():
    answer = (
        f"Sure! Here is the fixed method:\n\n```java\n{FIXED}\n```\n\nExplanation: the factor must multiply, not add."
    )
    extraction = java(answer)
    assert extraction.found and extraction.code == FIXED
    assert extraction.reason == "method scale from fenced block 1 of 1"


def test_unlabelled_fence():
    assert java(f"```\n{FIXED}\n```").code == FIXED


def test_several_fences_pick_the_one_with_the_method():
    answer = (
        f"The buggy line is:\n```java\nreturn value + factor;\n```\nThe fix:\n```java\n{FIXED}\n```\n"
        "Test it with:\n```java\nassertEquals(6, calc.scale(2, 3));\n```"
    )
    extraction = java(answer)
    assert extraction.code == FIXED and "fenced block 2 of 3" in extraction.reason


def test_original_then_fixed_takes_the_last():
    answer = f"Original:\n```java\n{BUGGY}\n```\nFixed:\n```java\n{FIXED}\n```"
    extraction = java(answer)
    assert extraction.code == FIXED and "took the last" in extraction.reason


def test_prose_without_fences_and_a_brace_in_a_string_and_apostrophes_after():
    method = 'public int scale(int value, int factor) {\n    String s = "}"; // don\'t cut here\n    return value * factor;\n}'
    answer = f"Here's the corrected version:\n\n{method}\n\nExplanation: it's now a product. Don't {{worry}}; it works."
    assert java(answer).code == method


def test_whole_class_takes_the_overload_with_the_buggy_methods_parameters():
    answer = (
        "```java\npackage org.example;\n\nimport java.util.List;\n\npublic class Calculator "
        "{\n    private int base = 1;\n\n"
        "    public int scale(long value, long factor) {\n        return 0;\n    }\n\n"
        "    /** Scales. */\n    @Deprecated\n    public int scale(int value, int factor) "
        "{\n        return value * factor * base;\n    }\n\n"
        "    public int scale(List<Integer> values, int factor) {\n        return -1;\n    }\n}\n```"
    )
    extraction = java(answer)
    assert (
        extraction.code
        == "@Deprecated\npublic int scale(int value, int factor) {\n    return value * factor * base;\n}"
    )
    assert "with matching parameters" in extraction.reason


def test_generic_parameters_match_by_their_raw_type():
    buggy = "public int count(List<String> items) {\n    return 0;\n}"
    answer = (
        "```java\nclass A {\n  int count(Set<String> s) { return 1; }\n"
        "  public int count(List<String> items) { return items.size(); }\n  int count(String s) { return 2; }\n}\n```"
    )
    assert "items.size()" in java(answer, "count", buggy).code


def test_windows_newlines():
    answer = "Fixed:\r\n```java\r\n" + FIXED.replace("\n", "\r\n") + "\r\n```\r\nDone.\r\n"
    extraction = java(answer)
    assert extraction.code == FIXED and "\r" not in extraction.code


def test_header_split_over_two_lines_in_prose():
    method = "public static <T> java.util.List<T>\n    scale(int value, int factor) {\n    return null;\n}"
    answer = f"Try this:\n{method}\nThat should do."
    assert java(answer).code == method


def test_annotation_and_javadoc_in_prose():
    answer = f"/**\n * Multiplies.\n */\n@Override\n{FIXED}\nThis overrides the parent's."
    assert java(answer).code == "@Override\n" + FIXED


def test_unclosed_fence():
    assert java(f"```java\n{FIXED}\n").code == FIXED


def test_constructor():
    buggy = "public Money(long cents) {\n    this.cents = -cents;\n}"
    answer = "```java\npublic class Money {\n    private final long cents;\n    public Money(long cents) {\n        this.cents = cents;\n    }\n}\n```"
    assert java(answer, "Money", buggy).code == "public Money(long cents) {\n    this.cents = cents;\n}"


def test_a_renamed_method_is_taken_when_it_is_the_only_one():
    extraction = java("```java\npublic int multiply(int value, int factor) {\n    return value * factor;\n}\n```")
    assert extraction.found and "no method named scale" in extraction.reason and "multiply" in extraction.code


def test_other_methods_only_is_not_found():
    answer = "```java\nint a() { return 1; }\nint b() { return 2; }\n```"
    extraction = extract_java_method(answer, "scale", BUGGY)
    assert not extraction.found and extraction.code == answer.strip() and "(a, b)" in extraction.reason


@pytest.mark.parametrize(
    "answer", ["I'm sorry, I can't help with that.", "", "  \n\n  ", "```java\nreturn value * factor;\n```"]
)
def test_no_code_returns_the_answer_stripped(answer):
    extraction = extract_java_method(answer, "scale", BUGGY)
    assert not extraction.found and extraction.code == answer.strip()
    assert extraction.reason == "no Java method declaration in the answer"
    assert is_single_method(extraction.code)[0] is False  # the harness calls it uncompilable


def test_method_that_does_not_parse_is_not_cut_into_shape():
    answer = "```java\npublic int scale(int value, int factor) {\n    return value * ;\n}\n```"
    extraction = extract_java_method(answer, "scale", BUGGY)
    assert not extraction.found and extraction.code == answer


# ---------------------------------------------------------------- Python

CLASS = (
    "class Polygon(Shape):\n    sides_minimum = 3\n\n    def area(self) -> float:\n        return shoelace(self.points)"
)


def python(answer: str, name: str = "Polygon"):
    extraction = extract_python_class(answer, name)
    if extraction.found:
        assert defines_class(extraction.code, name) == (True, "")
    return extraction


def test_python_fence_with_imports_and_prose():
    answer = f"Here is the class:\n\n```python\nimport math\nfrom geometry.base import Shape, shoelace\n\n{CLASS}\n```\n\nIt computes areas."
    extraction = python(answer)
    assert extraction.code == f"import math\nfrom geometry.base import Shape, shoelace\n\n{CLASS}"
    assert extraction.reason == "class Polygon from fenced block 1 of 1 with 2 import lines"


def test_python_plain_text_after_an_opened_fence_prompt():
    # The basic prompt ends with an opened ```python fence: answers often start with code and close the fence.
    answer = (
        "from typing import (\n    List,\n    Optional,\n)\n\n@dataclass(frozen=True)\n"
        + CLASS
        + "\n```\n\nThis class describes a polygon."
    )
    extraction = python(answer)
    assert extraction.code == "from typing import (\n    List,\n    Optional,\n)\n\n@dataclass(frozen=True)\n" + CLASS


def test_python_prose_without_fences():
    answer = f"Sure. You'll need these:\nimport math\n\n{CLASS}\n\nNote that area() uses the shoelace formula."
    assert python(answer).code == f"import math\n\n{CLASS}"


def test_python_two_classes_keeps_the_named_one_and_says_what_was_left_out():
    answer = f"```python\nimport math\n\nclass Helper:\n    pass\n\n{CLASS}\n\n\ndef unused():\n    pass\n```"
    extraction = python(answer)
    assert extraction.code == f"import math\n\n{CLASS}"
    assert "left out: class Helper, def unused" in extraction.reason


def test_python_imports_in_a_fence_of_their_own_and_future_imports_dropped():
    answer = f"First:\n```python\nimport math\n```\nThen:\n```python\nfrom __future__ import annotations\nimport os\n\n{CLASS}\n```"
    extraction = python(answer)
    assert extraction.code == f"import math\nimport os\n\n{CLASS}"
    assert "__future__" in extraction.reason


def test_python_class_in_crlf_answer_with_windows_fence():
    answer = "```python\r\nimport math\r\n\r\n" + CLASS.replace("\n", "\r\n") + "\r\n```\r\n"
    assert python(answer).code == f"import math\n\n{CLASS}"


def test_python_indented_class_in_a_list_item():
    indented = "\n".join("    " + line if line else "" for line in CLASS.split("\n"))
    answer = f"1. Define it:\n\n    import math\n\n{indented}\n\n2. Use it."
    assert python(answer).code == f"import math\n\n{CLASS}"


def test_python_no_such_class():
    answer = "```python\nclass Square:\n    pass\n```"
    extraction = extract_python_class(answer, "Polygon")
    assert not extraction.found and extraction.code == answer and extraction.reason == "no class Polygon in the answer"


def test_python_later_fence_wins_and_the_code_parses():
    answer = f"Draft:\n```python\nclass Polygon:\n    pass\n```\nFinal:\n```python\n{CLASS}\n```"
    extraction = python(answer)
    assert extraction.code == CLASS and "fenced block 2 of 2" in extraction.reason
    ast.parse(extraction.code)
