"""Sources Maven generates before compiling (the Jackson projects' PackageVersion.java.in)."""

from benchsmith.runners.java.defects4j_workspace import _generate_from_templates

POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <parent><groupId>com.fasterxml.jackson</groupId><artifactId>jackson-parent</artifactId><version>2.7</version></parent>
  <groupId>com.fasterxml.jackson.dataformat</groupId>
  <artifactId>jackson-dataformat-xml</artifactId>
  <version>2.7.7-SNAPSHOT</version>
</project>
"""


def test_a_template_is_filled_in_from_the_pom(tmp_path):
    (tmp_path / "pom.xml").write_text(POM)
    folder = tmp_path / "src/main/java/com/fasterxml/jackson/dataformat/xml"
    folder.mkdir(parents=True)
    (folder / "PackageVersion.java.in").write_text(
        "package @package@;\nclass PackageVersion "
        '{ String v = "@projectversion@ @projectgroupid@ @projectartifactid@"; }\n'
    )
    _generate_from_templates(tmp_path, "src/main/java")
    assert (folder / "PackageVersion.java").read_text() == (
        "package com.fasterxml.jackson.dataformat.xml;\nclass PackageVersion { String v = "
        '"2.7.7-SNAPSHOT com.fasterxml.jackson.dataformat jackson-dataformat-xml"; }\n'
    )
