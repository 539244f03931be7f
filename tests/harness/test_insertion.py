import dataclasses
import shutil
import subprocess

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.java.insertion import _WRAPPER, add_imports, dedup_key, is_single_method, javac_text, split_host
from tests.helpers.records import make_instance

HOST = "class A {\n    static class In { int q() { return 1; } }\n    int f() {\n        return 2;\n    }\n}\n"


def test_split_host_keeps_what_shares_the_method_lines():
    instance = dataclasses.replace(
        make_instance(), method_signature="A.In.q()", fixed_method_start_line=2, fixed_method_end_line=2
    )
    prefix, suffix = split_host(HOST, instance)
    assert prefix + "int q() { return 7; }" + suffix == HOST.replace("return 1", "return 7")
    assert suffix.startswith(" }\n")


def test_split_host_refuses_a_span_that_does_not_hold_the_method():
    instance = dataclasses.replace(
        make_instance(), method_signature="A.f()", fixed_method_start_line=3, fixed_method_end_line=4
    )
    with pytest.raises(BenchsmithError, match=r"A.f\(\) is not at lines 3-4"):
        split_host(HOST, instance)


@pytest.mark.parametrize(
    ("code", "ok", "reason"),
    [
        ("int f() { return 1; }", True, ""),
        ("@Override\npublic A(int x) { super(); }", True, ""),
        ("int f() { return 1; }\nint g() { return 2; }", False, "found 2 members"),
        ("int x = 1;", False, "found a FieldDeclaration"),
        ("return 1;", False, "does not parse"),
        ("", False, "found 0 members"),
        ("abstract int f();", False, "no body"),
        ("Here is the fix:\nint f() { return 1; }", False, "does not parse"),
    ],
)
def test_is_single_method(code, ok, reason):
    answer, why = is_single_method(code)
    assert answer is ok
    assert reason in why


def test_dedup_ignores_comments_and_white_space_only():
    base = dedup_key("int f() { return a + b; }")
    assert dedup_key("int f() {\n  // sum\n  return a   +b; /* ok */ }") == base
    assert dedup_key("int f() { return b + a; }") != base
    assert dedup_key('int f() { return "a  b"; }') != dedup_key('int f() { return "a b"; }')


# Code javac reads but javalang's own tokenizer hid in a comment (it ends `//` only at "\n"), or put outside the
# wrapper class. Each is more than one method to javac.
ONE = "int f() { return 1; }"
HIDDEN = {
    "raw CR": ONE + " // note \r int g() { return 2; }",
    "escaped CR": ONE + " // note \\u000d int g() { return 2; }",
    "escaped CR, many u, upper case": ONE + " // note \\uuuu000D int g() { return 2; }",
    "raw CR, static initialiser": ONE + " // note \r static { System.exit(0); }",
    "escaped CR, static initialiser": ONE + " // note \\u000d static { System.exit(0); }",
    "escaped star closes a block comment": ONE + " /* \\u002a/ int g() { return 2; } /* */",
    "escaped slashes open no comment after an escaped CR": ONE + " // \\u000d\\u002f\\u002a */ int g() { return 2; }",
    "a type after the wrapper's end": ONE + " } class Extra { static { System.exit(0); } ",
}


def javac_sees(tmp_path, code: str) -> list[str]:
    """The members and classes javac makes of *code* in the wrapper is_single_method uses (javap -p)."""
    (tmp_path / "BenchsmithCandidate.java").write_text(_WRAPPER % code, encoding="utf-8")
    subprocess.run(
        ["javac", "-d", str(tmp_path / "out"), str(tmp_path / "BenchsmithCandidate.java")],
        check=True,
        capture_output=True,
    )
    classes = sorted(str(p) for p in (tmp_path / "out").glob("*.class"))
    shown = subprocess.run(["javap", "-p", *classes], check=True, capture_output=True, text=True).stdout
    return [
        line.strip()
        for line in shown.splitlines()
        if line.startswith(("class", "  ")) and "BenchsmithCandidate()" not in line
    ]


@pytest.mark.parametrize("code", HIDDEN.values(), ids=HIDDEN.keys())
def test_code_hidden_from_javalang_is_not_one_method(code):
    answer, why = is_single_method(code)
    assert answer is False, why
    assert "expected one method declaration" in why


@pytest.mark.java
@pytest.mark.skipif(shutil.which("javac") is None or shutil.which("javap") is None, reason="needs a JDK")
@pytest.mark.parametrize("code", HIDDEN.values(), ids=HIDDEN.keys())
def test_javac_sees_the_hidden_code(tmp_path, code):
    seen = javac_sees(tmp_path, code)
    assert any(m in seen for m in ("int g();", "static {};", "class Extra {")), seen


@pytest.mark.java
@pytest.mark.skipif(shutil.which("javac") is None or shutil.which("javap") is None, reason="needs a JDK")
def test_an_odd_backslash_escapes_no_line_end_for_javac_either(tmp_path):
    code = ONE + " // note \\\\u000d int g() { return 2; }"  # "\\u000d": the second backslash is not eligible
    assert is_single_method(code) == (True, "")
    assert javac_sees(tmp_path, code) == ["class BenchsmithCandidate {", "int f();"]


@pytest.mark.parametrize(
    ("raw", "seen"),
    [
        ("a\\u0041", "aA"),
        ("a\\uuu0041", "aA"),
        ("\\\\u0041", "\\\\u0041"),  # odd number of backslashes before the u: no escape
        ("\\\\\\u0041", "\\\\A"),
        ("\\u005cu0041", "\\u0041"),  # an escaped backslash begins no escape ...
        ("\\u005c\\u0041", "\\A"),  # ... nor stops the raw one after it (javac 17's UnicodeReader)
        ("a\r\nb\rc\\u000dd\\u000d\\u000ae", "a\nb\nc\nd\ne"),
        ("\\uD83D\\uDE00", "\U0001f600"),
    ],
)
def test_javac_text_translates_as_javac_does(raw, seen):
    assert javac_text(raw) == seen


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        (ONE + " // \\u00zz", "illegal unicode escape"),  # javac: illegal unicode escape, even in a comment
        (ONE + " // \\u+00a int g() { return 2; }", "illegal unicode escape"),  # javalang's int() took "+00a" as a LF
        (
            ONE + " // \\u\uff10\uff10\uff10d int g() { return 2; }",
            "illegal unicode escape",
        ),  # javac: full-width digits
        ("int\u00a0f() { return 1; }", "U+00A0 between tokens is not white space to javac"),
        ("int f() {\x0b return 1; }", "U+000B between tokens"),
        ("char f() { return '\\u000a'; }", "a line terminator inside the literal"),
    ],
)
def test_text_javac_does_not_read_as_benchsmith_does_is_refused(code, reason):
    answer, why = is_single_method(code)
    assert answer is False
    assert reason in why, why


def test_dedup_key_separates_what_javac_reads_differently():
    visible = "int f() {\n  int x = 1; // note\n  x = 2;\n  return x;\n}"
    commented = "int f() {\n  int x = 1; // note x = 2;\n  return x;\n}"
    for line_end in ("\r", "\\u000d", "\\uu000D"):
        hidden = visible.replace("// note\n", "// note" + line_end, 1)
        assert dedup_key(hidden) == dedup_key(visible), line_end  # javac reads the same program
        assert dedup_key(hidden) != dedup_key(commented), line_end
    # javalang cannot read "\s" (Java 15); the old fallback collapsed white space, also inside the literal
    assert dedup_key('String f() { return "a  b\\s"; }') != dedup_key('String f() { return "a b\\s"; }')
    assert dedup_key('String f() { return "a b\\s"; }') == dedup_key('String f() { return "a b\\s"; }')


def test_dedup_key_keeps_honest_reformatting_together():
    base = dedup_key("int f(int a) {\n    return a + 1; // one more\n}\n")
    assert dedup_key("int f(int a)\r\n{\r\n\treturn a+1;\r\n}") == base
    assert dedup_key("/** Adds one. */ int f(int a) { /* a */ return a + 1; }") == base
    assert dedup_key("int f(int \\u0061) { return a + 1; }") == base  # javac reads \u0061 as a
    assert dedup_key("int f(int a) { return a + 1L; }") != base


def test_add_imports_keeps_every_line_in_place():
    host = "package p;\nimport java.util.List;\nimport java.util.Map;\n\nclass A {\n}\n"
    added = add_imports(host, ["import java.util.Set;", "import java.util.List;", "import a.b.Map;"])
    assert added.splitlines()[2] == "import java.util.Map; import java.util.Set;"  # List is there, Map would clash
    assert len(added.splitlines()) == len(host.splitlines())
    assert add_imports("class A {}\n", ["import x.Y;"]) == "import x.Y; class A {}\n"
