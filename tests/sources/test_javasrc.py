import pytest

from benchsmith.core.errors import JavaParseError
from benchsmith.sources.java.source import analyse_java

SOURCE = """\
package a.b;

import java.util.*;
import static java.util.Collections
    .emptyList;

/** Class doc { */
public class Shapes<X> {
    private int f = 1;

    /** ctor doc */
    @Deprecated
    public Shapes(int a) { f = a; }

    @Override @SuppressWarnings({"x", "y"})
    public
    <K> List<K> pick(final Map<String, List<K>> m, int[] xs, String... rest) throws Exception {
        Runnable r = new Runnable() { public void run() { int z = 0; } };
        class Local { void inLocal() { } }
        return null;
    }

    static class Inner { void q(char c, Map.Entry<String, X>[] es) { } }

    interface Shape { double area(); default int sides() { return 0; } }

    enum Kind { A { void g() {} }, B; void h() {} }
}
"""


def signatures(java):
    return [(u.signature, u.start_line, u.end_line) for u in java.units]


def test_units_and_spans():
    java = analyse_java(SOURCE)
    assert signatures(java) == [
        ("Shapes.Shapes(int)", 12, 13),
        ("Shapes.pick(Map, int[], String...)", 15, 21),
        ("Shapes.Inner.q(char, Map.Entry[])", 23, 23),
        ("Shapes.Shape.area()", 25, 25),
        ("Shapes.Shape.sides()", 25, 25),
        ("Shapes.Kind.A.g()", 27, 27),
        ("Shapes.Kind.h()", 27, 27),
    ]


def test_text_starts_at_annotations_and_excludes_javadoc():
    java = analyse_java(SOURCE)
    ctor = java.units[0]
    assert ctor.text(SOURCE) == "@Deprecated\npublic Shapes(int a) { f = a; }"
    inner = java.units[2]
    assert inner.text(SOURCE) == "void q(char c, Map.Entry<String, X>[] es) { }"


def test_anonymous_and_local_class_methods_belong_to_the_enclosing_method():
    java = analyse_java(SOURCE)
    assert java.unit_at(18).name == "pick"  # Runnable.run
    assert java.unit_at(19).name == "pick"  # Local.inLocal
    assert java.unit_at(9) is None  # a field


def test_code_and_import_lines():
    java = analyse_java(SOURCE)
    assert {1, 3, 4, 5} <= java.import_lines
    assert 7 not in java.code_lines and 11 not in java.code_lines  # comment-only
    assert 2 not in java.code_lines  # blank
    assert 9 in java.code_lines and 9 not in java.import_lines


def test_parse_failure_names_the_input():
    with pytest.raises(JavaParseError, match=r"Broken.java: Java does not parse"):
        analyse_java("class Broken { void f( { }", "Broken.java")


def test_text_of_a_crlf_file_has_plain_line_ends():
    crlf = SOURCE.replace("\n", "\r\n")
    java = analyse_java(crlf)
    assert java.units[1].text(crlf) == analyse_java(SOURCE).units[1].text(SOURCE)
    assert "\r" not in java.units[1].text(crlf)


def test_a_form_feed_is_not_a_line_break():
    source = "class F {\n    // page\x0c break\n    void f() {\n    }\n}\n"
    (unit,) = analyse_java(source).units
    assert (unit.start_line, unit.end_line) == (3, 4)
    assert unit.text(source) == "void f() {\n}"
