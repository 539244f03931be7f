"""A Maven-layout Java repository compiled once into a workspace that Java classbench tasks are judged in.

The tree is one module of the repository (``--module``, default its root):
``src/main/java``, ``src/test/java`` and their resources. Its compile and test
class path comes from, in this order:

* ``maven``: ``mvn dependency:build-classpath`` of the module, offline against
  the user's local repository (``~/.m2``), or online where Maven can reach its
  repositories;
* ``folder``: every jar of a folder the user names (``--classpath-dir``);
* ``maven-repo``: the dependencies the pom declares, one jar each, looked up by
  artifact in Debian's ``/usr/share/maven-repo`` (the version the pom names,
  else the nearest below it, else the newest), and the jars there holding the
  packages the sources import that nothing else holds
  (:mod:`harness.java_packages`).

JUnit 4 and 5 come from Debian's packages (the runner's own), whatever the pom
names. Sources using Lombok are expanded once (:mod:`harness.java_lombok`). Test classes that do not compile against that class path are left out,
each recorded with the first error. The workspace holds the ground truth of
every task of the repository, so it is private to root; candidates see the
public view of it (``harness.workspace.public_view``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from benchsmith.atomic import write_text_atomic
from benchsmith.config import cache_dir
from benchsmith.errors import BenchsmithError
from harness.java_lombok import delombok
from harness.java_packages import jars_for_imports
from harness.javatools import JAR_NAME, JAVA_RELEASE, library_jars, platform_classpath, pom_versions
from harness.workspace import Workspace, compile_main, compile_tests, make_readable

log = logging.getLogger(__name__)

JAVA_WORKSPACE_FORMAT = 3  # 3: maven-repo adds the jars of imported packages; Lombok expanded
CLASSPATH_SOURCES = ("maven", "folder", "maven-repo")
DEBIAN_MAVEN_REPO = Path("/usr/share/maven-repo")
# Artifacts the runner brings itself, whatever version a pom names: two copies of JUnit on one class path would
# decide which engine runs a test by class path order.
_TEST_FRAMEWORK = re.compile(r"^(junit|junit-jupiter.*|junit-platform.*|junit-vintage.*|hamcrest.*|opentest4j|apiguardian-api)$")
_SUREFIRE_NAMES = re.compile(r"^(Test\w*|\w*Test|\w*Tests|\w*TestCase)$")  # Surefire's default includes


@dataclass(frozen=True)
class JavaSetup:
    """How a Java repository's workspace is made: stored in each task's ``setup`` so eval can make it again."""

    module: str = ""  # the Maven module's folder, relative to the repository ("" for its root)
    classpath: str = ""  # one of CLASSPATH_SOURCES; "" picks the first that works
    classpath_dir: str = ""  # the folder of jars, for "folder"
    release: str = ""  # the Java release compiled for; "" reads it from the pom (default 8)

    def to_json(self) -> str:
        return json.dumps({"java": asdict(self)}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> JavaSetup:
        try:
            data = json.loads(text or "{}").get("java", {})
            return cls(**data)
        except (ValueError, TypeError, AttributeError) as exc:
            raise BenchsmithError(f"a Java task's setup is not readable ({exc}): {text[:200]}") from None


@dataclass(frozen=True)
class JavaWorkspace:
    workspace: Workspace
    setup: JavaSetup  # as resolved: classpath source and release filled in
    libraries: list[str]
    excluded_tests: dict[str, str] = field(default_factory=dict)  # test class → the first compile error
    excluded_main: dict[str, str] = field(default_factory=dict)  # main class left out of the tree → its first error
    test_classes: list[str] = field(default_factory=list)  # the suite: classes named as Surefire runs them


def java_workspace(tree: Path, key: str, setup: JavaSetup) -> JavaWorkspace:
    """The compiled workspace of the repository at *tree* (a pristine export, cache key *key*), made at first use."""
    # A folder can change between two builds under the same key (a paraphrased copy made again): its content counts.
    content = _tree_digest(tree / setup.module if setup.module else tree) if key.startswith("dir-") else ""
    digest = hashlib.sha256(f"{JAVA_WORKSPACE_FORMAT}\0{setup.to_json()}\0{content}".encode()).hexdigest()[:10]
    root = cache_dir("classbench-java", "workspaces") / f"{key}-{digest}"
    cache_dir("classbench-java").chmod(0o700)
    manifest = root / "workspace.json"
    if manifest.is_file():
        try:
            return _from_manifest(root, json.loads(manifest.read_text()))
        except (ValueError, KeyError, TypeError) as exc:
            raise BenchsmithError(f"{manifest}: corrupt workspace manifest ({exc}); delete {root}") from exc
    module = tree / setup.module if setup.module else tree
    if not (module / "src" / "main" / "java").is_dir():
        raise BenchsmithError(f"{module}: no src/main/java; a Maven-layout module is expected (name one with --module)")
    if not (module / "src" / "test" / "java").is_dir():
        raise BenchsmithError(f"{module}: no src/test/java; the shortlist needs the repository's tests")
    building = Path(tempfile.mkdtemp(prefix=f".{root.name}.", dir=root.parent))
    try:
        shutil.copytree(module, building / "tree", symlinks=True, ignore=shutil.ignore_patterns("target", ".git"))
        source, libraries = resolve_classpath(building / "tree", setup)
        for_imports = jars_for_imports(building / "tree", libraries) if source == "maven-repo" else {}
        libraries = [*libraries, *for_imports]
        delomboked = delombok(building / "tree", libraries)
        release = setup.release or pom_release(building / "tree" / "pom.xml")
        resolved = JavaSetup(setup.module, source, setup.classpath_dir if source == "folder" else "", release)
        engine = tuple(platform_classpath())
        label = f"{key}{'/' + setup.module if setup.module else ''}"
        left_out = _leave_out_uncompilable_main(building, tuple(libraries), release, engine)
        encoding = compile_main(building / "tree", "src/main/java", building, tuple(libraries), release, engine)
        test_encoding, excluded = compile_tests(label, set(), building / "tree", "src/test/java", building,
                                                tuple(libraries), encoding, release, engine)  # fmt: skip
        reasons = _exclusion_reasons(building / "compile-tests.log", excluded)
        record = {"format": JAVA_WORKSPACE_FORMAT, "setup": asdict(resolved), "libraries": libraries,
                  "excluded_main": left_out, "libraries_for_imports": for_imports, "delomboked": delomboked,
                  "encoding": encoding, "test_encoding": test_encoding, "excluded_tests": reasons,
                  "test_classes": suite_classes(building / "tree" / "src" / "test" / "java", set(excluded))}  # fmt: skip
        make_readable(building)
        write_text_atomic(building / "workspace.json", json.dumps(record, indent=2))
        if root.exists():
            shutil.rmtree(root)
        building.rename(root)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return _from_manifest(root, record)


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "target" not in p.relative_to(root).parts[:1]):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _from_manifest(root: Path, record: dict) -> JavaWorkspace:
    if record.get("format") != JAVA_WORKSPACE_FORMAT:
        raise ValueError(f"format {record.get('format')}, expected {JAVA_WORKSPACE_FORMAT}")
    workspace = Workspace(root, "src/main/java", "src/test/java", record["encoding"], record["test_encoding"],
                          tuple(record["libraries"]), tuple(record["excluded_tests"]))  # fmt: skip
    return JavaWorkspace(workspace, JavaSetup(**record["setup"]), record["libraries"], record["excluded_tests"],
                         record["excluded_main"], record["test_classes"])  # fmt: skip


def _leave_out_uncompilable_main(building: Path, libraries: tuple[str, ...], release: str, engine: tuple) -> dict[str, str]:
    """Main sources that cannot compile against the class path (an optional dependency no repository here has, such
    as Compress's Brotli decoder) are deleted from the workspace's tree, with the first error of each; what depends on
    them goes too, round by round. Their tests then fail to compile and are left out as well."""
    left_out: dict[str, str] = {}
    main = building / "tree" / "src" / "main" / "java"
    for _ in range(_MAX_MAIN_ROUNDS):
        try:
            compile_main(building / "tree", "src/main/java", building, libraries, release, engine)
            return left_out
        except BenchsmithError:
            text = (building / "compile-main.log").read_text(errors="replace")
        broken: dict[Path, str] = {}
        for line in text.splitlines():
            match = re.match(r"^(/\S+\.java):\d+: error: (.*)$", line)
            if match and Path(match[1]).is_relative_to(main):
                broken.setdefault(Path(match[1]), match[2])
        if not broken:
            break
        for path, why in broken.items():
            left_out[".".join(path.relative_to(main).with_suffix("").parts)] = why
            path.unlink()
        shutil.rmtree(building / "classes", ignore_errors=True)
    return left_out


_MAX_MAIN_ROUNDS = 6


def suite_classes(test_root: Path, excluded: set[str]) -> list[str]:
    """The test classes Maven's Surefire would run: top-level, named by its default patterns, not abstract."""
    names = []
    for path in sorted(test_root.rglob("*.java")):
        name = ".".join(path.relative_to(test_root).with_suffix("").parts)
        if not _SUREFIRE_NAMES.match(path.stem) or name in excluded:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if re.search(rf"\babstract\s+class\s+{re.escape(path.stem)}\b", text):
            continue
        names.append(name)
    return names


def _exclusion_reasons(log_path: Path, excluded: list[str]) -> dict[str, str]:
    text = log_path.read_text(errors="replace") if log_path.is_file() else ""
    reasons = {}
    for name in excluded:
        path = "/" + name.replace(".", "/") + ".java:"
        line = next((ln for ln in text.splitlines() if path in ln and ": error:" in ln), "")
        reasons[name] = line.split(": error:", 1)[-1].strip() or "does not compile"
    return reasons


def pom_release(pom: Path) -> str:
    """The Java release a pom compiles for (``maven.compiler.release``/``source``, the compiler plugin's), at least 8."""
    try:
        root = ElementTree.parse(pom).getroot()
    except (OSError, ElementTree.ParseError):
        return JAVA_RELEASE
    namespace = root.tag[: root.tag.index("}") + 1] if root.tag.startswith("{") else ""
    properties = {child.tag.removeprefix(namespace): (child.text or "").strip()
                  for props in root.iter(f"{namespace}properties") for child in props}  # fmt: skip
    for key in ("maven.compiler.release", "maven.compiler.source", "maven.compiler.target", "commons.compiler.release",
                "maven.compile.source", "java.version"):  # fmt: skip
        value = properties.get(key, "")
        value = re.sub(r"\$\{([^}]+)\}", lambda m: properties.get(m[1], ""), value)
        number = value.removeprefix("1.")
        if number.isdigit():
            return str(max(int(number), int(JAVA_RELEASE)))
    return JAVA_RELEASE


def resolve_classpath(module: Path, setup: JavaSetup) -> tuple[str, list[str]]:
    """(source, jars): the module's dependency jars, test scope, without the test frameworks the runner brings."""
    tried = []
    order = [setup.classpath] if setup.classpath else [s for s in CLASSPATH_SOURCES if s != "folder" or setup.classpath_dir]
    for source in order:
        if source not in CLASSPATH_SOURCES:
            raise BenchsmithError(f"--classpath {source}: expected one of {', '.join(CLASSPATH_SOURCES)}")
        try:
            jars = {"maven": _maven, "folder": _folder, "maven-repo": _maven_repo}[source](module, setup)
        except BenchsmithError as exc:
            tried.append(f"{source}: {exc}")
            continue
        jars = [j for j in jars if not _TEST_FRAMEWORK.match(_artifact_of(Path(j)))]
        if tried:
            log.info("%s: class path from %s (%s)", module, source, "; ".join(tried))
        return source, jars
    raise BenchsmithError(f"{module}: no class path could be resolved: {'; '.join(tried)}")


def _artifact_of(jar: Path) -> str:
    match = JAR_NAME.match(jar.name)
    return match["artifact"] if match else jar.stem


def _maven(module: Path, setup: JavaSetup) -> list[str]:
    mvn = shutil.which("mvn")
    if not mvn:
        raise BenchsmithError("mvn is not installed")
    if not (module / "pom.xml").is_file():
        raise BenchsmithError("no pom.xml")
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "classpath.txt"
        argv = [mvn, "-B", "-q", "-o", "dependency:build-classpath", "-Dmdep.includeScope=test", f"-Dmdep.outputFile={out}"]
        if os.environ.get("BENCHSMITH_MAVEN_ONLINE"):
            argv.remove("-o")
        completed = subprocess.run(argv, cwd=module, capture_output=True, text=True, timeout=600)
        if completed.returncode != 0 or not out.is_file():
            error = next((ln for ln in completed.stdout.splitlines() if "[ERROR]" in ln), "mvn failed")
            raise BenchsmithError(error.replace("[ERROR]", "").strip()[:200])
        return [entry for entry in out.read_text().strip().split(os.pathsep) if entry]


def _folder(module: Path, setup: JavaSetup) -> list[str]:
    folder = Path(setup.classpath_dir)
    if not folder.is_dir():
        raise BenchsmithError(f"--classpath-dir {folder}: not a folder")
    return [str(jar.resolve()) for jar in sorted(folder.rglob("*.jar"))]


def _maven_repo(module: Path, setup: JavaSetup) -> list[str]:
    declared = pom_versions(module / "pom.xml")
    declared.update(_unversioned_dependencies(module / "pom.xml"))
    if not DEBIAN_MAVEN_REPO.is_dir():
        raise BenchsmithError(f"{DEBIAN_MAVEN_REPO} does not exist (Debian's maven-repo-helper packages)")
    # What the pom declares, then what those jars' own poms need at run time (Mockito needs Byte Buddy, Objenesis).
    queue = sorted(artifact for artifact in declared if not _TEST_FRAMEWORK.match(artifact))
    seen, found = set(queue), []
    while queue:
        artifact = queue.pop(0)
        folders = [p for p in DEBIAN_MAVEN_REPO.rglob(artifact) if p.is_dir() and p.name == artifact]
        # library_jars reads a group's folder (<group>/<artifact>/<version>/): the artifact's own jar is kept.
        jars = [jar for folder in folders for jar in library_jars(folder.parent, {artifact: declared.get(artifact, "")})
                if jar.parent.parent.name == artifact and jar.resolve().is_file()]  # fmt: skip
        if not jars:
            continue
        found.append(str(jars[0]))
        for pom in sorted(jars[0].parent.glob("*.pom"))[:1]:
            for needed in _runtime_dependencies(pom):
                if needed not in seen and not _TEST_FRAMEWORK.match(needed):
                    seen.add(needed)
                    queue.append(needed)
    return found


def _runtime_dependencies(pom: Path) -> list[str]:
    """The artifacts a library's pom needs at compile and run time (not test, provided or optional ones)."""
    try:
        root = ElementTree.parse(pom).getroot()
    except (OSError, ElementTree.ParseError):
        return []
    namespace = root.tag[: root.tag.index("}") + 1] if root.tag.startswith("{") else ""
    needed = []
    for dependencies in root.findall(f"{namespace}dependencies"):
        for dependency in dependencies.findall(f"{namespace}dependency"):
            scope = (dependency.findtext(f"{namespace}scope") or "compile").strip()
            optional = (dependency.findtext(f"{namespace}optional") or "").strip() == "true"
            artifact = (dependency.findtext(f"{namespace}artifactId") or "").strip()
            if artifact and scope in ("compile", "runtime") and not optional:
                needed.append(artifact)
    return needed


def _unversioned_dependencies(pom: Path) -> dict[str, str]:
    """Dependencies whose version a parent pom manages: declared, version unknown."""
    try:
        root = ElementTree.parse(pom).getroot()
    except (OSError, ElementTree.ParseError):
        return {}
    namespace = root.tag[: root.tag.index("}") + 1] if root.tag.startswith("{") else ""
    found = {}
    for dependencies in root.findall(f"{namespace}dependencies"):
        for dependency in dependencies.findall(f"{namespace}dependency"):
            artifact = (dependency.findtext(f"{namespace}artifactId") or "").strip()
            if artifact and dependency.findtext(f"{namespace}version") is None:
                found[artifact] = ""
    return found
