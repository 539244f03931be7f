"""The dependency jars of a Maven module, for Java classbench's workspaces; one of, in this order:

* ``central``: Maven itself resolves the module's dependencies, at the versions its poms declare, into benchsmith's
  own local repository (:mod:`benchsmith.runners.java.central`); offline, or where the repositories cannot be
  reached, from what that local repository holds (``mvn -o``);
* ``maven``: ``mvn -o dependency:build-classpath`` of the module against the user's local repository (``~/.m2``),
  read and never written: offline, so Maven downloads nothing into it;
* ``folder``: every jar of a folder the user names (``--classpath-dir``);
* ``maven-repo``: the dependencies the module's model (:mod:`benchsmith.sources.java.maven`) declares, one jar each,
  looked up in Debian's ``/usr/share/maven-repo`` (the version the pom names, else the nearest below it, else the
  newest), with what those jars' own poms need at run time.

The test frameworks are left off the class path: the runner brings its own JUnit 4 and 5. Where ``central`` resolved
the pom's own JUnit 4 (4.12 or later) and Hamcrest, those go ahead of the runner's (:attr:`ClassPath.test_framework`).
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
from benchsmith.runners.java import central
from benchsmith.runners.java.toolchain import JAR_NAME, library_jars
from benchsmith.sources.java.maven import Dependency, MavenModel, read_pom

log = logging.getLogger(__name__)

CLASSPATH_SOURCES = ("central", "maven", "folder", "maven-repo")
DEBIAN_MAVEN_REPO = Path("/usr/share/maven-repo")
# Artifacts the runner brings itself, whatever version a pom names: two copies of JUnit on one class path would
# decide which engine runs a test by class path order.
TEST_FRAMEWORK = re.compile(
    r"^(junit|junit-jupiter.*|junit-platform.*|junit-vintage.*|hamcrest.*|opentest4j|apiguardian-api)$"
)
# Of those, what the runner's JUnit 4 runs with when the pom names it: JUnit 4.12 on, and Hamcrest.
_POM_JUNIT4 = re.compile(r"^(junit:junit:4\.(1[2-9]|[2-9]\d)\b.*|org\.hamcrest:hamcrest[\w-]*:.*)$")


@dataclass(frozen=True)
class ClassPath:
    source: str  # one of CLASSPATH_SOURCES
    jars: list[str]
    missing: list[str] = field(default_factory=list)  # group:artifact:version declared, no jar found (maven-repo)
    coordinates: list[str] = field(default_factory=list)  # group:artifact:version[:classifier] of each jar (central)
    test_framework: list[str] = field(default_factory=list)  # the pom's JUnit 4 and Hamcrest jars (central)
    notes: list[str] = field(default_factory=list)  # how it was resolved, each source tried before it


def resolve_classpath(
    module: Path,
    model: MavenModel,
    source: str = "",
    folder: str = "",
    skip: frozenset[tuple[str, str]] = frozenset(),
    tree: Path | None = None,
    siblings: tuple[str, ...] = (),
) -> ClassPath:
    """The module's dependency jars, test scope, without the test frameworks; *skip* names (group, artifact) pairs
    the build provides itself (the reactor's sibling modules, *siblings* their folders in *tree*, the repository)."""
    tried = []
    order = [source] if source else [s for s in CLASSPATH_SOURCES if s != "folder" or folder]
    for name in order:
        if name not in CLASSPATH_SOURCES:
            raise BenchsmithError(f"--classpath {name}: expected one of {', '.join(CLASSPATH_SOURCES)}")
        try:
            if name == "central":
                found = _central(module, tree or module, list(siblings))
            elif name == "maven":
                found = ClassPath(name, _maven(module))
            elif name == "folder":
                found = ClassPath(name, _folder(folder))
            else:
                found = maven_repo_classpath(model, skip)
        except BenchsmithError as exc:
            tried.append(f"{name}: {exc}")
            continue
        kept = [i for i, j in enumerate(found.jars) if not TEST_FRAMEWORK.match(_artifact_of(Path(j)))]
        if tried:
            log.info("%s: class path from %s (%s)", module, name, "; ".join(tried))
        return ClassPath(
            found.source,
            [found.jars[i] for i in kept],
            found.missing,
            [found.coordinates[i] for i in kept] if found.coordinates else [],
            found.test_framework,
            [*(f"{t} (not used)" for t in tried), *found.notes],
        )
    raise BenchsmithError(f"{module}: no class path could be resolved: {'; '.join(tried)}")


def _central(module: Path, tree: Path, siblings: list[str]) -> ClassPath:
    folder = str(module.resolve().relative_to(tree.resolve())) if module.resolve() != tree.resolve() else ""
    resolved = central.resolve(tree, folder, siblings)
    jars, coordinates, left_off = without_inline_mock_maker(resolved.jars, resolved.coordinates)
    framework = [j for j, c in zip(jars, coordinates) if _POM_JUNIT4.match(c)]
    if not any(c.startswith("junit:junit:") for c in coordinates if _POM_JUNIT4.match(c)):
        framework = []  # Hamcrest alone goes with the runner's own JUnit
    notes = [*resolved.notes, *left_off]
    if framework:
        notes.append(f"the pom's JUnit 4 ahead of the runner's: {', '.join(map(_name, framework))}")
    return ClassPath("central", jars, [], coordinates, framework, notes)


def without_inline_mock_maker(jars: list[str], coordinates: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The class path without Mockito 2 to 4's ``mockito-inline``, which holds only the configuration choosing the
    inline mock maker: that one attaches an agent to the running JVM, and the test JVMs withhold ``jdk.attach`` (an
    agent could redefine the runner's own classes), so every test that mocks failed to start its Mockito. Without
    it Mockito's subclass mock maker runs; a test that mocks a final class or a static method fails on its own.
    The jars, their coordinates, and a note for each left off."""
    kept = [i for i, c in enumerate(coordinates) if not c.startswith("org.mockito:mockito-inline:")]
    notes = [
        f"{coordinates[i]} left off: its inline mock maker attaches an agent, which the test JVMs withhold "
        "(jdk.attach); Mockito's subclass mock maker runs"
        for i in range(len(coordinates))
        if i not in kept
    ]
    return [jars[i] for i in kept], [coordinates[i] for i in kept], notes


def _name(jar: str) -> str:
    return Path(jar).name


def _artifact_of(jar: Path) -> str:
    match = JAR_NAME.match(jar.name)
    return match["artifact"] if match else jar.stem


def _maven(module: Path) -> list[str]:
    """``mvn -o`` against the user's local repository: it reads ``~/.m2`` and, offline, downloads nothing into it
    (``central`` resolves online, into benchsmith's own)."""
    mvn = shutil.which("mvn")
    if not mvn:
        raise BenchsmithError("mvn is not installed")
    if not (module / "pom.xml").is_file():
        raise BenchsmithError("no pom.xml")
    local = Path.home() / ".m2" / "repository"
    if not local.is_dir():  # nothing to read, and Maven would make the folder
        raise BenchsmithError(f"{local} does not exist")
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
