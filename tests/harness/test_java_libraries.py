"""The maven-repo class path on a module written here that needs what its pom does not say: a package of a library
it does not declare (commons-io, as Apache POI 5 brings it to zouzhiy-excel) and Lombok's generated getters.
Real Debian jars, real javac, delombok and JUnit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.sandbox import jail as sandbox
from harness.java.class_runner import run_suite
from harness.java.maven_workspace import JavaSetup, java_workspace
from harness.java.toolchain import DEBIAN_MAVEN_REPO

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


@pytest.mark.skipif(not _jar("commons-io") or not _jar("lombok"), reason="Debian's libcommons-io-java and liblombok-java (make java-extras)")
def test_an_undeclared_package_and_lombok_are_resolved_from_debian(tmp_path):
    tree = tmp_path / "labels"
    (tree / "pom.xml").parent.mkdir(parents=True)
    (tree / "pom.xml").write_text(POM)
    for relative, text in FILES.items():
        (tree / relative).parent.mkdir(parents=True, exist_ok=True)
        (tree / relative).write_text(text)
    prepared = java_workspace(tree, f"dir-labels-{tmp_path.name}", JavaSetup(classpath="maven-repo"))
    manifest = json.loads((prepared.workspace.root / "workspace.json").read_text())
    (commons_io,) = [jar for jar in prepared.libraries if Path(jar).name.startswith("commons-io-")]
    assert manifest["libraries_for_imports"] == {commons_io: ["org.apache.commons.io"]}
    assert manifest["delomboked"] == ["src/main/java"]
    assert "@Getter" not in (prepared.workspace.tree / "src/main/java/org/acme/Label.java").read_text()
    assert "@Getter" in (tree / "src/main/java/org/acme/Label.java").read_text()  # the source itself is untouched
    assert (prepared.excluded_main, prepared.excluded_tests, prepared.test_classes) == ({}, {}, ["org.acme.LabelTest"])
    with sandbox.leased_slot() as slot:
        outcomes = run_suite(prepared, slot, sandbox.Limits(), tmp_path / "suite.log")
    assert outcomes == {"org.acme.LabelTest::readsTheExtension": "passed"}
