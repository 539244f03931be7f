"""Which sibling modules of a reactor a module is built with, and the one line for a Gradle build."""

from pathlib import Path

from benchsmith.runners.java.reactor import gradle_note, sibling_modules
from benchsmith.sources.java.maven import read_pom

NS = 'xmlns="http://maven.apache.org/POM/4.0.0"'


def module(root: Path, name: str, needs: dict[str, str]) -> None:
    dependencies = "".join(
        f"<dependency><groupId>g</groupId><artifactId>{a}</artifactId><version>1</version>"
        f"<scope>{scope}</scope></dependency>"
        for a, scope in needs.items()
    )
    (root / name).mkdir(parents=True)
    (root / name / "pom.xml").write_text(
        f"<project {NS}><groupId>g</groupId><artifactId>{name}</artifactId>"
        f"<version>1</version><dependencies>{dependencies}</dependencies></project>"
    )


def test_siblings_in_dependency_order_test_scope_only_for_the_module_itself(tmp_path):
    (tmp_path / "pom.xml").write_text(
        f"<project {NS}><groupId>g</groupId><artifactId>top</artifactId><version>1</version>"
        "<modules><module>app</module><module>api</module><module>impl</module>"
        "<module>testkit</module><module>tool</module></modules></project>"
    )
    module(tmp_path, "api", {"tool": "test"})  # a sibling's test dependency is not built for it
    module(tmp_path, "impl", {"api": "compile", "external": "compile"})
    module(tmp_path, "testkit", {})
    module(tmp_path, "tool", {})
    module(tmp_path, "app", {"impl": "compile", "testkit": "test"})
    text = (tmp_path / "app/pom.xml").read_text()  # testkit's test classes: its test-jar
    (tmp_path / "app/pom.xml").write_text(
        text.replace("<artifactId>testkit</artifactId>", "<artifactId>testkit</artifactId><type>test-jar</type>")
    )
    found = sibling_modules(tmp_path, read_pom(tmp_path / "app" / "pom.xml", ()))
    assert [(folder, tests) for folder, _, tests in found] == [("api", False), ("impl", False), ("testkit", True)]
    assert sibling_modules(tmp_path, read_pom(tmp_path / "pom.xml", ())) == []  # the reactor's root has none


def test_a_reactor_in_a_folder_of_its_own_gives_its_siblings_by_their_folder_in_the_repository(tmp_path):
    """gchq/sleeper's Maven build is its java/ folder: the repository's root holds no pom."""
    reactor = tmp_path / "java"
    reactor.mkdir()
    (reactor / "pom.xml").write_text(
        f"<project {NS}><groupId>g</groupId><artifactId>top</artifactId><version>1</version>"
        "<modules><module>core</module><module>query</module></modules></project>"
    )
    module(reactor, "core", {"external": "compile"})
    module(reactor, "query", {"core": "compile"})
    found = sibling_modules(tmp_path, read_pom(reactor / "query" / "pom.xml", ()))
    assert [(folder, model.artifact) for folder, model, _ in found] == [("java/core", "core")]


def test_a_gradle_build_is_named_in_one_line(tmp_path):
    assert gradle_note(tmp_path) == ""
    (tmp_path / "build.gradle.kts").write_text("plugins { java }\n")
    note = gradle_note(tmp_path)
    assert "builds with Gradle (build.gradle.kts)" in note and "\n" not in note
