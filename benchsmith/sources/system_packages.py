"""The Debian package that provides a file a build looked for, looked up in Debian's Contents indexes, and its
installation with apt-get.

The indexes are apt's own (``apt-file update`` has apt fetch them into /var/lib/apt/lists, as
``apt-get indextargets`` lists them), or the one at ``$BENCHSMITH_DEBIAN_CONTENTS_URL`` when that is set (tests serve
one from loopback). Nothing here is a table of known names: a header, library, pkg-config module or program is
found by its path in the index, the best match kept (a ``-dev`` package's file at the standard place before a
copy deeper down).
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import re
import shutil
import subprocess
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError

log = logging.getLogger(__name__)

CONTENTS_URL_VARIABLE = "BENCHSMITH_DEBIAN_CONTENTS_URL"
_APT_HELPER = "/usr/lib/apt/apt-helper"
LOCK_WAIT_SECONDS = 900
_LIBRARY_DIRS = r"(usr/)?lib(/[a-z0-9_]+-linux-gnu[a-z0-9_]*)?"


@dataclass(frozen=True)
class MissingFile:
    """A file a build looked for and this machine lacks."""

    kind: str  # "header", "library", "shared object", "pkg-config module", "program"
    name: str  # "graphviz/cgraph.h", "libcgraph.so", "libxml-2.0.pc", "pg_config"

    def describe(self) -> str:
        return f"the {self.kind} {self.name}"


def contents_pattern(missing: MissingFile) -> str:
    """The extended regular expression, over a Contents index's paths, of the places *missing* is installed to."""
    name = re.escape(missing.name)
    if missing.kind == "header":
        return rf"usr/include/(.+/)?{name}"
    if missing.kind in ("library", "shared object"):
        return rf"{_LIBRARY_DIRS}/{name}"
    if missing.kind == "pkg-config module":
        return rf"({_LIBRARY_DIRS}|usr/share)/pkgconfig/{name}"
    return rf"(usr/)?s?bin/{name}"  # a program


def debian_package(missing: MissingFile, update: bool = False) -> str | None:
    """The Debian package that provides *missing*, or None when no index names one (or there is no index here and
    *update* does not allow fetching apt's: ``apt-file update``)."""
    pattern = contents_pattern(missing)
    matches: list[tuple[str, str]] = []
    for index in contents_indexes(update):
        matches += _search(index, pattern)
    if not matches:
        return None

    def rank(match: tuple[str, str]) -> tuple:
        path, package = match
        return (not package.endswith("-dev"), path.count("/"), len(path), package)

    return min(matches, key=rank)[1]


def contents_indexes(update: bool = False) -> list[Path]:
    """The Contents indexes to search: the one at ``$BENCHSMITH_DEBIAN_CONTENTS_URL`` (fetched once into the cache),
    else apt's (fetched by ``apt-file update`` first when there are none and *update* allows it)."""
    url = os.environ.get(CONTENTS_URL_VARIABLE)
    if url:
        digest = hashlib.sha256(url.encode()).hexdigest()[:16]
        path = cache_dir("debian-contents") / f"{digest}-{url.rstrip('/').rsplit('/', 1)[-1]}"
        if not path.is_file():
            try:
                with urllib.request.urlopen(url, timeout=60) as response:
                    path.write_bytes(response.read())
            except OSError as exc:
                raise BenchsmithError(f"{CONTENTS_URL_VARIABLE}={url}: cannot read the Contents index: {exc}") from exc
        return [path]
    found = _apt_indexes()
    if not found and update:
        if shutil.which("apt-file") is None:
            install(["apt-file"])
        completed = subprocess.run(["apt-file", "update"], capture_output=True, text=True)
        if completed.returncode != 0:
            raise BenchsmithError(f"apt-file update failed: {' '.join(completed.stderr.split())[-300:]}")
        found = _apt_indexes()
    return found


def _apt_indexes() -> list[Path]:
    if shutil.which("apt-get") is None:
        return []
    listing = subprocess.run(
        ["apt-get", "indextargets", "--format", "$(FILENAME)", "Created-By: Contents-deb"],
        capture_output=True,
        text=True,
    )
    return [Path(line) for line in listing.stdout.split() if Path(line).is_file()]


def _search(index: Path, pattern: str) -> list[tuple[str, str]]:
    """(path, package) of each line of *index* whose path matches *pattern* in full (the packages column holds
    ``section/package[,section/package]``)."""
    if Path(_APT_HELPER).exists():  # apt's reader: every compression apt fetches (lz4, xz, gz, zst)
        reader = subprocess.Popen([_APT_HELPER, "cat-file", str(index)], stdout=subprocess.PIPE)
        source = reader.stdout
    else:
        reader, source = None, (gzip.open if index.suffix == ".gz" else open)(index, "rb")
    try:
        grep = subprocess.run(
            ["grep", "-E", f"^({pattern})[[:space:]]+[^[:space:]]+$"], stdin=source, capture_output=True, text=True
        )
    finally:
        source.close()
        if reader is not None:
            reader.wait()
    found = []
    for line in grep.stdout.splitlines():
        path, packages = line.rsplit(None, 1)
        found += [(path.strip(), entry.rsplit("/", 1)[-1]) for entry in packages.split(",")]
    return found


def install(packages: list[str]) -> None:
    """``apt-get install`` *packages* (root only); a one-line error naming them when it fails."""
    if os.geteuid() != 0:
        raise BenchsmithError(f"installing {', '.join(packages)} needs root (apt-get install)")
    log.info("installing the Debian packages %s", ", ".join(packages))
    environ = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    # another apt-get on the machine holds dpkg's lock for a while: wait for it rather than fail
    lock = f"-oDPkg::Lock::Timeout={LOCK_WAIT_SECONDS}"
    command = ["apt-get", lock, "install", "-y", "-qq", "--no-install-recommends", *packages]
    completed = subprocess.run(command, capture_output=True, text=True, env=environ)
    if completed.returncode != 0 and "Unable to locate package" in completed.stderr:
        subprocess.run(["apt-get", lock, "update", "-qq"], capture_output=True, env=environ)
        completed = subprocess.run(command, capture_output=True, text=True, env=environ)
    if completed.returncode != 0:
        raise BenchsmithError(
            f"apt-get install {' '.join(packages)} failed: {' '.join(completed.stderr.split())[-300:]}"
        )


def installed(package: str) -> bool:
    """Whether Debian package *package* is installed here."""
    completed = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", package], capture_output=True, text=True)
    return completed.returncode == 0 and completed.stdout.strip().endswith(" installed")
