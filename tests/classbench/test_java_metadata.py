"""Java DETAILED / SKETCHY metadata (RepoClassBench paper, Table 14) against goldens, and the template's reading of
it."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchsmith.builders.classbench.java.metadata import java_metadata
from benchsmith.core.errors import BenchsmithError
from benchsmith.generation.models.template import describe, parse_metadata

JAVA = Path(__file__).parent.parent / "golden" / "classbench" / "java"
CASES = [
    ("Inventory.java", "Inventory"),
    ("Inventory.java", "Line"),
    ("Shapes.java", "Shape"),
    ("Shapes.java", "Color"),
    ("Shapes.java", "Drawn"),
]


@pytest.mark.parametrize(("source", "class_name"), CASES)
def test_metadata_matches_golden(source, class_name):
    detailed, sketchy = java_metadata((JAVA / source).read_text(), class_name, f"src/main/java/org/example/{source}")
    assert detailed == (JAVA / f"{class_name}.detailed.txt").read_text()
    assert sketchy == (JAVA / f"{class_name}.sketchy.txt").read_text()


def test_sketchy_is_detailed_without_the_bodies():
    detailed, sketchy = java_metadata((JAVA / "Inventory.java").read_text(), "Inventory", "Inventory.java")
    kept = [line for line in detailed.split("</function details>") if "Function body:" in line]
    assert len(kept) == 6 and "Function body:" not in sketchy
    assert "import" not in detailed  # Table 14: no import statements
    # the overloads and both constructors are all there, each with its own signature
    assert detailed.count("Function fqdn: org.example.stock.Inventory.add\n") == 2
    assert (
        "Function signature: public Inventory()\n" in sketchy
        and "Function signature: public Inventory(String label)\n" in sketchy
    )
    # the static initialiser and the nested class are neither members nor methods
    assert "setProperty" not in detailed and "Function fqdn: org.example.stock.Inventory.name" not in detailed


def test_text_is_sliced_as_written():
    detailed, _ = java_metadata((JAVA / "Inventory.java").read_text(), "Inventory", "Inventory.java")
    assert (
        "Function body: public <K extends T> List<K> matching(Map<String, ? super K> filter,\n"
        "                                      int... limits) {\n" in detailed
    )
    assert 'Decorators: @Override @SuppressWarnings({"rawtypes", "unused"})\n' in detailed
    assert '    @Deprecated protected String label = "stock", owner;\n' in detailed


def test_errors_name_the_input():
    with pytest.raises(BenchsmithError, match=r"^Thing.java: declares no class, interface or enum named 'Other'"):
        java_metadata("class Thing { }", "Other", "Thing.java")
    with pytest.raises(BenchsmithError, match=r"^Broken.java: not Java that javalang 0.13 parses"):
        java_metadata("class Broken { void f( }", "Broken", "Broken.java")


def test_the_template_describes_java_metadata():
    detailed = describe(parse_metadata((JAVA / "Inventory.detailed.txt").read_text(), "x"), True, "Inventory")
    sketchy = describe(parse_metadata((JAVA / "Inventory.sketchy.txt").read_text(), "x"), False, "Inventory")
    for text in (detailed, sketchy):
        assert (
            "`Inventory` is a Java class defined in `src/main/java/org/example/Inventory.java` (package "
            "`org.example.stock`)." in text
        )
        assert "It extends `AbstractStore<T>` and implements `Countable` and `Iterable<Map.Entry<String, T>>`." in text
        assert "It declares 2 constructors and 4 methods." in text
        assert "`label` (of type `String`" in text and "`owner` (of type `String`)" in text
    assert "In its body it calls `items.size` and `items.add`; it may throw `IllegalStateException`." in detailed
    assert "initialised to `1_000`" in detailed and "initialised" not in sketchy and "In its body" not in sketchy
    enum = describe(parse_metadata((JAVA / "Color.sketchy.txt").read_text(), "x"), False, "Color")
    assert "is a Java enum" in enum and "Its constants are `RED`, `GREEN` and `BLUE`." in enum
    interface = describe(parse_metadata((JAVA / "Shape.sketchy.txt").read_text(), "x"), False, "Shape")
    assert "The abstract method `area` (public)" in interface and "Its static field is `UNIT`" in interface
    drawn = describe(parse_metadata((JAVA / "Drawn.detailed.txt").read_text(), "x"), True, "Drawn")
    assert (
        "`Drawn` is a Java annotation type" in drawn
        and "`layers` (public) takes no arguments and returns `int[]`" in drawn
    )
