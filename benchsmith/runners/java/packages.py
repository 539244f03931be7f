"""Jars of Debian's Maven repository found by the Java packages a module imports.

The ``maven-repo`` class path takes the dependencies a pom declares, at the version Debian has, and their own
dependencies as Debian's poms state them. A library that a newer version of a declared dependency brings, and
Debian's older one does not, is then missing though Debian has it: zouzhiy-excel uses commons-io, which Apache
POI 5 brings and Debian's POI 4 does not. Such a module imports a package that neither its own sources nor its
class path hold; the jar of Debian's repository that holds the package is added, and recorded with the packages
it was added for.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from collections import Counter
from pathlib import Path

from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.config import cache_dir
from benchsmith.runners.java.toolchain import DEBIAN_MAVEN_REPO, junit_classpath, library_jars, platform_classpath

_IMPORT = re.compile(r"^\s*import\s+(?:static\s+)?([\w.]+?)(?:\.\*)?\s*;", re.M)
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
INDEX_FORMAT = 2
# The JDK's own packages: a jar holding some of them (xml-apis) is never what a module lacks.
_PLATFORM = ("java.", "jdk.", "sun.", "com.sun.", "org.w3c.", "org.xml.sax", "org.ietf.", "org.omg.")


def imported_packages(roots: list[Path]) -> dict[str, set[str]]:
    """The packages the Java files under *roots* import (a name's leading lower-case segments), and the packages
    those files declare (``""`` key): the module's own."""
    imported: dict[str, set[str]] = {"": set()}
    for root in roots:
        for path in sorted(root.rglob("*.java")) if root.is_dir() else []:
            text = path.read_text(encoding="utf-8", errors="replace")
            declared = _PACKAGE.search(text)
            if declared:
                imported[""].add(declared[1])
            for name in _IMPORT.findall(text):
                package = ".".join(_leading_lower(name.split(".")))
                if package:
                    imported.setdefault(package, set()).add(str(path))
    return imported


def _leading_lower(segments: list[str]) -> list[str]:
    taken = []
    for segment in segments:
        if segment[:1].isupper():
            break
        taken.append(segment)
    return taken


def jar_packages(jar: Path) -> dict[str, int]:
    """The packages of *jar*'s classes, with how many classes each has."""
    try:
        with zipfile.ZipFile(jar) as archive:
            names = archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return {}
    return dict(
        Counter(
            name.rpartition("/")[0].replace("/", ".")
            for name in names
            if name.endswith(".class") and "/" in name and not name.startswith("META-INF/")
        )
    )


def package_index(repo: Path = DEBIAN_MAVEN_REPO) -> dict[str, str]:
    """package -> the jar (newest version of its artifact) of *repo* that holds it; cached per set of jars."""
    jars = library_jars(repo) if repo.is_dir() else []
    digest = hashlib.sha256("\n".join(str(j) for j in jars).encode()).hexdigest()[:16]
    stored = cache_dir("java-packages") / f"{digest}.json"
    if stored.is_file():
        try:
            data = json.loads(stored.read_text())
            if data.get("format") == INDEX_FORMAT:
                return data["packages"]
        except (ValueError, KeyError):
            pass
    # A package goes to the jar holding most of its classes: slf4j-api's org.slf4j, not the few classes that
    # maven-embedder repackages in it.
    counts: dict[str, tuple[int, str]] = {}
    for jar in jars:
        for package, classes in jar_packages(jar).items():
            if classes > counts.get(package, (0, ""))[0]:
                counts[package] = (classes, str(jar))
    index = {package: jar for package, (_, jar) in counts.items()}
    write_text_atomic(stored, json.dumps({"format": INDEX_FORMAT, "packages": index}))
    return index


def merge_packages(into: dict[str, list[str]], more: dict[str, list[str]]) -> None:
    """Add *more*'s jar -> packages to *into*, each package once per jar (a module's and its siblings' findings)."""
    for jar, packages in more.items():
        known = into.setdefault(jar, [])
        known.extend(p for p in packages if p not in known)


def jars_for_imports(
    module: Path, roots: list[str], libraries: list[str], repo: Path = DEBIAN_MAVEN_REPO
) -> dict[str, list[str]]:
    """jar -> the packages it was added for: packages the sources under *module*'s *roots* (its main and test roots,
    relative, as the Maven model gives them) import that neither its own sources, *libraries* nor the runner's JUnit
    hold, and *repo* does."""
    imported = imported_packages([module / root for root in roots])
    own = imported.pop("")
    # the runner's JUnit is on every class path, and never a second copy of it (see TEST_FRAMEWORK in java_classpath)
    present = [*libraries, *map(str, junit_classpath()), *map(str, platform_classpath())]
    held = {package for jar in present for package in jar_packages(Path(jar))}
    wanted = {p for p in imported if p not in own and p not in held and not p.startswith(_PLATFORM)}
    if not wanted:
        return {}
    index = package_index(repo)
    added: dict[str, list[str]] = {}
    for package in sorted(wanted):
        if package in index and index[package] not in libraries:
            added.setdefault(index[package], []).append(package)
    return added
