"""The ``central`` class path: Maven itself resolves a module's dependencies into benchsmith's own local repository.

Maven runs one goal, ``build-classpath`` of a pinned maven-dependency-plugin (:data:`DEPENDENCY_PLUGIN`), on a copy
of the repository's poms alone: no sources, no ``.mvn/`` (its extensions and ``maven.config``), the build extensions
and every plugin's ``<extensions>`` dropped, the pom's own declarations of the dependency plugin dropped (their
``<dependencies>`` would join its class loader), a packaging only an extension defines read as ``jar``, and the
dependencies on the reactor's own modules dropped: those are compiled from the tree (:mod:`reactor`), never
downloaded, so that a published copy of the code under test never reaches a class path. A sibling's own
dependencies join the module's, its runtime ones, after the module's own (an artifact once, the nearest first).

Everything lands in ``<cache>/maven/repository`` (:func:`local_repository`), never in the user's ``~/.m2``. The
user's ``settings.xml`` (mirrors, proxies) is read as Maven reads it, or the one ``BENCHSMITH_MAVEN_SETTINGS``
names. Offline (``BENCHSMITH_OFFLINE``, ``classbench build --offline``), or where the online run fails, Maven runs
again with ``-o`` on the same local repository: what an earlier resolution left there. The class path is recorded
as coordinates (``group:artifact:version[:classifier]``), so that a rebuild elsewhere can check that it resolved
the same one (:func:`check_same`).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError

log = logging.getLogger(__name__)

# Debian packages the same release (libmaven-dependency-plugin-java), which the tests' loopback repository serves.
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.5.0"
POM_NS = "http://maven.apache.org/POM/4.0.0"
# Packagings Maven itself knows; any other (bundle, hk2-jar, ...) comes from a plugin extension, dropped here.
_PACKAGINGS = ("pom", "jar", "maven-plugin", "ejb", "war", "ear", "rar", "java-source", "javadoc")
_SKIPPED_FOLDERS = ("target", ".git", ".mvn", "node_modules", "src")
MAVEN_SECONDS = 1200


@dataclass(frozen=True)
class Resolved:
    jars: list[str]  # in class path order: the module's own, then its siblings' runtime ones
    coordinates: list[str]  # group:artifact:version[:classifier], one per jar
    offline: bool  # resolved with -o, from what the local repository held
    notes: list[str] = field(default_factory=list)  # how it was resolved, for the card


def local_repository() -> Path:
    """benchsmith's Maven local repository, shared by every resolution (only the jars of a task's class path ever
    reach its jail, one bind each: :mod:`benchsmith.runners.sandbox.jail`)."""
    return cache_dir("maven", "repository")


def offline_requested() -> bool:
    return os.environ.get("BENCHSMITH_OFFLINE", "") not in ("", "0")


def coordinates_of(jar: Path, repository: Path) -> str:
    """``group:artifact:version[:classifier]`` of a jar laid out in *repository*; its path when it is not there."""
    try:
        parts = jar.resolve().relative_to(repository.resolve()).parts
    except ValueError:
        return str(jar)
    if len(parts) < 4:
        return str(jar)
    group, artifact, version, name = ".".join(parts[:-3]), parts[-3], parts[-2], parts[-1]
    stem = name.rsplit(".", 1)[0]
    classifier = stem[len(f"{artifact}-{version}-") :] if stem.startswith(f"{artifact}-{version}-") else ""
    return ":".join([group, artifact, version, *([classifier] if classifier else [])])


def resolve(tree: Path, module: str, siblings: list[str], offline: bool | None = None) -> Resolved:
    """The test class path of *module* (a folder of *tree*, ``""`` its root), with the runtime class path of each of
    its reactor *siblings* (folders) after it, resolved by Maven. BenchsmithError names what failed."""
    mvn = shutil.which("mvn")
    if not mvn:
        raise BenchsmithError("mvn is not installed (make java installs it)")
    if not (tree / module / "pom.xml").is_file():
        raise BenchsmithError(f"{tree / module}: no pom.xml")
    offline = offline_requested() if offline is None else offline
    repository = local_repository()
    notes = []
    with tempfile.TemporaryDirectory(prefix="benchsmith-poms-") as scratch:
        copy = Path(scratch) / "poms"
        reactor = copy_poms(tree, copy)
        try:
            jars = _resolve_all(mvn, copy, module, siblings, repository, offline, reactor)
            notes.append(f"resolved by Maven {'offline (-o) from' if offline else 'into'} {repository}")
        except BenchsmithError as exc:
            if offline:
                raise
            notes.append(f"online resolution failed ({exc}); resolved offline (-o) from {repository}")
            try:
                jars = _resolve_all(mvn, copy, module, siblings, repository, True, reactor)
            except BenchsmithError as again:
                raise BenchsmithError(f"{exc}; offline: {again}") from None
            offline = True
    _readable(jars, repository)
    return Resolved(jars, [coordinates_of(Path(j), repository) for j in jars], offline, notes)


def _readable(jars: list[str], repository: Path) -> None:
    """The sandbox's uid reads each jar where its jail binds it, whatever umask Maven ran with."""
    for jar in map(Path, jars):
        if not jar.is_relative_to(repository):
            continue
        jar.chmod(jar.stat().st_mode | 0o444)
        for folder in jar.parents:
            if folder == repository.parent:
                break
            folder.chmod(folder.stat().st_mode | 0o555)


def _plugin_at_hand(repository: Path) -> None:
    """Offline, Maven can run only the plugin an earlier online resolution left in *repository*: said at once, rather
    than after a Maven start."""
    group, artifact, version = DEPENDENCY_PLUGIN.split(":")
    jar = repository.joinpath(*group.split("."), artifact, version, f"{artifact}-{version}.jar")
    if not jar.is_file():
        raise BenchsmithError(f"offline, and {repository} has no {DEPENDENCY_PLUGIN} yet (resolve once online)")


def _resolve_all(
    mvn: str,
    copy: Path,
    module: str,
    siblings: list[str],
    repository: Path,
    offline: bool,
    reactor: set[tuple[str, str]],
) -> list[str]:
    if offline:
        _plugin_at_hand(repository)
    jars: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for folder, scope in [(module, "test"), *((s, "runtime") for s in siblings)]:
        for jar in _build_classpath(mvn, copy / folder, scope, repository, offline):
            key = _artifact_key(Path(jar), repository)
            if key in seen or key[:2] in reactor:  # an artifact once, the nearest first; the reactor never from it
                continue
            seen.add(key)
            jars.append(jar)
    return jars


def _artifact_key(jar: Path, repository: Path) -> tuple[str, ...]:
    parts = coordinates_of(jar, repository).split(":")
    return (parts[0], parts[1], *parts[3:]) if len(parts) >= 3 else (str(jar), "")


def _build_classpath(mvn: str, module: Path, scope: str, repository: Path, offline: bool) -> list[str]:
    out = module / "target" / "benchsmith-classpath.txt"
    argv = [
        mvn,
        "-B",
        "-N",  # the module alone: its reactor's other modules are not resolved for it
        *(["-o"] if offline else []),
        *(["-s", os.environ["BENCHSMITH_MAVEN_SETTINGS"]] if os.environ.get("BENCHSMITH_MAVEN_SETTINGS") else []),
        f"-Dmaven.repo.local={repository}",
        "-Dmaven.wagon.rto=60000",
        "-Dmaven.wagon.http.retryHandler.count=2",
        f"{DEPENDENCY_PLUGIN}:build-classpath",
        f"-Dmdep.includeScope={scope}",
        f"-Dmdep.outputFile={out}",
        "-Dmdep.pathSeparator=" + os.pathsep,
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("MAVEN_OPTS", "MAVEN_ARGS")}
    try:
        completed = subprocess.run(
            argv, cwd=module, capture_output=True, text=True, timeout=MAVEN_SECONDS, env=env, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        raise BenchsmithError(f"mvn did not resolve {module.name} in {MAVEN_SECONDS}s") from None
    if completed.returncode != 0 or not out.is_file():
        raise BenchsmithError(_first_error(completed.stdout) or f"mvn exited {completed.returncode}")
    return [entry for entry in out.read_text().strip().split(os.pathsep) if entry]


def _first_error(output: str) -> str:
    errors = [ln.replace("[ERROR]", "").strip() for ln in output.splitlines() if ln.startswith("[ERROR]")]
    errors = [e for e in errors if e and not e.startswith(("To see the full", "Re-run Maven", "For more information"))]
    return errors[0][:300] if errors else ""


def copy_poms(tree: Path, into: Path) -> set[tuple[str, str]]:
    """Every ``pom.xml`` of *tree* (outside build output, history, ``.mvn/`` and source folders) copied to the same
    place under *into*, made safe to resolve (see the module's text); the reactor's (groupId, artifactId) pairs."""
    poms = [p for p in sorted(tree.rglob("pom.xml")) if not set(p.relative_to(tree).parts[:-1]) & set(_SKIPPED_FOLDERS)]
    parsed = {pom: _parse(pom) for pom in poms}
    reactor = {_coordinates(root) for root in parsed.values() if root is not None}
    for pom, root in parsed.items():
        if root is None:
            continue
        _make_safe(root, reactor)
        target = into / pom.relative_to(tree)
        target.parent.mkdir(parents=True, exist_ok=True)
        ElementTree.ElementTree(root).write(target, encoding="utf-8", xml_declaration=True)
    return reactor


def _parse(pom: Path) -> ElementTree.Element | None:
    try:
        return ElementTree.parse(pom).getroot()
    except (OSError, ElementTree.ParseError):
        log.info("%s: not readable as a pom, left out of the resolution", pom)
        return None


def _q(name: str) -> str:
    return "/".join(f"{{{POM_NS}}}{part}" for part in name.split("/"))


def _find(element: ElementTree.Element, path: str) -> ElementTree.Element | None:
    found = element.find(_q(path))
    return found if found is not None else element.find(path)


def _findall(element: ElementTree.Element, path: str) -> list[ElementTree.Element]:
    return element.findall(_q(path)) or element.findall(path)


def _text(element: ElementTree.Element, path: str) -> str:
    found = _find(element, path)
    return (found.text or "").strip() if found is not None else ""


def _coordinates(root: ElementTree.Element) -> tuple[str, str]:
    return (_text(root, "groupId") or _text(root, "parent/groupId"), _text(root, "artifactId"))


def _make_safe(root: ElementTree.Element, reactor: set[tuple[str, str]]) -> None:
    packaging = _find(root, "packaging")
    if packaging is not None and (packaging.text or "").strip() not in _PACKAGINGS:
        packaging.text = "jar"
    group = _text(root, "groupId") or _text(root, "parent/groupId")
    known = {
        **{f"${{{p.tag.split('}')[-1]}}}": (p.text or "").strip() for p in _findall(root, "properties/*")},
        **{f"${{{name}}}": group for name in ("project.groupId", "pom.groupId", "groupId")},
        **{f"${{{name}}}": _text(root, "parent/groupId") for name in ("project.parent.groupId", "parent.groupId")},
    }
    artifacts = {artifact for _, artifact in reactor}
    for holder in [root, *_findall(root, "profiles/profile")]:
        build = _find(holder, "build")
        if build is not None:
            for extensions in _findall(build, "extensions"):
                build.remove(extensions)
            for section in ("plugins", "pluginManagement/plugins"):
                for plugins in _findall(build, section):
                    for plugin in list(plugins):
                        if _text(plugin, "artifactId") == "maven-dependency-plugin":
                            plugins.remove(plugin)
                            continue
                        for flag in _findall(plugin, "extensions"):
                            plugin.remove(flag)
        for dependencies in _findall(holder, "dependencies"):
            for dependency in list(dependencies):
                dependency_group, artifact = _text(dependency, "groupId"), _text(dependency, "artifactId")
                for expression, value in known.items():
                    dependency_group = dependency_group.replace(expression, value) if value else dependency_group
                # a group still spelled by an expression (a parent's property): the reactor's artifact by its name
                if (dependency_group, artifact) in reactor or ("${" in dependency_group and artifact in artifacts):
                    dependencies.remove(dependency)


ElementTree.register_namespace("", POM_NS)
ElementTree.register_namespace("xsi", "http://www.w3.org/2001/XMLSchema-instance")


def check_same(recorded: list[str], resolved: list[str], where: str) -> None:
    """Stop when a rebuild resolved another class path than the one recorded: the first difference named."""
    if not recorded or recorded == resolved:
        return
    for index, (before, now) in enumerate(zip(recorded, resolved)):
        if before != now:
            raise BenchsmithError(
                f"{where}: the class path resolved now differs from the one recorded at entry {index + 1}: "
                f"{now} where {before} was recorded"
            )
    longer, which = (recorded, "recorded") if len(recorded) > len(resolved) else (resolved, "resolved now")
    first = longer[min(len(recorded), len(resolved))]
    raise BenchsmithError(
        f"{where}: the class path resolved now differs from the one recorded: {first} only {which} "
        f"({len(recorded)} entries recorded, {len(resolved)} resolved)"
    )
