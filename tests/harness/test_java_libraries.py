"""The maven-repo class path on a module written here that needs what its pom does not say: a package of a library
it does not declare (commons-io, as Apache POI 5 brings it to zouzhiy-excel) and Lombok's generated getters, in
Maven's default folders and in the roots a pom names (sourceDirectory, build-helper's add-source, testSourceDirectory).
Real Debian jars, real javac, delombok and JUnit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchsmith.runners.java import lombok
from benchsmith.runners.java.class_runner import run_suite
from benchsmith.runners.java.maven_workspace import JavaSetup, java_workspace
from benchsmith.runners.java.toolchain import DEBIAN_MAVEN_REPO
from benchsmith.runners.sandbox import jail as sandbox

pytestmark = [pytest.mark.java, pytest.mark.slow]

POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>org.acme</groupId><artifactId>labels</artifactId><version>1.0</version>
  <dependencies>
    <dependency><groupId>org.projectlombok</groupId><artifactId>lombok</artifactId><version>1.18.20</version><scope>provided</scope></dependency>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
</project>
"""
FILES = {
    "src/main/java/org/acme/Label.java": """package org.acme;

import lombok.Getter;
import org.apache.commons.io.FilenameUtils;

public class Label {
    @Getter
    private final String file;

    public Label(String file) {
        this.file = file;
    }

    public String extension() {
        return FilenameUtils.getExtension(getFile());
    }
}
""",
    "src/test/java/org/acme/LabelTest.java": """package org.acme;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class LabelTest {
    @Test
    public void readsTheExtension() {
        assertEquals("txt", new Label("notes/a.txt").extension());
        assertEquals("notes/a.txt", new Label("notes/a.txt").getFile());
    }
}
""",
}


def _jar(artifact: str) -> list[Path]:
    return sorted(DEBIAN_MAVEN_REPO.rglob(f"{artifact}-*.jar"))


def _write(tree: Path, pom: str, files: dict[str, str]) -> None:
    tree.mkdir(parents=True)
    (tree / "pom.xml").write_text(pom)
    for relative, text in files.items():
        (tree / relative).parent.mkdir(parents=True, exist_ok=True)
        (tree / relative).write_text(text)


NEEDS_EXTRAS = pytest.mark.skipif(
    not _jar("commons-io") or not _jar("lombok"),
    reason="Debian's libcommons-io-java and liblombok-java (make java-extras)",
)


@NEEDS_EXTRAS
def test_an_undeclared_package_and_lombok_are_resolved_from_debian(tmp_path):
    tree = tmp_path / "labels"
    _write(tree, POM, FILES)
    prepared = java_workspace(tree, f"dir-labels-{tmp_path.name}", JavaSetup(classpath="maven-repo"))
    manifest = json.loads((prepared.workspace.root / "workspace.json").read_text())
    (commons_io,) = [jar for jar in prepared.libraries if Path(jar).name.startswith("commons-io-")]
    assert manifest["libraries_for_imports"] == {commons_io: ["org.apache.commons.io"]}
    assert manifest["delomboked"] == ["src/main/java"]
    assert "@Getter" not in (prepared.workspace.tree / "src/main/java/org/acme/Label.java").read_text()
    assert "@Getter" in (tree / "src/main/java/org/acme/Label.java").read_text()  # the source itself is untouched
    assert (prepared.excluded_main, prepared.excluded_tests, prepared.test_classes) == ({}, {}, ["org.acme.LabelTest"])
    with sandbox.leased_slot() as slot:
        outcomes = run_suite(prepared, slot, sandbox.Limits(), tmp_path / "suite.log").outcomes
    assert outcomes == {"org.acme.LabelTest::readsTheExtension": "passed"}


# The same module laid out as the pom says: main sources in src/java and a build-helper root, tests in test/java.
# The Lombok class and the commons-io import sit in the build-helper root, and the test root has a Lombok class too.
ROOTS_POM = POM.replace(
    """  <dependencies>""",
    """  <build>
    <sourceDirectory>src/java</sourceDirectory>
    <testSourceDirectory>${project.basedir}/test/java</testSourceDirectory>
    <plugins><plugin><groupId>org.codehaus.mojo</groupId><artifactId>build-helper-maven-plugin</artifactId>
      <executions><execution><id>model</id><phase>generate-sources</phase><goals><goal>add-source</goal></goals>
        <configuration><sources><source>src/model/java</source></sources></configuration></execution></executions>
    </plugin></plugins>
  </build>
  <dependencies>""",
)
ROOTS_FILES = {
    "src/model/java/org/acme/Label.java": FILES["src/main/java/org/acme/Label.java"],
    "src/java/org/acme/Shelf.java": """package org.acme;

public class Shelf {
    public String kind(String file) {
        return new Label(file).extension();
    }
}
""",
    "test/java/org/acme/Sample.java": """package org.acme;

import lombok.AllArgsConstructor;
import lombok.Getter;

@AllArgsConstructor
@Getter
class Sample {
    private final String file;
}
""",
    "test/java/org/acme/ShelfTest.java": """package org.acme;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class ShelfTest {
    @Test
    public void readsTheKind() {
        assertEquals("txt", new Shelf().kind(new Sample("notes/a.txt").getFile()));
    }
}
""",
}


@NEEDS_EXTRAS
def test_lombok_and_imported_packages_are_found_in_the_roots_the_pom_names(tmp_path):
    tree = tmp_path / "shelf"
    _write(tree, ROOTS_POM, ROOTS_FILES)
    prepared = java_workspace(tree, f"dir-shelf-{tmp_path.name}", JavaSetup(classpath="maven-repo"))
    manifest = json.loads((prepared.workspace.root / "workspace.json").read_text())
    (commons_io,) = [jar for jar in prepared.libraries if Path(jar).name.startswith("commons-io-")]
    assert manifest["libraries_for_imports"] == {commons_io: ["org.apache.commons.io"]}
    assert manifest["delomboked"] == ["src/model/java", "test/java"]
    assert "@Getter" not in (prepared.workspace.tree / "src/model/java/org/acme/Label.java").read_text()
    assert "@AllArgsConstructor" not in (prepared.workspace.tree / "test/java/org/acme/Sample.java").read_text()
    assert (prepared.excluded_main, prepared.excluded_tests, prepared.test_classes) == ({}, {}, ["org.acme.ShelfTest"])
    with sandbox.leased_slot() as slot:
        outcomes = run_suite(prepared, slot, sandbox.Limits(), tmp_path / "suite.log").outcomes
    assert outcomes == {"org.acme.ShelfTest::readsTheKind": "passed"}


# A reactor: the module "shelf" depends on its sibling "labels", whose Label uses Lombok and commons-io without
# declaring commons-io. The sibling is compiled as the module itself is: Lombok expanded, the imported package's jar
# found.
PARENT_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>org.acme</groupId><artifactId>parent</artifactId><version>1.0</version><packaging>pom</packaging>
  <modules><module>labels</module><module>shelf</module></modules>
</project>
"""
SHELF_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <parent><groupId>org.acme</groupId><artifactId>parent</artifactId><version>1.0</version></parent>
  <artifactId>shelf</artifactId>
  <dependencies>
    <dependency><groupId>org.acme</groupId><artifactId>labels</artifactId><version>1.0</version></dependency>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
</project>
"""


@NEEDS_EXTRAS
def test_a_sibling_module_gets_lombok_expanded_and_the_jars_of_its_imports(tmp_path):
    tree = tmp_path / "reactor"
    _write(tree, PARENT_POM, {})
    _write(
        tree / "labels",
        POM.replace(
            "<groupId>org.acme</groupId><artifactId>labels</artifactId>",
            "<parent><groupId>org.acme</groupId><artifactId>parent</artifactId>"
            "<version>1.0</version></parent><groupId>org.acme</groupId><artifactId>labels</artifactId>",
        ),
        {"src/main/java/org/acme/Label.java": FILES["src/main/java/org/acme/Label.java"]},
    )
    _write(
        tree / "shelf",
        SHELF_POM,
        {
            k.replace("test/java", "src/test/java").replace("src/java", "src/main/java"): v
            for k, v in ROOTS_FILES.items()
            if "Label" not in k and "Sample" not in k
        },
    )
    (tree / "shelf/src/test/java/org/acme/ShelfTest.java").write_text(
        ROOTS_FILES["test/java/org/acme/ShelfTest.java"].replace('new Sample("notes/a.txt").getFile()', '"notes/a.txt"')
    )
    prepared = java_workspace(tree, f"dir-reactor-{tmp_path.name}", JavaSetup(module="shelf", classpath="maven-repo"))
    manifest = json.loads((prepared.workspace.root / "workspace.json").read_text())
    (commons_io,) = [jar for jar in prepared.libraries if Path(jar).name.startswith("commons-io-")]
    assert manifest["siblings"] == ["labels"]
    assert manifest["libraries_for_imports"] == {commons_io: ["org.apache.commons.io"]}
    assert manifest["delomboked"] == ["labels/src/main/java"]
    assert (prepared.excluded_main, prepared.excluded_tests, prepared.test_classes) == ({}, {}, ["org.acme.ShelfTest"])
    with sandbox.leased_slot() as slot:
        outcomes = run_suite(prepared, slot, sandbox.Limits(), tmp_path / "suite.log").outcomes
    assert outcomes == {"org.acme.ShelfTest::readsTheKind": "passed"}


@pytest.mark.skipif(not lombok.DEBIAN_LOMBOK.is_dir(), reason="Debian's liblombok-java is not installed")
def test_lombok_expands_with_the_newest_of_the_class_paths_and_debians():
    """A pom's Lombok 1.18.20 (the central class path brings the version the pom names) predates Java 17, where its
    delombok writes a switch with two default labels: Debian's newer one expands instead; a newer pom's is kept, and
    a class path without Lombok expands nothing."""
    debian = lombok.lombok_jar(["/elsewhere/lombok-1.18.20.jar"])
    assert debian is not None and Path(debian).is_relative_to(lombok.DEBIAN_LOMBOK)
    assert lombok.lombok_jar(["/elsewhere/lombok-99.0.0.jar"]) == "/elsewhere/lombok-99.0.0.jar"
    assert lombok.lombok_jar(["/elsewhere/guava-33.0.jar"]) is None
