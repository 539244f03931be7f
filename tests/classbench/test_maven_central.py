"""The central class path: Maven resolves a module's dependencies into benchsmith's own local repository.

The repository Maven resolves from is served here on loopback (tests/helpers/maven_served.py): jars compiled in the
test, laid out as Maven lays them out, behind a settings.xml mirror; what Maven needs besides (the pinned dependency
plugin, JUnit) comes from Debian's Maven repository through the same server. One test, marked online, resolves from
Maven Central itself.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.runners.java import central
from benchsmith.runners.java.classpath import without_inline_mock_maker
from benchsmith.runners.java.maven_workspace import JavaSetup, java_workspace
from tests.conftest import run_benchsmith
from tests.helpers.maven_repos import COUNTER, COUNTER_TEST, JUNIT, LABELS, NS, _write, commit
from tests.helpers.maven_served import DEBIAN_REPOSITORY, MavenServer, publish, settings

PLUGIN = central.DEPENDENCY_PLUGIN.split(":")
needs_plugin = pytest.mark.skipif(
    not DEBIAN_REPOSITORY.joinpath(*PLUGIN[0].split("."), PLUGIN[1], PLUGIN[2]).is_dir(),
    reason=f"Debian's libmaven-dependency-plugin-java {PLUGIN[2]} is not installed (make java-extras)",
)

GREETING = (
    "package org.example.greeting;\n\npublic final class Greeting {\n    public static String of(String who) {\n"
    '        return org.example.words.Words.hello() + " " + who;\n    }\n}\n'
)
WORDS = (
    "package org.example.words;\n\npublic final class Words {\n    public static String hello() {\n"
    '        return "hi";\n    }\n}\n'
)


def served_repository(root: Path) -> Path:
    """org.example:greeting:1.0, which needs org.example:words:1.0, and a published org.example:core:1.0: the very
    coordinates of the reactor module under test, which must never be downloaded."""
    words = publish(root, "org.example:words:1.0", {"org/example/words/Words.java": WORDS})
    publish(
        root,
        "org.example:greeting:1.0",
        {"org/example/greeting/Greeting.java": GREETING},
        ("org.example:words:1.0",),
        (words,),
    )
    publish(
        root,
        "org.example:core:1.0",
        {
            "org/example/core/Names.java": "package org.example.core;\n\npublic final class Names {\n"
            '    public static String of(String what) {\n        return "published";\n    }\n}\n'
        },
    )
    return root


def central_reactor(root: Path, greets: bool = True) -> Path:
    """A reactor: ``app`` depends on its sibling ``core`` (not downloaded: compiled from the tree), which depends on
    greeting from the served repository (and through it on words); unless *greets*, core declares greeting without
    using it."""
    parent = f"""<project {NS}><modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId><artifactId>parent</artifactId><version>1.0</version><packaging>pom</packaging>
  <modules><module>core</module><module>app</module></modules>
  <build><extensions><extension><groupId>org.nowhere</groupId><artifactId>no-such-extension</artifactId>
    <version>1.0</version></extension></extensions></build>
</project>
"""
    core = f"""<project {NS}><modelVersion>4.0.0</modelVersion>
  <parent><groupId>org.example</groupId><artifactId>parent</artifactId><version>1.0</version></parent>
  <artifactId>core</artifactId>
  <dependencies><dependency><groupId>org.example</groupId><artifactId>greeting</artifactId><version>1.0</version>
  </dependency></dependencies>
</project>
"""
    app = f"""<project {NS}><modelVersion>4.0.0</modelVersion>
  <parent><groupId>org.example</groupId><artifactId>parent</artifactId><version>1.0</version></parent>
  <artifactId>app</artifactId>
  <dependencies><dependency><groupId>org.example</groupId><artifactId>core</artifactId><version>1.0</version>
  </dependency>{JUNIT}</dependencies>
</project>
"""
    names = (
        "package org.example.core;\n\npublic final class Names {\n    public static String of(String what) {\n"
        "        return org.example.greeting.Greeting.of(what);\n    }\n}\n"
    )
    if not greets:
        names = names.replace("org.example.greeting.Greeting.of(what)", '"hi " + what')
    _write(
        root,
        {
            "pom.xml": parent,
            "core/pom.xml": core,
            "app/pom.xml": app,
            "core/src/main/java/org/example/core/Names.java": names,
            "app/src/main/java/org/example/app/Counter.java": COUNTER.format(
                package="app", label='org.example.core.Names.of("counter")'
            ),
            "app/src/main/java/org/example/app/Labels.java": LABELS.format(package="app"),
            "app/src/test/java/org/example/app/CounterTest.java": COUNTER_TEST.format(
                package="app", expected='"hi counter:1"'
            ),
        },
    )
    return root


@pytest.fixture
def cache(monkeypatch) -> Path:
    """A benchsmith cache of the test's own (its Maven local repository empty), readable by the sandbox's uid."""
    folder = Path(os.environ["BENCHSMITH_CACHE"]) / f"central-{os.urandom(4).hex()}"
    folder.mkdir(mode=0o755)
    monkeypatch.setenv("BENCHSMITH_CACHE", str(folder))
    monkeypatch.delenv("BENCHSMITH_OFFLINE")
    return folder


def build(repo: Path, out: Path, *extra: str):
    head = commit(repo) if not (repo / ".git").is_dir() else ""
    head = (
        head
        or subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    return run_benchsmith(
        "classbench", "build", "--language", "java", "--repo", str(repo), "--commit", head,
        "--module", "app", "--out", str(out), *extra,
    )  # fmt: skip


@needs_plugin
@pytest.mark.java
@pytest.mark.slow
@pytest.mark.timeout(1200)  # a build and a workspace, each resolving with Maven; 200 s at a load average of 25
def test_a_reactor_module_is_resolved_from_a_served_repository_recorded_and_made_again_offline(
    tmp_path, cache, monkeypatch
):
    served = served_repository(tmp_path / "served")
    repo = central_reactor(tmp_path / "reactor")
    out = tmp_path / "app.parquet"
    with MavenServer(served) as server:
        monkeypatch.setenv("BENCHSMITH_MAVEN_SETTINGS", str(settings(tmp_path / "settings.xml", server.url)))
        completed = build(repo, out)
    assert completed.returncode == 0, completed.stderr[-3000:]
    card = json.loads(out.with_suffix(".card.json").read_text())
    assert card["classpath_source"] == "central" and card["sibling_modules"] == ["core"]
    coordinates = card["resolved_coordinates"]
    # core's dependencies after app's own, the transitive words too; JUnit is the runner's, so not on the path
    assert coordinates == ["org.example:greeting:1.0", "org.example:words:1.0"], coordinates
    repository = cache / "maven" / "repository"
    assert card["libraries"][-2:] == [
        str(repository / "org/example/greeting/1.0/greeting-1.0.jar"),
        str(repository / "org/example/words/1.0/words-1.0.jar"),
    ]
    assert card["classpath_notes"][0] == f"resolved by Maven into {repository}", card["classpath_notes"]
    # The pom's JUnit 4.13.2 (Debian's, served) runs the tests, ahead of the runner's own.
    assert card["classpath_notes"][1].startswith("the pom's JUnit 4 ahead of the runner's: junit-4.13.2.jar")
    # The reactor's own module is compiled from the tree: its published copy was never asked for.
    assert not [p for p in server.requested if p.startswith("org/example/core/")], server.requested
    assert not (repository / "org/example/core").exists()
    # Nothing went to ~/.m2.
    assert not (Path.home() / ".m2" / "repository" / "org" / "example" / "greeting").exists()
    assert card["solution_checks"]["org.example.app.Counter"]["gold"] == "plausible"
    task = next(iter(read_records(out, ClassBenchTask)))
    setup = JavaSetup.from_json(task.setup)
    assert list(setup.resolved) == coordinates

    # The workspace made again with the server gone: Maven offline, from the same local repository, the same class
    # path; a setup that recorded another one stops, naming the first difference.
    shutil.rmtree(cache / "classbench-java" / "workspaces")
    monkeypatch.setenv("BENCHSMITH_OFFLINE", "1")
    tree = cache / "checkout"
    shutil.copytree(repo, tree, ignore=shutil.ignore_patterns(".git"))
    made = java_workspace(tree, "dir-checkout", JavaSetup(module="app"))
    assert made.setup.classpath == "central" and list(made.setup.resolved) == coordinates
    assert made.classpath_notes[0] == f"resolved by Maven offline (-o) from {repository}"
    assert [Path(j).name for j in made.workspace.junit_hamcrest][0] == "junit-4.13.2.jar"
    changed = JavaSetup(module="app", resolved=("org.example:greeting:1.0", "org.example:words:0.9"))
    with pytest.raises(BenchsmithError, match=r"entry 2: org.example:words:1.0 where org.example:words:0.9 was"):
        java_workspace(tree, "dir-checkout", changed)


@needs_plugin
@pytest.mark.java
@pytest.mark.slow
def test_an_unreachable_repository_falls_back_to_the_path_at_hand_and_the_card_says_why(tmp_path, cache, monkeypatch):
    repo = central_reactor(tmp_path / "reactor", greets=False)
    with MavenServer(tmp_path / "nothing") as server:  # a port that answers nothing once the server is gone
        url = server.url
    monkeypatch.setenv("BENCHSMITH_MAVEN_SETTINGS", str(settings(tmp_path / "settings.xml", url)))
    out = tmp_path / "app.parquet"
    completed = build(repo, out)
    assert completed.returncode == 0, completed.stderr[-3000:]
    card = json.loads(out.with_suffix(".card.json").read_text())
    assert card["classpath_source"] == "maven-repo" and card["resolved_coordinates"] == []
    notes = card["classpath_notes"]
    assert notes[0].startswith("central: ") and "offline: " in notes[0] and notes[0].endswith("(not used)"), notes
    assert "127.0.0.1" in notes[0] or "offline" in notes[0]
    # Debian has no greeting: the artifact is named; nothing uses it, so the gold still passes.
    assert "org.example:greeting:1.0" in card["missing_artifacts"]
    assert card["solution_checks"]["org.example.app.Counter"]["gold"] == "plausible"


def test_the_poms_maven_resolves_keep_no_extension_no_dependency_plugin_and_no_reactor_dependency(tmp_path):
    pom = f"""<project {NS}><modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId><artifactId>one</artifactId><version>1</version><packaging>bundle</packaging>
  <dependencies>
    <dependency><groupId>${{project.groupId}}</groupId><artifactId>two</artifactId><version>1</version></dependency>
    <dependency><groupId>${{project.parent.groupId}}</groupId><artifactId>three</artifactId></dependency>
    <dependency><groupId>${{a.parents.property}}</groupId><artifactId>four</artifactId></dependency>
    <dependency><groupId>org.other</groupId><artifactId>lib</artifactId><version>2</version></dependency>
  </dependencies>
  <build>
    <extensions><extension><groupId>kr.motd.maven</groupId><artifactId>os-maven-plugin</artifactId></extension>
    </extensions>
    <plugins>
      <plugin><groupId>org.apache.felix</groupId><artifactId>maven-bundle-plugin</artifactId>
        <extensions>true</extensions></plugin>
      <plugin><artifactId>maven-dependency-plugin</artifactId><dependencies><dependency><groupId>evil</groupId>
        <artifactId>evil</artifactId><version>1</version></dependency></dependencies></plugin>
    </plugins>
  </build>
  <profiles><profile><id>p</id><build><pluginManagement><plugins><plugin>
    <artifactId>maven-dependency-plugin</artifactId></plugin></plugins></pluginManagement></build></profile></profiles>
</project>
"""
    _write(
        tmp_path / "repo",
        {
            "pom.xml": pom,
            "two/pom.xml": f"<project {NS}><modelVersion>4.0.0</modelVersion><groupId>org.example</groupId>"
            "<artifactId>two</artifactId><version>1</version></project>",
            "three/pom.xml": f"<project {NS}><modelVersion>4.0.0</modelVersion><groupId>org.example</groupId>"
            "<artifactId>three</artifactId><version>1</version></project>",
            "four/pom.xml": f"<project {NS}><modelVersion>4.0.0</modelVersion><groupId>org.example</groupId>"
            "<artifactId>four</artifactId><version>1</version></project>",
            "src/test/resources/pom.xml": "<project><artifactId>a-fixture-not-a-module</artifactId></project>",
            ".mvn/extensions.xml": "<extensions/>",
            "src/main/java/A.java": "class A {}",
        },
    )
    reactor = central.copy_poms(tmp_path / "repo", tmp_path / "copy")
    assert reactor == {("org.example", name) for name in ("one", "two", "three", "four")}
    # poms only: no sources, no .mvn/, no test fixtures
    copied = sorted(str(p.relative_to(tmp_path / "copy")) for p in (tmp_path / "copy").rglob("*") if p.is_file())
    assert copied == ["four/pom.xml", "pom.xml", "three/pom.xml", "two/pom.xml"]
    text = (tmp_path / "copy" / "pom.xml").read_text()
    root = ElementTree.fromstring(text)
    assert root.tag == f"{{{central.POM_NS}}}project" and "ns0:" not in text  # Maven's reader is not namespace-aware
    assert "<packaging>jar</packaging>" in text
    for gone in ("os-maven-plugin", "<extensions>", "maven-dependency-plugin", "evil", "two<", "three<", "four<"):
        assert gone not in text, gone
    assert "<artifactId>lib</artifactId>" in text and "maven-bundle-plugin" in text


def test_coordinates_are_read_off_the_local_repositorys_layout(tmp_path):
    repository = tmp_path / "repository"
    jar = repository / "org/example/lib/1.2/lib-1.2-tests.jar"
    assert central.coordinates_of(jar, repository) == "org.example:lib:1.2:tests"
    assert central.coordinates_of(repository / "a/b/c/3/c-3.jar", repository) == "a.b:c:3"
    assert central.coordinates_of(tmp_path / "elsewhere.jar", repository) == str(tmp_path / "elsewhere.jar")


def test_mockitos_inline_mock_maker_is_left_off_and_said_so():
    jars = ["/r/mockito-core-4.6.1.jar", "/r/mockito-inline-4.6.1.jar", "/r/objenesis-3.2.jar"]
    coordinates = ["org.mockito:mockito-core:4.6.1", "org.mockito:mockito-inline:4.6.1", "org.objenesis:objenesis:3.2"]
    kept, named, notes = without_inline_mock_maker(jars, coordinates)
    assert kept == [jars[0], jars[2]] and named == [coordinates[0], coordinates[2]]
    assert notes == [
        "org.mockito:mockito-inline:4.6.1 left off: its inline mock maker attaches an agent, which the test JVMs "
        "withhold (jdk.attach); Mockito's subclass mock maker runs"
    ]
    assert without_inline_mock_maker(jars[:1], coordinates[:1]) == (jars[:1], coordinates[:1], [])


def test_a_class_path_recorded_otherwise_names_the_first_difference():
    central.check_same([], ["a:b:1"], "here")  # nothing recorded yet: a first build
    central.check_same(["a:b:1"], ["a:b:1"], "here")
    with pytest.raises(BenchsmithError, match=r"here: .* c:d:2 only resolved now \(1 entries recorded, 2 resolved\)"):
        central.check_same(["a:b:1"], ["a:b:1", "c:d:2"], "here")


@pytest.mark.online
@pytest.mark.skipif(
    os.environ.get("BENCHSMITH_ONLINE") != "1", reason="resolves from Maven Central: BENCHSMITH_ONLINE=1"
)
def test_a_module_resolves_from_maven_central_itself(tmp_path, cache, monkeypatch):
    monkeypatch.delenv("BENCHSMITH_MAVEN_SETTINGS", raising=False)
    pom = (
        f"<project {NS}><modelVersion>4.0.0</modelVersion><groupId>org.example</groupId><artifactId>online</artifactId>"
        "<version>1</version><dependencies><dependency><groupId>org.apache.commons</groupId>"
        "<artifactId>commons-text</artifactId><version>1.12.0</version></dependency></dependencies></project>"
    )
    _write(tmp_path / "online", {"pom.xml": pom})
    resolved = central.resolve(tmp_path / "online", "", [], offline=False)
    assert resolved.coordinates == ["org.apache.commons:commons-text:1.12.0", "org.apache.commons:commons-lang3:3.14.0"]
    assert not resolved.offline and all(Path(j).is_file() for j in resolved.jars)
