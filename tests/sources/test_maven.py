"""The Maven model: a pom with its parents, properties, default profiles, dependency management, roots, generated
sources and resources, on poms written here."""

from pathlib import Path

from benchsmith.sources.java.maven import reactor_modules, read_pom
from benchsmith.sources.java.maven_generate import filter_resources, generate_sources

NS = 'xmlns="http://maven.apache.org/POM/4.0.0"'

PARENT = f"""<project {NS}>
  <groupId>org.example</groupId><artifactId>family</artifactId><version>3</version><packaging>pom</packaging>
  <properties><lib.version>2.1</lib.version><java.level>11</java.level></properties>
  <dependencyManagement><dependencies>
    <dependency><groupId>org.lib</groupId><artifactId>lib</artifactId><version>${{lib.version}}</version></dependency>
    <dependency><groupId>org.lib</groupId><artifactId>lib-test</artifactId><version>0.9</version><scope>test</scope></dependency>
  </dependencies></dependencyManagement>
  <dependencies><dependency><groupId>org.log</groupId><artifactId>log</artifactId><version>1.0</version></dependency></dependencies>
  <build><pluginManagement><plugins>
    <plugin><artifactId>maven-compiler-plugin</artifactId><configuration><release>${{java.level}}</release></configuration></plugin>
  </plugins></pluginManagement></build>
</project>
"""

CHILD = f"""<project {NS}>
  <parent><groupId>org.example</groupId><artifactId>family</artifactId><version>3</version>{{relative}}</parent>
  <artifactId>child</artifactId>
  <properties><lib.version>2.2</lib.version><greeting>hello ${{project.artifactId}} ${{project.version}}</greeting></properties>
  <dependencies>
    <dependency><groupId>org.lib</groupId><artifactId>lib</artifactId></dependency>
    <dependency><groupId>org.lib</groupId><artifactId>lib-test</artifactId></dependency>
    <dependency><groupId>org.opt</groupId><artifactId>opt</artifactId><version>4</version><optional>true</optional></dependency>
  </dependencies>
  <profiles>
    <profile><id>on</id><activation><activeByDefault>true</activeByDefault></activation>
      <dependencies><dependency><groupId>org.on</groupId><artifactId>on</artifactId><version>5</version></dependency></dependencies>
    </profile>
    <profile><id>off</id>
      <dependencies><dependency><groupId>org.off</groupId><artifactId>off</artifactId><version>6</version></dependency></dependencies>
    </profile>
  </profiles>
  <build>
    <resources><resource><directory>src/main/resources</directory><filtering>true</filtering></resource></resources>
    <plugins>
      <plugin><groupId>org.codehaus.mojo</groupId><artifactId>build-helper-maven-plugin</artifactId>
        <executions>
          <execution><id>a</id><goals><goal>add-source</goal></goals>
            <configuration><sources><source>${{basedir}}/src/extra/java</source></sources></configuration></execution>
          <execution><id>b</id><goals><goal>add-test-source</goal></goals>
            <configuration><sources><source>src/it/java</source></sources></configuration></execution>
        </executions>
      </plugin>
      <plugin><groupId>org.codehaus.mojo</groupId><artifactId>templating-maven-plugin</artifactId>
        <executions><execution><goals><goal>filter-sources</goal></goals></execution></executions></plugin>
    </plugins>
  </build>
</project>
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_pom_with_its_parent_by_relative_path(tmp_path):
    write(tmp_path / "pom.xml", PARENT)
    model = read_pom(write(tmp_path / "child" / "pom.xml", CHILD.replace("{relative}", "")), ())
    assert (model.group, model.artifact, model.version) == ("org.example", "child", "3")
    assert model.parents == [str(tmp_path / "child" / ".." / "pom.xml")] and model.missing_parent == ""
    assert model.properties["greeting"] == "hello child 3"
    versions = {d.artifact: (d.version, d.scope, d.optional) for d in model.dependencies}
    assert versions == {
        "lib": ("2.2", "compile", False),  # managed by the parent, its property overridden here
        "lib-test": ("0.9", "test", False),
        "opt": ("4", "compile", True),
        "on": ("5", "compile", False),  # the profile active by default; "off" is not
        "log": ("1.0", "compile", False),
    }  # inherited
    assert model.release == "11"  # the compiler plugin's release, from the parent's plugin management
    assert model.source_roots == ["src/main/java", "src/extra/java"] and model.test_roots == [
        "src/test/java",
        "src/it/java",
    ]
    assert [(r.directory, r.filtering, r.test) for r in model.resources] == [
        ("src/main/resources", True, False),
        ("src/test/resources", False, True),
    ]


def test_a_parent_from_a_local_repository_and_one_not_at_hand(tmp_path):
    repository = tmp_path / "repository"
    write(repository / "org/example/family/3/family-3.pom", PARENT)
    child = write(tmp_path / "alone" / "pom.xml", CHILD.replace("{relative}", "<relativePath/>"))
    model = read_pom(child, (repository,))
    assert model.parents == [str(repository / "org/example/family/3/family-3.pom")]
    assert {d.artifact: d.version for d in model.dependencies}["lib"] == "2.2"
    unknown = read_pom(child, ())
    assert unknown.missing_parent == "org.example:family:3"
    assert {d.artifact: d.version for d in unknown.dependencies}["lib"] == ""  # its management is not at hand
    assert unknown.release == "8" and [d.artifact for d in unknown.missing_versions()] == ["lib", "lib-test"]


def test_release_from_properties_raised_to_eight(tmp_path):
    pom = write(
        tmp_path / "pom.xml",
        f"<project {NS}><artifactId>a</artifactId><properties>"
        "<maven.compiler.source>1.6</maven.compiler.source></properties></project>",
    )
    assert read_pom(pom, ()).release == "8"
    pom.write_text(
        "<project><artifactId>a</artifactId><properties><v>17</v><maven.compiler.release>${v}"
        "</maven.compiler.release></properties></project>"
    )
    assert read_pom(pom, ()).release == "17"


def test_templates_and_filtered_resources_are_generated(tmp_path):
    write(tmp_path / "pom.xml", PARENT)
    module = tmp_path / "child"
    model = read_pom(write(module / "pom.xml", CHILD.replace("{relative}", "")), ())
    write(
        module / "src/main/java-templates/org/example/Version.java",
        'package org.example;\nclass Version { String v = "${project.version}", g = "@greeting@", k = "${unknown}"; }\n',
    )
    write(module / "src/main/resources/app.properties", "name=${project.artifactId}\nkept=${nothing.here}\n")
    generated = generate_sources(model)
    assert generated.main_roots == ["target/generated-sources/java-templates"]
    out = module / "target/generated-sources/java-templates/org/example/Version.java"
    assert (
        out.read_text()
        == 'package org.example;\nclass Version { String v = "3", g = "hello child 3", k = "${unknown}"; }\n'
    )
    assert filter_resources(model) == ["src/main/resources/app.properties"]
    assert (module / "src/main/resources/app.properties").read_text() == "name=child\nkept=${nothing.here}\n"


def test_a_jackson_template_goes_to_generated_sources(tmp_path):
    pom = write(
        tmp_path / "pom.xml",
        f"<project {NS}><groupId>com.f.j</groupId><artifactId>jc</artifactId><version>2.9.1</version></project>",
    )
    write(
        tmp_path / "src/main/java/com/f/j/PackageVersion.java.in",
        "package @package@; // @projectversion@ @projectartifactid@\n",
    )
    generated = generate_sources(read_pom(pom, ()))
    assert generated.main_roots == ["target/generated-sources/replacer"]
    assert (
        tmp_path / "target/generated-sources/replacer/com/f/j/PackageVersion.java"
    ).read_text() == "package com.f.j; // 2.9.1 jc\n"
    assert not (tmp_path / "src/main/java/com/f/j/PackageVersion.java").exists()


def test_reactor_modules_nested(tmp_path):
    write(
        tmp_path / "pom.xml",
        f"<project {NS}><groupId>g</groupId><artifactId>top</artifactId><version>1</version>"
        "<modules><module>a</module><module>group</module></modules></project>",
    )
    write(
        tmp_path / "a/pom.xml",
        f"<project {NS}><parent><groupId>g</groupId><artifactId>top</artifactId><version>1</version>"
        "</parent><artifactId>a</artifactId></project>",
    )
    write(
        tmp_path / "group/pom.xml",
        f"<project {NS}><groupId>g</groupId><artifactId>group</artifactId><version>1</version>"
        "<modules><module>b</module></modules></project>",
    )
    write(
        tmp_path / "group/b/pom.xml",
        f"<project {NS}><groupId>g</groupId><artifactId>b</artifactId><version>2</version></project>",
    )
    modules = reactor_modules(tmp_path, ())
    assert {folder: (m.group, m.artifact, m.version) for folder, m in modules.items()} == {
        "": ("g", "top", "1"),
        "a": ("g", "a", "1"),
        "group": ("g", "group", "1"),
        "group/b": ("g", "b", "2"),
    }


def _pom(
    group: str, artifact: str, version: str, management: str, dependencies: str = "", packaging: str = "jar"
) -> str:
    return (
        f'<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        f"<groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version>"
        f"<packaging>{packaging}</packaging><properties><netty.version>4.1.9</netty.version></properties>"
        f"<dependencyManagement><dependencies>{management}</dependencies></dependencyManagement>"
        f"<dependencies>{dependencies}</dependencies></project>"
    )


def _dependency(group: str, artifact: str, version: str = "", extra: str = "") -> str:
    return (
        f"<dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId>"
        f"{f'<version>{version}</version>' if version else ''}{extra}</dependency>"
    )


IMPORT = "<type>pom</type><scope>import</scope>"


def test_boms_imported_by_dependency_management_give_versions_and_one_not_at_hand_is_named(tmp_path):
    repository = tmp_path / "repository"
    # a BOM that imports another, with a property of its own; the module's own management wins over both
    write(
        repository / "io/netty/netty-bom/4.1.9/netty-bom-4.1.9.pom",
        _pom(
            "io.netty",
            "netty-bom",
            "4.1.9",
            _dependency("io.netty", "netty-codec", "${netty.version}")
            + _dependency("org.acme", "shared", "1.0")
            + _dependency("org.acme", "base-bom", "2", IMPORT),
            packaging="pom",
        ),
    )
    write(
        repository / "org/acme/base-bom/2/base-bom-2.pom",
        _pom(
            "org.acme",
            "base-bom",
            "2",
            _dependency("org.acme", "base", "2.5") + _dependency("io.netty", "netty-bom", "4.1.9", IMPORT),
            packaging="pom",
        ),
    )
    module = write(
        tmp_path / "app" / "pom.xml",
        _pom(
            "org.acme",
            "app",
            "1",
            _dependency("org.acme", "shared", "3.0")
            + _dependency("io.netty", "netty-bom", "4.1.9", IMPORT)
            + _dependency("com.gone", "gone-bom", "7", IMPORT),
            "".join(
                _dependency(g, a)
                for g, a in (
                    ("io.netty", "netty-codec"),
                    ("org.acme", "shared"),
                    ("org.acme", "base"),
                    ("com.gone", "lib"),
                )
            ),
        ),
    )
    model = read_pom(module, (repository,))
    assert {d.artifact: d.version for d in model.dependencies} == {
        "netty-codec": "4.1.9",
        "shared": "3.0",
        "base": "2.5",
        "lib": "",
    }
    assert model.missing_imports == ["com.gone:gone-bom:7"]
    assert [d.artifact for d in model.missing_versions()] == ["lib"]
    assert read_pom(module, ()).missing_imports == ["io.netty:netty-bom:4.1.9", "com.gone:gone-bom:7"]
