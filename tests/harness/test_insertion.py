import dataclasses

import pytest

from benchsmith.errors import BenchsmithError
from harness.insertion import add_imports, dedup_key, is_single_method, split_host
from tests.test_schema import make_instance

HOST = "class A {\n    static class In { int q() { return 1; } }\n    int f() {\n        return 2;\n    }\n}\n"


def test_split_host_keeps_what_shares_the_method_lines():
    instance = dataclasses.replace(make_instance(), method_signature="A.In.q()", fixed_method_start_line=2, fixed_method_end_line=2)
    prefix, suffix = split_host(HOST, instance)
    assert prefix + "int q() { return 7; }" + suffix == HOST.replace("return 1", "return 7")
    assert suffix.startswith(" }\n")


def test_split_host_refuses_a_span_that_does_not_hold_the_method():
    instance = dataclasses.replace(make_instance(), method_signature="A.f()", fixed_method_start_line=3, fixed_method_end_line=4)
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


def test_add_imports_keeps_every_line_in_place():
    host = "package p;\nimport java.util.List;\nimport java.util.Map;\n\nclass A {\n}\n"
    added = add_imports(host, ["import java.util.Set;", "import java.util.List;", "import a.b.Map;"])
    assert added.splitlines()[2] == "import java.util.Map; import java.util.Set;"  # List is there, Map would clash
    assert len(added.splitlines()) == len(host.splitlines())
    assert add_imports("class A {}\n", ["import x.Y;"]) == "import x.Y; class A {}\n"
