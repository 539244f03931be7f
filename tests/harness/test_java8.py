"""``make java8``: Debian unstable's Java 8 runtime, found in the suite's index, checked and unpacked
(benchsmith/runners/java/java8.py).

A local HTTP server stands in for the Debian mirror: a ``Packages.xz`` index in Debian's format and packages built
here with dpkg-deb. The real runtime is installed by ``make java8``; here its installation is driven to each of its
refusals, and the options a Java 8 JVM is given are checked.
"""

from __future__ import annotations

import functools
import hashlib
import lzma
import shutil
import subprocess
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.java import java8
from benchsmith.runners.java.toolchain import JavaRuntime

needs_dpkg = pytest.mark.skipif(
    shutil.which("dpkg-deb") is None or shutil.which("patchelf") is None,
    reason="dpkg-deb and patchelf build and patch the packages",
)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _deb(folder: Path, name: str, files: dict[str, str]) -> Path:
    root = folder / f"{name}-root"
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        f"Package: {name}\nVersion: 1.0\nArchitecture: amd64\n"
        "Maintainer: benchsmith <benchsmith@localhost>\nDescription: test\n"
    )
    deb = folder / "pool" / f"{name}_1.0_amd64.deb"
    deb.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["dpkg-deb", "--build", "--root-owner-group", str(root), str(deb)], check=True, capture_output=True)
    return deb


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    site = tmp_path / "mirror"
    # the runtime's package holds a java that is no JVM; the others a file each
    debs = {
        name: _deb(
            site,
            name,
            {java8.JRE + "/bin/java": "#!/bin/sh\necho not a JVM\n"}
            if "jre" in name
            else {f"usr/share/doc/{name}/README": name},
        )
        for name in java8.PACKAGES
    }
    digests = {name: hashlib.sha256(deb.read_bytes()).hexdigest() for name, deb in debs.items()}

    def publish(**overrides: str) -> None:
        stanzas = [
            f"Package: {name}\nVersion: 1.0\nFilename: pool/{deb.name}\nSHA256: {overrides.get(name, digests[name])}\n"
            for name, deb in debs.items()
            if overrides.get(name) != "absent"
        ]
        index = site / "dists" / java8.SUITE / "main" / "binary-amd64" / "Packages.xz"
        index.parent.mkdir(parents=True, exist_ok=True)
        index.write_bytes(lzma.compress("\n".join(stanzas).encode()))

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setattr(java8, "MIRROR", f"http://127.0.0.1:{server.server_address[1]}")
    yield publish
    server.shutdown()


@needs_dpkg
def test_a_package_the_index_lacks_is_named(mirror, tmp_path):
    mirror(libc6="absent")
    with pytest.raises(BenchsmithError, match=r"Packages.xz: lists no libc6"):
        java8.install(tmp_path / "java8")
    assert not (tmp_path / "java8").exists()


@needs_dpkg
def test_a_package_that_does_not_match_the_index_is_refused(mirror, tmp_path):
    mirror(**{"libstdc++6": "0" * 64})
    with pytest.raises(BenchsmithError, match=r"libstdc\+\+6_1.0_amd64.deb: does not match the SHA-256"):
        java8.install(tmp_path / "java8")
    assert not (tmp_path / "java8").exists() and not list(tmp_path.glob(".java8-*"))


@needs_dpkg
def test_a_runtime_that_cannot_be_patched_leaves_nothing(mirror, tmp_path):
    mirror()
    with pytest.raises(BenchsmithError, match="java: patchelf cannot point it at the folder's C library: .*ELF"):
        java8.install(tmp_path / "java8")
    assert not (tmp_path / "java8").exists() and java8.java8_home(tmp_path / "java8") is None


def test_a_runtime_copied_from_another_folder_is_named_not_run(tmp_path):
    # its programs name their loader by the folder they were made in: elsewhere exec fails with a bare ENOENT
    for folder, made_for in (("here", "here"), ("copy", "elsewhere")):
        java = tmp_path / folder / java8.JRE / "bin" / "java"
        java.parent.mkdir(parents=True)
        java.write_bytes(b"\x7fELF" + str(java8._loader((tmp_path / made_for).resolve())).encode() + b"\0")
    assert java8.java8_home(tmp_path / "here") == tmp_path / "here" / java8.JRE
    with pytest.raises(BenchsmithError, match=r"/copy: this Java 8 runtime was made for another folder .*make java8"):
        java8.java8_home(tmp_path / "copy")
    assert java8.java8_home(tmp_path / "none") is None


@pytest.mark.skipif(
    not (java8.HOME / java8.JRE / "bin" / "java").is_file(), reason="make java8 installs the real runtime"
)
def test_the_installed_runtime_is_patched_for_its_own_folder(tmp_path):
    java = tmp_path / java8.JRE / "bin" / "java"
    java.parent.mkdir(parents=True)
    shutil.copy(java8.HOME / java8.JRE / "bin" / "java", java)
    with pytest.raises(BenchsmithError, match="made for another folder"):
        java8.java8_home(tmp_path)


def test_java_8_is_given_no_module_options():
    eight, eleven = JavaRuntime("java", Path("/"), 8), JavaRuntime("java", Path("/"), 11)
    assert not any(o.startswith("--add-opens") or "security.manager" in o for o in eight.options())
    assert any(o.startswith("--add-opens") for o in eleven.options())
    assert "-Duser.timezone=America/Los_Angeles" in eight.options()
