"""What Defects4J does to a checkout before it builds one, done to a workspace's tree too: its compile-errors/ diffs,
Joda-Time's JodaTime/ folder, and the bugs it deprecated."""

import subprocess
from pathlib import Path

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.java.defects4j_checkout import adapt_as_defects4j
from benchsmith.sources.defects4j import Bug, Defects4JRoot
from benchsmith.sources.history import UpstreamGitSource, project_folder
from tests.helpers.git_history import committed

HEADER = "bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url\n"


def _diff(path, before, after):
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{before}\n+{after}\n"


def _root(tmp_path, project, diffs):
    folder = tmp_path / "framework" / "projects" / project
    (folder / "compile-errors").mkdir(parents=True)
    (folder / "active-bugs.csv").write_text(HEADER + "3,b3,f3,R-3,u\n4,b4,f4,R-4,u\n")
    (folder / "deprecated-bugs.csv").write_text(
        HEADER.strip() + ",deprecated.version,deprecated.reason\n"
        "2,b2,f2,R-2,u,3.0.0,JVM11.Not.Repoducible\n9,b9,f9,R-9,u,2.0.0,Duplicate\n"
    )
    for name, text in diffs.items():
        (folder / "compile-errors" / name).write_text(text)
    return Defects4JRoot(tmp_path)


def test_the_diffs_of_a_bug_are_those_whose_range_holds_it_or_its_revision(tmp_path):
    d4j = _root(tmp_path, "Demo", {"test-1-3.diff": "", "locale-3-9.optional.diff": "", "test-4-4.diff": ""})
    found = d4j.compile_error_diffs(Bug("Demo", 3, "b3", "f3", "R-3", "u"))
    assert [(path.name, optional) for path, optional in found] == [
        ("locale-3-9.optional.diff", True),
        ("test-1-3.diff", False),
    ]
    # a Subversion project's ranges are its revisions' numbers (Chart's test-1025-1087.diff)
    chart = _root(tmp_path, "Chart", {"test-1025-1087.diff": ""})
    assert [p.name for p, _ in chart.compile_error_diffs(Bug("Chart", 9, "1082", "1083", "", ""))] == [
        "test-1025-1087.diff"
    ]
    assert chart.compile_error_diffs(Bug("Chart", 1025, "2265", "2266", "", "")) == []


def test_a_deprecated_bug_says_why_and_since_when(tmp_path):
    d4j = _root(tmp_path, "Demo", {})
    assert d4j.deprecated_bugs("Demo") == {
        2: "deprecated by Defects4J: JVM11.Not.Repoducible (Defects4J 3.0.0)",
        9: "deprecated by Defects4J: Duplicate (Defects4J 2.0.0)",
    }
    assert _root(tmp_path / "other", "Plain", {}).deprecated_bugs("Missing") == {}


def test_the_diffs_are_applied_as_defects4j_applies_them(tmp_path):
    """Each with the first of -p1, -p0, -p2 that applies; an optional one that applies no way is passed over, and a
    required one is an error naming it, unless none of the files it changes is in the tree."""
    tree = tmp_path / "tree"
    (tree / "src").mkdir(parents=True)
    (tree / "src" / "A.java").write_text("class A { int x = 1; }\n")
    (tree / "src" / "B.java").write_text("class B {}\n")
    no_prefix = "--- src/B.java\n+++ src/B.java\n@@ -1 +1 @@\n-class B {}\n+class B { }\n"
    d4j = _root(
        tmp_path,
        "Demo",
        {
            "a-1-5.diff": _diff("src/A.java", "class A { int x = 1; }", "class A { int x = 2; }"),
            "b-1-5.diff": no_prefix,
            "c-1-5.optional.diff": _diff("src/A.java", "class A { int gone; }", "class A {}"),
            # a file this history does not hold (Chart's conversion lacks demos of Defects4J's trunk): nothing to mend
            "e-1-5.diff": _diff("experimental/Demo.java", "class Demo {}", "class Demo { }"),
        },
    )
    bug = Bug("Demo", 3, "b3", "f3", "R-3", "u")
    assert adapt_as_defects4j(d4j, bug, tree) == ("a-1-5.diff", "b-1-5.diff")
    assert (tree / "src" / "A.java").read_text() == "class A { int x = 2; }\n"
    assert (tree / "src" / "B.java").read_text() == "class B { }\n"
    (tree / "src" / "A.java").write_text("class A { int x = 1; }\n")
    (tree / "src" / "B.java").write_text("class B {}\n")
    (d4j.project_dir("Demo") / "compile-errors" / "d-1-5.diff").write_text(_diff("src/A.java", "nothing", "x"))
    with pytest.raises(
        BenchsmithError, match=r"Demo-3: Defects4J's .*d-1-5.diff does not apply: error: patch failed: src/A.java:1"
    ):
        adapt_as_defects4j(d4j, bug, tree)


def test_revisions_that_keep_joda_time_in_its_folder_are_read_from_inside_it(tmp_path):
    """Joda-Time's early history holds the project in JodaTime/, which Defects4J's checkout moves to the root; its
    patches name the paths from there."""
    history = tmp_path / "joda-time"
    early = committed(history, {"JodaTime/src/main/java/T.java": "class T { int early; }\n", "JodaTimeContrib/x": "x"})
    subprocess.run(["git", "-C", str(history), "rm", "-r", "-q", "JodaTime", "JodaTimeContrib"], check=True)
    late = committed(history, {"src/main/java/T.java": "class T { int late; }\n"})
    git_dir = history / ".git"
    assert project_folder("Time", git_dir, early) == "JodaTime/"
    assert project_folder("Time", git_dir, late) == ""
    assert project_folder("Lang", git_dir, early) == ""  # only the projects Defects4J moves a folder up for
    patch = _diff("src/main/java/T.java", "class T { int early; }", "class T { int buggy; }")
    fixed, buggy = UpstreamGitSource(git_dir).files(
        Bug("Time", 1, "b", early, "", ""), ["src/main/java/T.java"], patch, "1.src.patch"
    )
    assert fixed == {"src/main/java/T.java": "class T { int early; }\n"}
    assert buggy == {"src/main/java/T.java": "class T { int buggy; }\n"}


def test_a_package_named_enum_is_renamed_as_defects4j_renames_it(tmp_path):
    """commons-lang 2 (Java 1.4) has org.apache.commons.lang.enum; enum is a keyword from Java 5 on."""
    from benchsmith.runners.java.defects4j_checkout import rename_enum_packages

    files = {
        "src/java/org/demo/enum/Enum.java": "package org.demo.enum;\nimport org.demo.enum.util.U;\nclass Enum {}\n",
        "src/java/org/demo/enum/util/U.java": 'package org.demo.enum.util;\nclass U { String s = "an enum; ok"; }\n',
        "src/java/org/demo/Other.java": "package org.demo;\nclass Other { int enumCount; }\n",
        "src/test/org/demo/enum/EnumTest.java": "package org.demo.enum;\nclass EnumTest {}\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    assert rename_enum_packages(tmp_path, ("src/java", "src/test")) == ["org.demo.enum", "org.demo.enum"]
    moved = tmp_path / "src/java/org/demo/oldenum"
    assert (moved / "Enum.java").read_text().startswith("package org.demo.oldenum;\nimport org.demo.oldenum.util.U;")
    assert (moved / "util/U.java").read_text() == (
        'package org.demo.oldenum.util;\nclass U { String s = "an enum; ok"; }\n'
    )
    assert (tmp_path / "src/java/org/demo/Other.java").read_text() == files["src/java/org/demo/Other.java"]
    assert (tmp_path / "src/test/org/demo/oldenum/EnumTest.java").is_file()
    assert not (tmp_path / "src/java/org/demo/enum").exists()


@pytest.mark.java
def test_the_release_test_classes_were_compiled_for_is_read_from_them(tmp_path):
    """Mockito's tests compile only for 7 (Java 8's inference finds when(mock.oneArg(anyObject())) ambiguous): the
    plain path compiles them again, for the release their class files record."""
    from benchsmith.runners.java.defects4j_checkout import classes_release

    (tmp_path / "A.java").write_text("class A {}\n")
    for release in ("7", "8"):
        out = tmp_path / release
        subprocess.run(["javac", "-nowarn", "--release", release, "-d", str(out), str(tmp_path / "A.java")], check=True)
        assert classes_release(out) == release
    assert classes_release(tmp_path / "none") == ""


def test_locale_diffs_are_for_a_runtime_with_cldr_locale_data_only():
    """Defects4J 3's locale-* diffs mend tests for Java 11's CLDR data; a runtime that reads Java 8's (Java 8, or 9 to
    22 with COMPAT, as defects4j_runtime's) runs the tests as written, and Java 23 has no COMPAT left."""
    from benchsmith.runners.java.defects4j_checkout import for_locale_data
    from benchsmith.runners.java.toolchain import JAVA8_LOCALES, JavaRuntime

    def runtime(version: int, java8_locales: bool) -> JavaRuntime:
        return JavaRuntime("java", Path("/"), version, java8_locales)

    assert [runtime(v, True).locale_data() for v in (8, 11, 22, 23)] == ["java8", "java8", "java8", "cldr"]
    assert [runtime(v, False).locale_data() for v in (8, 11)] == ["java8", "cldr"]
    assert JAVA8_LOCALES in runtime(11, True).options() and JAVA8_LOCALES not in runtime(8, True).options()
    assert JAVA8_LOCALES not in runtime(23, True).options() and JAVA8_LOCALES not in runtime(11, False).options()
    assert not for_locale_data("locale-1-1.diff", "java8") and for_locale_data("locale-1-1.diff", "cldr")
    assert for_locale_data("test-1-5.diff", "java8") and for_locale_data("test-1-5.diff", "cldr")
