"""One reader of Maven's ``pom.xml``: a module with its parents, as the builds here need it.

A pom is read with its parents (by ``relativePath``, default ``../pom.xml``,
else from the local repositories: benchsmith's own, ``<cache>/maven/repository``, where the ``central`` class
path resolves, ``~/.m2/repository`` and Debian's ``/usr/share/maven-repo``), its properties interpolated, its
profiles that are active by default merged in, and its dependency management applied (with the BOMs it
imports, `<scope>import</scope>`, from the same repositories). The model
answers what the Java builds ask: the source and test roots (with those that
build-helper-maven-plugin adds), the sources generated at build time (see
:mod:`benchsmith.sources.java.maven_generate`), the resources and whether they are filtered,
the Java release, the dependencies with versions and scopes, and the modules
of a reactor. A parent that is not at hand is recorded, not an error: what it
would have said stays unknown (a version left as ``${...}``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from benchsmith.core.config import cache_root

LOCAL_REPOSITORIES = (Path.home() / ".m2" / "repository", Path("/usr/share/maven-repo"))


def local_repositories() -> tuple[Path, ...]:
    """Where parents and BOMs are looked up by default: benchsmith's own local repository, then
    :data:`LOCAL_REPOSITORIES` (each only read)."""
    return (cache_root() / "maven" / "repository", *LOCAL_REPOSITORIES)


DEFAULT_RELEASE = "8"  # the oldest release javac 17 compiles for without warnings; older poms are raised to it
_RELEASE_PROPERTIES = (
    "maven.compiler.release",
    "maven.compiler.source",
    "maven.compiler.target",
    "commons.compiler.release",
    "maven.compile.source",
    "java.version",
)
_EXPRESSION = re.compile(r"\$\{([^}]+)\}")
_MAX_PARENTS = 10


@dataclass(frozen=True)
class Dependency:
    group: str
    artifact: str
    version: str  # "" when neither the pom nor its dependency management names one
    scope: str = "compile"
    optional: bool = False
    kind: str = "jar"  # <type>
    classifier: str = ""

    @property
    def test_jar(self) -> bool:
        """The module's test classes (``<type>test-jar</type>`` or the ``tests`` classifier), not its main ones."""
        return self.kind == "test-jar" or self.classifier == "tests"

    @property
    def coordinates(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version or '?'}"


@dataclass(frozen=True)
class Resource:
    directory: str  # relative to the module
    filtering: bool
    test: bool


@dataclass
class MavenModel:
    """A module's pom as its parents and default profiles complete it; paths are relative to :attr:`directory`."""

    directory: Path
    group: str
    artifact: str
    version: str
    packaging: str
    properties: dict[str, str]  # interpolated, with the project's own (project.version, ...)
    dependencies: list[Dependency]  # this module's, its parents' inherited, versions managed
    managed: dict[tuple[str, str], str]  # (group, artifact) → version, from dependencyManagement
    source_roots: list[str]
    test_roots: list[str]
    resources: list[Resource]
    modules: list[str]  # a reactor's module folders, relative to it
    parents: list[str] = field(default_factory=list)  # where each parent was read from
    missing_parent: str = ""  # group:artifact:version of the first parent not at hand
    missing_imports: list[str] = field(default_factory=list)  # group:artifact:version of import-scope BOMs not at hand
    plugins: list[ElementTree.Element] = field(default_factory=list)  # <plugin>s in effect, the nearest first
    declared_versions: dict[str, str] = field(default_factory=dict)  # artifact → version, every <dependency> of the pom

    def interpolate(self, text: str) -> str:
        return interpolate(text, self.properties)

    def plugin(self, artifact: str) -> list[ElementTree.Element]:
        """The <plugin> elements for *artifact* in effect, the module's own first (its parents' management after)."""
        return [p for p in self.plugins if _text(p, "artifactId") == artifact]

    def plugin_setting(self, artifact: str, name: str) -> str:
        """A plugin's ``<configuration><name>``, interpolated: the nearest pom that sets it wins."""
        for plugin in self.plugin(artifact):
            value = _text(plugin, f"configuration/{name}")
            if value:
                return self.interpolate(value)
        return ""

    def executions(self, artifact: str, goal: str) -> list[ElementTree.Element]:
        """The <configuration> of each execution of *artifact* that runs *goal* (empty ones too)."""
        found = []
        for plugin in self.plugin(artifact):
            for execution in _children(plugin, "executions/execution"):
                if goal in [g.text.strip() for g in _children(execution, "goals/goal") if g.text]:
                    configuration = _child(execution, "configuration")
                    found.append(configuration if configuration is not None else ElementTree.Element("configuration"))
        return found

    @property
    def release(self) -> str:
        """The Java release it compiles for: the compiler plugin's ``release``/``source``, else the common properties;
        at least :data:`DEFAULT_RELEASE`."""
        candidates = [self.plugin_setting("maven-compiler-plugin", key) for key in ("release", "source", "target")]
        candidates += [self.properties.get(key, "") for key in _RELEASE_PROPERTIES]
        for value in candidates:
            number = value.strip().removeprefix("1.")
            if number.isdigit():
                return str(max(int(number), int(DEFAULT_RELEASE)))
        return DEFAULT_RELEASE

    def missing_versions(self) -> list[Dependency]:
        return [d for d in self.dependencies if not d.version or "${" in d.version]


def interpolate(text: str, properties: dict[str, str]) -> str:
    """``${name}`` replaced by the property's value, repeatedly (a value may name another); unknown names are kept."""
    for _ in range(10):
        replaced = _EXPRESSION.sub(lambda m: properties.get(m[1].strip(), m[0]), text)
        if replaced == text:
            break
        text = replaced
    return text


def read_pom(
    pom: Path, repositories: tuple[Path, ...] | None = None, _importing: frozenset[str] = frozenset()
) -> MavenModel:
    """The model of the module whose ``pom.xml`` is *pom*. *repositories* are searched for parents that are not at
    their ``relativePath`` and for the BOMs its dependency management imports; ``()`` reads only the files of the tree
    (as Defects4J's own build does); ``None`` is :func:`local_repositories`."""
    repositories = local_repositories() if repositories is None else repositories
    chain: list[tuple[ElementTree.Element, str]] = []
    missing = ""
    current, origin = _parse(pom), str(pom)
    while current is not None and len(chain) < _MAX_PARENTS:
        chain.append((_with_default_profiles(current), origin))
        parent = _child(current, "parent")
        if parent is None:
            break
        coordinates = (_text(parent, "groupId"), _text(parent, "artifactId"), _text(parent, "version"))
        found = _find_parent(Path(origin), parent, coordinates, repositories)
        if found is None:
            missing = ":".join(coordinates)
            break
        current, origin = _parse(found), str(found)
    if not chain:
        return _empty(pom.parent)
    return _merge(pom.parent, chain, missing, repositories, _importing)


def _parse(path: Path) -> ElementTree.Element | None:
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError):
        return None
    for element in root.iter():  # namespaces gone: poms with and without xmlns read alike
        if isinstance(element.tag, str) and element.tag.startswith("{"):
            element.tag = element.tag.split("}", 1)[1]
    return root


def _child(element: ElementTree.Element, path: str) -> ElementTree.Element | None:
    return element.find(path)


def _children(element: ElementTree.Element, path: str) -> list[ElementTree.Element]:
    return element.findall(path)


def _text(element: ElementTree.Element, path: str) -> str:
    return (element.findtext(path) or "").strip()


def _with_default_profiles(root: ElementTree.Element) -> ElementTree.Element:
    """The pom with the contents of its ``activeByDefault`` profiles added (properties, dependencies, build)."""
    for profile in _children(root, "profiles/profile"):
        if _text(profile, "activation/activeByDefault") != "true":
            continue
        for section in (
            "properties",
            "dependencies",
            "dependencyManagement/dependencies",
            "build/plugins",
            "build/pluginManagement/plugins",
            "modules",
        ):
            extra = _child(profile, section)
            if extra is None:
                continue
            into = root
            for part in section.split("/"):
                found = _child(into, part)
                if found is None:
                    found = ElementTree.SubElement(into, part)
                into = found
            into.extend(list(extra))
    return root


def _find_parent(
    origin: Path, parent: ElementTree.Element, coordinates: tuple[str, str, str], repositories: tuple[Path, ...]
) -> Path | None:
    group, artifact, version = coordinates
    relative = parent.find("relativePath")
    if relative is None or (relative.text or "").strip():
        path = origin.parent / ((relative.text or "").strip() if relative is not None else "../pom.xml")
        path = path / "pom.xml" if path.is_dir() else path
        candidate = _parse(path) if path.is_file() else None
        if (
            candidate is not None
            and _text(candidate, "artifactId") == artifact
            and (_text(candidate, "groupId") or _text(candidate, "parent/groupId")) == group
        ):
            return path
    return _in_repositories(group, artifact, version, repositories)


def _in_repositories(group: str, artifact: str, version: str, repositories: tuple[Path, ...]) -> Path | None:
    """The pom of *group*:*artifact* at exactly *version* in the first of *repositories* that has it."""
    for repository in repositories:
        exact = repository.joinpath(*group.split("."), artifact, version, f"{artifact}-{version}.pom")
        if exact.is_file():
            return exact
    return None


def _merge(
    directory: Path,
    chain: list[tuple[ElementTree.Element, str]],
    missing: str,
    repositories: tuple[Path, ...] = (),
    importing: frozenset[str] = frozenset(),
) -> MavenModel:
    """Inheritance as Maven does it: the module's own values over its parents', properties and management merged."""
    own = chain[0][0]
    properties: dict[str, str] = {}
    for element, _ in reversed(chain):
        for child in _children(element, "properties/*"):
            properties[child.tag] = (child.text or "").strip()
    group = _text(own, "groupId") or _text(own, "parent/groupId")
    version = _text(own, "version") or _text(own, "parent/version")
    artifact = _text(own, "artifactId")
    project = {
        "groupId": group,
        "artifactId": artifact,
        "version": version,
        "basedir": str(directory),
        "build.directory": str(directory / "target"),
        "name": _text(own, "name") or artifact,
        "parent.version": _text(own, "parent/version"),
        "parent.groupId": _text(own, "parent/groupId"),
    }
    for key, value in project.items():
        properties.setdefault(f"project.{key}", value)
        properties.setdefault(f"pom.{key}", value)
    properties.setdefault("basedir", str(directory))
    properties = {key: interpolate(value, properties) for key, value in properties.items()}
    managed: dict[tuple[str, str], tuple[str, str]] = {}
    imports: list[tuple[str, str, str]] = []
    for element, _ in chain:  # the nearest pom's management wins
        for dependency in _children(element, "dependencyManagement/dependencies/dependency"):
            key = (
                interpolate(_text(dependency, "groupId"), properties),
                interpolate(_text(dependency, "artifactId"), properties),
            )
            version_text = interpolate(_text(dependency, "version"), properties)
            if _text(dependency, "scope") == "import" and _text(dependency, "type") == "pom":
                imports.append((*key, version_text))
                continue
            managed.setdefault(key, (version_text, _text(dependency, "scope")))
    missing_imports: list[str] = []
    for group_id, artifact_id, bom_version in imports:  # a BOM's entries under those declared, the first import first
        coordinates = f"{group_id}:{artifact_id}:{bom_version}"
        bom = _in_repositories(group_id, artifact_id, bom_version, repositories)
        if bom is None:
            missing_imports.append(coordinates)
            continue
        if coordinates in importing:  # a BOM that imports itself, through others
            continue
        imported = read_pom(bom, repositories, importing | {coordinates})
        for key, managed_version in imported.managed.items():
            managed.setdefault(key, (managed_version, ""))
        missing_imports += [m for m in imported.missing_imports if m not in missing_imports]
    dependencies: dict[tuple[str, ...], Dependency] = {}
    for element, _ in chain:  # a module inherits its parents' dependencies; its own declaration wins
        for dependency in _children(element, "dependencies/dependency"):
            key = (
                interpolate(_text(dependency, "groupId"), properties),
                interpolate(_text(dependency, "artifactId"), properties),
            )
            managed_version, managed_scope = managed.get(key, ("", ""))
            kind, classifier = _text(dependency, "type") or "jar", _text(dependency, "classifier")
            dependencies.setdefault(
                (*key, kind, classifier),
                Dependency(
                    key[0],
                    key[1],
                    interpolate(_text(dependency, "version"), properties) or managed_version,
                    _text(dependency, "scope") or managed_scope or "compile",
                    _text(dependency, "optional") == "true",
                    kind,
                    classifier,
                ),
            )
    plugins = [
        plugin
        for element, _ in chain
        for section in ("build/plugins/plugin", "build/pluginManagement/plugins/plugin")
        for plugin in _children(element, section)
    ]
    declared: dict[str, str] = {}
    for dependency in own.iter("dependency"):  # every one: dependencies, management, plugins' (Defects4J pins by them)
        if _text(dependency, "artifactId") and _text(dependency, "version"):
            declared.setdefault(_text(dependency, "artifactId"), interpolate(_text(dependency, "version"), properties))
    model = MavenModel(
        directory,
        group,
        artifact,
        version,
        _text(own, "packaging") or "jar",
        properties,
        list(dependencies.values()),
        {k: v for k, (v, _) in managed.items()},
        [],
        [],
        [],
        [m.text.strip() for m in _children(own, "modules/module") if m.text],
        [origin for _, origin in chain[1:]],
        missing,
        missing_imports,
        plugins,
        declared,
    )
    model.source_roots, model.test_roots = _roots(model, chain)
    model.resources = _resources(model, chain)
    return model


def _relative(model: MavenModel, path: str) -> str:
    path = model.interpolate(path)
    absolute = Path(path) if Path(path).is_absolute() else model.directory / path
    try:
        return str(absolute.resolve().relative_to(model.directory.resolve()))
    except ValueError:
        return str(absolute)


def _roots(model: MavenModel, chain) -> tuple[list[str], list[str]]:
    """Main and test source roots: the build's (default ``src/main/java``, ``src/test/java``), then build-helper's."""
    main = next(
        (_text(e, "build/sourceDirectory") for e, _ in chain if _text(e, "build/sourceDirectory")), "src/main/java"
    )
    test = next(
        (_text(e, "build/testSourceDirectory") for e, _ in chain if _text(e, "build/testSourceDirectory")),
        "src/test/java",
    )
    roots = {"main": [_relative(model, main)], "test": [_relative(model, test)]}
    for goal, kind in (("add-source", "main"), ("add-test-source", "test")):
        for configuration in model.executions("build-helper-maven-plugin", goal):
            for source in _children(configuration, "sources/source"):
                if source.text and (path := _relative(model, source.text.strip())) not in roots[kind]:
                    roots[kind].append(path)
    return roots["main"], roots["test"]


def _resources(model: MavenModel, chain) -> list[Resource]:
    found = []
    for test, section, default in (
        (False, "resources/resource", "src/main/resources"),
        (True, "testResources/testResource", "src/test/resources"),
    ):
        declared = next((_children(e, f"build/{section}") for e, _ in chain if _children(e, f"build/{section}")), [])
        if not declared:
            found.append(Resource(default, False, test))
        for resource in declared:
            directory = _text(resource, "directory") or default
            found.append(Resource(_relative(model, directory), _text(resource, "filtering") == "true", test))
    return found


def _empty(directory: Path) -> MavenModel:
    return MavenModel(
        directory,
        "",
        "",
        "",
        "jar",
        {},
        [],
        {},
        ["src/main/java"],
        ["src/test/java"],
        [Resource("src/main/resources", False, False), Resource("src/test/resources", False, True)],
        [],
    )


def reactor_modules(root: Path, repositories: tuple[Path, ...] | None = None) -> dict[str, MavenModel]:
    """Every module of the reactor whose top ``pom.xml`` is in *root*, by folder relative to it (nested reactors
    too)."""
    found: dict[str, MavenModel] = {}
    root = root.resolve()
    pending = [root]
    while pending:
        folder = pending.pop(0)
        if not (folder / "pom.xml").is_file() or folder in (root / k for k in found):
            continue
        model = read_pom(folder / "pom.xml", repositories)
        found[str(folder.relative_to(root)) if folder != root else ""] = model
        pending += [(folder / name).resolve() for name in model.modules if (folder / name / "pom.xml").is_file()]
    return found
