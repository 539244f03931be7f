"""Java paraphrase on a small repository written here: golden flipped files and exclusions, and its JUnit 4
tests compiled with javac and passing before and after (behaviour kept)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.paraphrase.java import is_valid_java_flip, paraphrase_java_repository
from benchsmith.paraphrase.java.source import find_identifier_after, is_identifier_at, python_index

from .realcheck_java import JUNIT4, build_and_test

pytestmark = pytest.mark.java

FOLDER = Path(__file__).parent
JAVAREPO = FOLDER / "fixtures" / "javarepo"
GOLDEN = FOLDER / "golden" / "javarepo"
GOLDEN_REPORT = FOLDER / "golden" / "javarepo.report.json"
CLASSES = ["org.tiny.shapes.Circle", "org.tiny.shapes.Registry"]
SEED = 7
GOLDEN_FILES = sorted(p.relative_to(GOLDEN).as_posix().removesuffix(".golden") for p in GOLDEN.rglob("*.golden"))


@pytest.fixture(scope="module")
def flipped(tmp_path_factory):
    out = tmp_path_factory.mktemp("javaparaphrase") / "javarepo"
    return out, paraphrase_java_repository(JAVAREPO, CLASSES, out, SEED, classpath=JUNIT4)


@pytest.mark.parametrize("rel", GOLDEN_FILES)
def test_flipped_file_matches_golden(flipped, rel):
    out, _ = flipped
    assert (out / rel).read_bytes() == (GOLDEN / f"{rel}.golden").read_bytes()  # bytes: the CRLF file stays CRLF


def test_mapping_exclusions_and_renamed_files_match_golden(flipped):
    _, report = flipped
    golden = json.loads(GOLDEN_REPORT.read_text())
    assert report.mapping == golden["mapping"]
    assert {n: e.rule for n, e in report.excluded.items()} == golden["excluded"]
    assert report.files_renamed == golden["files_renamed"]
    assert sorted(report.files_renamed.get(f, f) for f in report.files_changed) == GOLDEN_FILES


def test_unchanged_files_are_byte_identical_and_moved_files_gone(flipped):
    out, report = flipped
    for source in JAVAREPO.rglob("*"):
        rel = source.relative_to(JAVAREPO).as_posix()
        if source.is_file() and rel not in report.files_changed:
            assert (out / rel).read_bytes() == source.read_bytes(), rel
    for old in report.files_renamed:
        assert not (out / old).exists()


def test_the_exclusions_say_why(flipped):
    _, report = flipped
    excluded = report.excluded
    assert "java.lang.Comparable.compareTo" in excluded["compareTo"].detail
    assert "java.lang.Runnable.run" in excluded["run"].detail
    assert "java.lang.Object.toString" in excluded["toString"].detail
    assert "CircleTest.java" in excluded["describe"].detail  # getMethod("describe")
    assert "registry.properties" in excluded["lookup"].detail
    assert "Registry.java:22" in excluded["tag"].detail  # spelled t\u0061g there
    assert "serial-form field of org.tiny.shapes.Registry" in excluded["shapes"].detail  # Registry is Serializable
    assert report.to_dict()["rules"].keys() == report.exclusion_counts.keys()


def test_library_names_keep_their_spelling(flipped):
    out, report = flipped
    test = (out / "src/test/java/org/tiny/shapes/CircleTest.java").read_text()
    assert "list.size()" in test and f"CIrcle.oF(1).{report.mapping['size']}()" in test  # bound by javac, not by name
    assert ".stream().map(CIrcle::RAdIus)" in test and f".{report.mapping['map']}(r -> r * r)" in test
    square = (out / "src/main/java/org/tiny/shapes/Square.java").read_text()
    assert "public Square scale(double factor)" in square  # another class's scale: not Circle's
    assert f"public double {report.mapping['area']}()" in square  # an override of Shape.area, which flips with Circle's


def test_tests_that_passed_before_pass_after(flipped, tmp_path):
    out, _ = flipped
    before = build_and_test(JAVAREPO, tmp_path / "before")
    after = build_and_test(out, tmp_path / "after")
    assert len(before) == 10  # every fixture test passes on the original
    assert before == after


def test_same_seed_same_output_other_seed_other_flips(flipped, tmp_path):
    _, report = flipped
    again = paraphrase_java_repository(JAVAREPO, CLASSES, tmp_path / "again", SEED, classpath=JUNIT4)
    assert again.mapping == report.mapping
    other = paraphrase_java_repository(JAVAREPO, CLASSES, tmp_path / "other", SEED + 1, classpath=JUNIT4)
    assert other.mapping.keys() == report.mapping.keys() and other.mapping != report.mapping


def test_unknown_class_and_occupied_output_are_refused(tmp_path):
    with pytest.raises(BenchsmithError, match="org.tiny.Nope"):
        paraphrase_java_repository(JAVAREPO, ["org.tiny.Nope"], tmp_path / "x", classpath=JUNIT4)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("x")
    with pytest.raises(BenchsmithError, match="already exists"):
        paraphrase_java_repository(JAVAREPO, CLASSES, tmp_path / "full", classpath=JUNIT4)


def test_without_the_class_path_unbound_references_keep_names(tmp_path):
    """No JUnit jar: javac cannot bind the tests' JUnit calls; names spelled like one are kept, nothing breaks."""
    repo = tmp_path / "repo"
    shutil.copytree(JAVAREPO, repo)
    test = repo / "src/test/java/org/tiny/shapes/CircleTest.java"
    test.write_text(test.read_text().replace('list.add("x");', 'list.add("x");\n        org.junit.Mystery.radius();'))
    report = paraphrase_java_repository(repo, CLASSES, tmp_path / "out", SEED)
    assert report.excluded["radius"].rule == "unresolved"
    assert "CircleTest.java" in report.excluded["radius"].detail


def test_a_lone_surrogate_in_a_string_loses_no_occurrence(flipped, tmp_path):
    """A string literal holding half an emoji (Compress's NioZipEncodingTest) is attributed before the files that use
    the classes: it must neither stop the resolver's output nor leave the later files' occurrences unflipped."""
    repo = tmp_path / "repo"
    shutil.copytree(JAVAREPO, repo)
    first = repo / "src/main/java/org/tiny/AHalf.java"  # first in the sources' order
    first.write_text(
        "package org.tiny;\n\npublic class AHalf "
        '{\n    public static final String HALF = "\\ud83c|\\u2028|\\u001c";\n}\n'
    )
    report = paraphrase_java_repository(repo, CLASSES, tmp_path / "out", SEED, classpath=JUNIT4)
    assert report.mapping == flipped[1].mapping
    for rel in GOLDEN_FILES:
        assert (tmp_path / "out" / rel).read_bytes() == (GOLDEN / f"{rel}.golden").read_bytes(), rel
    assert (tmp_path / "out" / first.relative_to(repo)).read_bytes() == first.read_bytes()


def test_cli_writes_the_report(tmp_path, capsys):
    from benchsmith.cli import main

    out = tmp_path / "cli"
    code = main(
        [
            "paraphrase",
            "--language",
            "java",
            "--repo",
            str(JAVAREPO),
            "--out",
            str(out),
            "--seed",
            str(SEED),
            "--classes",
            ",".join(CLASSES),
            "--classpath",
            ":".join(map(str, JUNIT4)),
        ]
    )
    assert code in (0, None)
    report = json.loads((tmp_path / "cli.paraphrase.json").read_text())
    assert report["language"] == "java" and report["mapping"] == json.loads(GOLDEN_REPORT.read_text())["mapping"]
    assert "flipped 34 names" in capsys.readouterr().out


def test_java_flip_rule_and_text_positions():
    assert not is_valid_java_flip("Int", "int") and not is_valid_java_flip("testX", "tEstX")
    assert is_valid_java_flip("radius", "RAdIus")
    text = "/* 😀 */ int radius;"
    assert python_index(text, text.encode("utf-16-le").__len__() // 2 - len("radius;")) == text.index("radius")
    assert is_identifier_at(text, text.index("radius"), "radius") and not is_identifier_at("xradius", 1, "radius")
    assert find_identifier_after("public /* radius */ double // radius\n radius()", 0, "radius") == 38
