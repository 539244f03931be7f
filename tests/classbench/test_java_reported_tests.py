"""Java classbench takes its tests from what the suite run reported (builders/classbench/java/suite_tests.py): the
mapping of reported names to source bodies on sources written here, then a real build (javac, JUnit 3, 4 and 5 on
the JUnit Platform, sandboxed) of tests/helpers/java_suites_repo.py, where reading source patterns found none of the
tests through a base class, a suite class, a contract interface or a meta-annotation."""

import json
from pathlib import Path

import pytest

from benchsmith.builders.classbench.java.suite_tests import (
    NO_CLASS_SOURCE,
    NOT_DECLARED,
    UNATTRIBUTED,
    UNPARSED,
    index_sources,
    map_reported,
)
from benchsmith.core.schema import ClassBenchTask, read_records
from tests.helpers.cli import run_cli
from tests.helpers.java_suites_repo import write_suites_repo

SOURCES = {
    "src/test/java/p/Base.java": """package p;
import junit.framework.TestCase;
public abstract class Base extends TestCase {
    protected Helper helper;
    protected abstract Object make();
    public void testMakes() { assertNotNull(make()); check(); }
    protected void check() { Audit.log(); }
}""",
    "src/test/java/p/FooTest.java": """package p;
public class FooTest extends Base {
    protected Object make() { return new Foo(); }
    protected void check() { super.check(); Extra.note(); }
    public void testOwn() { helper.run(); }
}""",
    "src/test/java/p/Outer.java": """package p;
import q.Shared;
class Outer {
    Widget widget;
    class Inner extends Shared {
        @org.junit.jupiter.api.Test void uses() { widget.spin(); fromOuter(); }
    }
    void fromOuter() { new Gadget(); }
}""",
    "src/test/java/q/Shared.java": "package q;\npublic class Shared { public void inherited() { new Thing(); } }",
    "src/test/java/p/Broken.java": "package p;\npublic class Broken { void x( }",
}


def mapped(outcomes, unattributed=()):
    index, unparsed = index_sources(SOURCES.items())
    return map_reported(dict.fromkeys(outcomes, "passed"), list(unattributed), index, unparsed)


def test_a_reported_test_is_read_where_its_hierarchy_declares_it_dispatched_from_the_class_it_ran_under():
    reported = mapped(["p.FooTest::testMakes", "p.FooTest::testOwn", "p.Outer$Inner::uses", "p.Outer$Inner::inherited"])
    found = {t.name: t.identifiers for t in reported.found}
    assert reported.missing == {}
    # Base's testMakes run as FooTest: make() is FooTest's, check() is FooTest's, which calls Base's through super.
    assert {"Foo", "Extra", "Audit"} <= found["p.FooTest::testMakes"]
    assert "Foo" not in found["p.FooTest::testOwn"] and "Helper" in found["p.FooTest::testOwn"]  # the field's type
    # An inner class: the enclosing class's fields and methods; a superclass in another package, through its import.
    assert {"Widget", "Gadget"} <= found["p.Outer$Inner::uses"] and "Thing" in found["p.Outer$Inner::inherited"]


def test_a_reported_test_whose_body_is_not_found_keeps_its_reason():
    reported = mapped(
        ["p.FooTest::testGone", "p.Broken::t", "r.Elsewhere::t", "p.FooTest$1::t"],
        [{"class": "p.Table", "name": "row 1", "outcome": "passed"}],
    )
    assert reported.found == []
    assert reported.missing == {
        "p.FooTest::testGone": f"{NOT_DECLARED} (p.FooTest < p.Base; beyond: TestCase)",
        "p.Broken::t": f"{UNPARSED} (src/test/java/p/Broken.java: javalang: JavaSyntaxError)",
        "r.Elsewhere::t": NO_CLASS_SOURCE,
        "p.FooTest$1::t": NO_CLASS_SOURCE,
        "p.Table::row 1": f"{UNATTRIBUTED} (passed)",
    }
    assert reported.counts(5) == {"reported": 5, "source found": 0, "source not found": 5}


@pytest.fixture(scope="module")
def suites_build(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("java-suites")
    out = root / "codec.parquet"
    completed = run_cli(
        "classbench",
        "build",
        "--language",
        "java",
        "--repo",
        str(write_suites_repo(root / "codec")),
        "--classpath",
        "maven-repo",
        "--out",
        str(out),
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return out


@pytest.mark.java
@pytest.mark.slow
def test_tests_through_base_classes_suites_runners_and_nesting_become_directives(suites_build):
    tasks = {t.class_name: t for t in read_records(suites_build, ClassBenchTask)}
    card = json.loads(suites_build.with_suffix(".card.json").read_text())
    codec = "org.example.codec"
    assert {name: [d.removeprefix(codec + ".") for d in task.test_directives] for name, task in tasks.items()} == {
        # JUnit 3 through a base class, no annotations: the base's tests run under each subclass's name.
        "ReverseCodec": [
            "ReverseCodecTest::testEmptyStaysEmpty",
            "ReverseCodecTest::testReversesLetters",
            "ReverseCodecTest::testRoundTrip",
        ],
        "ShiftCodec": [
            "ShiftCodecTest::testEmptyStaysEmpty",
            "ShiftCodecTest::testRoundTrip",
            "ShiftCodecTest::testShiftIsKept",
        ],
        # Run only through TestAll.suite(), and through a base class whose setUp makes the field.
        "Counter": [
            "CounterChecks::testAddsUp",
            "CounterChecks::testRefusesTooMuch",
            "CounterChecks::testResetEmpties",
        ],
        # JUnit 4 Parameterized ([0], [1], ... are one test), the contract's test run as the subclass.
        "RomanCodec": ["RomanCodecTest::encodesKnownValue", "RomanCodecTest::roundTrips"],
        # JUnit 5: an interface's default test, a parameterized one, a meta-annotated one in a @Nested class.
        "BoundedStack": [
            "BoundedStackTest$WhenFull::refusesMore",
            "BoundedStackTest::holdsUpTo",
            "BoundedStackTest::pushThenPop",
        ],
    }
    # Each directive passes on the ground truth, and the empty class breaks them.
    for name, check in card["solution_checks"].items():
        assert (check["gold"], check["gold_passed"]) == ("plausible", check["directives"]), name
        assert check["empty"] != "plausible" and check["empty_TR"] == 0.0, name
    # Every test that ran is counted; those no source method stands for, with their reason.
    assert card["tests_without_source"] == {
        f"{codec}.TableTest::row 1": f"{UNATTRIBUTED} (passed)",
        f"{codec}.TableTest::row 2": f"{UNATTRIBUTED} (passed)",
        f"{codec}.TestAll$1::limitIsTen": f"{UNATTRIBUTED} (passed)",
    }
    assert card["suite_tests"] == {"reported": 17, "source found": 14, "source not found": 3}
    assert card["test_suite"] == {"passed": 17}
    assert {r["class"]: r["reason"] for r in card["rejections"]} == {
        f"{codec}.Codec": "not a class",
        f"{codec}.Limits": "fewer than two-thirds of its methods referenced by tests",  # check() by none
    }
    assert "TableTest::row 1: the runner reported it with no method" in suites_build.with_suffix(".card.md").read_text()
