"""The dependency jars of a Maven module, for Java classbench's workspaces; one of, in this order:

* ``maven``: ``mvn dependency:build-classpath`` of the module, offline against the user's local repository
  (``~/.m2``), or online (``BENCHSMITH_MAVEN_ONLINE``) where Maven can reach its repositories;
* ``folder``: every jar of a folder the user names (``--classpath-dir``);
* ``maven-repo``: the dependencies the module's model (:mod:`benchsmith.sources.java.maven`) declares, one jar each,
looked up in
  Debian's ``/usr/share/maven-repo`` (the version the pom names, else the nearest below it, else the newest), with
  what those jars' own poms need at run time.

The test frameworks are left off: the runner brings its own JUnit 4 and 5.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.java.toolchain import JAR_NAME, library_jars
from benchsmith.sources.java.maven import Dependency, MavenModel, read_pom

log = logging.getLogger(__name__)

CLASSPATH_SOURCES = ("maven", "folder", "maven-repo")
DEBIAN_MAVEN_REPO = Path("/usr/share/maven-repo")
# Artifacts the runner brings itself, whatever version a pom names: two copies of JUnit on one class path would
# decide which engine runs a test by class path order.
TEST_FRAMEWORK = re.compile(
    r"^(junit|junit-jupiter.*|junit-platform.*|junit-vintage.*|hamcrest.*|opentest4j|apiguardian-api)$"
)


@dataclass(frozen=True)
class ClassPath:
    source: str  # one of CLASSPATH_SOURCES
    jars: list[str]
    missing: list[str] = field(default_factory=list)  # group:artifact:version declared, no jar found (maven-repo)


def resolve_classpath(
    module: Path, model: MavenModel, source: str = "", folder: str = "", skip: frozenset[tuple[str, str]] = frozenset()
) -> ClassPath:
    """The module's dependency jars, test scope, without the test frameworks; *skip* names (group, artifact) pairs
    the build provides itself (the reactor's sibling modules)."""
    tried = []
    order = [source] if source else [s for s in CLASSPATH_SOURCES if s != "folder" or folder]
    for name in order:
        if name not in CLASSPATH_SOURCES:
            raise BenchsmithError(f"--classpath {name}: expected one of {', '.join(CLASSPATH_SOURCES)}")
        try:
            if name == "maven":
                found = ClassPath(name, _maven(module))
            elif name == "folder":
                found = ClassPath(name, _folder(folder))
            else:
                found = maven_repo_classpath(model, skip)
        except BenchsmithError as exc:
            tried.append(f"{name}: {exc}")
            continue
        jars = [j for j in found.jars if not TEST_FRAMEWORK.match(_artifact_of(Path(j)))]
        if tried:
            log.info("%s: class path from %s (%s)", module, name, "; ".join(tried))
        return ClassPath(found.source, jars, found.missing)
    raise BenchsmithError(f"{module}: no class path could be resolved: {'; '.join(tried)}")


def _artifact_of(jar: Path) -> str:
    match = JAR_NAME.match(jar.name)
    return match["artifact"] if match else jar.stem


def _maven(module: Path) -> list[str]:
    mvn = shutil.which("mvn")
    if not mvn:
        raise BenchsmithError("mvn is not installed")
    if not (module / "pom.xml").is_file():
        raise BenchsmithError("no pom.xml")
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "classpath.txt"
        argv = [
            mvn,
            "-B",
            "-q",
            "-o",
            "dependency:build-classpath",
            "-Dmdep.includeScope=test",
            f"-Dmdep.outputFile={out}",
        ]
        if os.environ.get("BENCHSMITH_MAVEN_ONLINE"):
            argv.remove("-o")
        completed = subprocess.run(argv, cwd=module, capture_output=True, text=True, timeout=600)
        if completed.returncode != 0 or not out.is_file():
            error = next((ln for ln in completed.stdout.splitlines() if "[ERROR]" in ln), "mvn failed")
            raise BenchsmithError(error.replace("[ERROR]", "").strip()[:200])
        return [entry for entry in out.read_text().strip().split(os.pathsep) if entry]


def _folder(folder: str) -> list[str]:
    path = Path(folder)
    if not path.is_dir():
        raise BenchsmithError(f"--classpath-dir {folder}: not a folder")
    return [str(jar.resolve()) for jar in sorted(path.rglob("*.jar"))]


def maven_repo_classpath(model: MavenModel, skip: frozenset[tuple[str, str]] = frozenset()) -> ClassPath:
    """The model's dependencies (every scope but ``system``; optional ones too, as Maven compiles with them) from
    Debian's Maven repository, then what those jars' poms need at run time (Mockito needs Byte Buddy, Objenesis)."""
    if not DEBIAN_MAVEN_REPO.is_dir():
        raise BenchsmithError(f"{DEBIAN_MAVEN_REPO} does not exist (Debian's maven-repo-helper packages)")
    queue = [
        d
        for d in model.dependencies
        if d.scope != "system"
        and d.kind in ("jar", "bundle", "test-jar")
        and (d.group, d.artifact) not in skip
        and not TEST_FRAMEWORK.match(d.artifact)
    ]
    seen = {d.artifact for d in queue}
    found, missing = [], []
    while queue:
        dependency = queue.pop(0)
        jar = _debian_jar(dependency)
        if jar is None:
            if dependency.scope != "transitive":
                missing.append(dependency.coordinates)
            continue
        found.append(str(jar))
        for pom in sorted(jar.parent.glob("*.pom"))[:1]:
            for needed in read_pom(pom, (DEBIAN_MAVEN_REPO,)).dependencies:
                if (
                    needed.scope in ("compile", "runtime")
                    and not needed.optional
                    and needed.artifact not in seen
                    and not TEST_FRAMEWORK.match(needed.artifact)
                ):
                    seen.add(needed.artifact)
                    queue.append(Dependency(needed.group, needed.artifact, needed.version, "transitive"))
    return ClassPath("maven-repo", found, missing)


def _debian_jar(dependency: Dependency) -> Path | None:
    folder = DEBIAN_MAVEN_REPO.joinpath(*dependency.group.split("."), dependency.artifact)
    # Debian files some artifacts under another group (hamcrest's, asm's): the artifact's folder anywhere then.
    folders = (
        [folder]
        if folder.is_dir()
        else [p for p in DEBIAN_MAVEN_REPO.rglob(dependency.artifact) if p.is_dir() and p.name == dependency.artifact]
    )
    version = dependency.version if "${" not in dependency.version else ""
    # library_jars reads a group's folder (<group>/<artifact>/<version>/): the artifact's own jar is kept.
    jars = [
        jar
        for f in folders
        for jar in library_jars(f.parent, {dependency.artifact: version})
        if jar.parent.parent.name == dependency.artifact and jar.resolve().is_file()
    ]
    return jars[0] if jars else None
