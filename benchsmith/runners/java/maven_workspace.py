"""A Maven repository's module compiled once into a workspace that Java classbench tasks are judged in.

The module (``--module``, default the repository's root) is read by the Maven
model (:mod:`benchsmith.sources.java.maven`): its source and test roots (build-helper's
included), the sources it generates at build time (java-templates, Jackson's
``.java.in``; :mod:`benchsmith.sources.java.maven_generate`), its filtered resources and its
release. Its class path comes from :mod:`benchsmith.runners.java.classpath`; the sibling
modules of its reactor that it depends on are compiled first and put ahead of
it. Main sources that do not compile against that class path are left out,
and so are test classes, each recorded with its first error, the missing
symbol and, where one is declared but not found, the missing artifact.

A build that fails keeps its folder, logs included, under the cache's
``failed/`` folder, and the error names the log there. The workspace holds the
ground truth of every task of the repository, so it is private to root;
candidates see the public view of it (``benchsmith.runners.java.defects4j_workspace.java_public_view``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import re
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.java.central import check_same
from benchsmith.runners.java.classpath import resolve_classpath
from benchsmith.runners.java.compile import exclusion_reasons, leave_out_uncompilable_main
from benchsmith.runners.java.defects4j_workspace import Workspace, compile_main, compile_tests, make_readable
from benchsmith.runners.java.lombok import delombok
from benchsmith.runners.java.packages import jars_for_imports, merge_packages
from benchsmith.runners.java.reactor import compile_siblings, gradle_note, sibling_modules
from benchsmith.runners.java.toolchain import (
    default_runtime,
    jdk_for,
    platform_classpath,
    project_runtime,
    release_runtime,
)
from benchsmith.sources.java.maven import MavenModel, read_pom
from benchsmith.sources.java.maven_generate import filter_resources, generate_sources

log = logging.getLogger(__name__)

JAVA_WORKSPACE_FORMAT = 8  # 3: the Maven model (roots, generated sources, siblings), failed builds kept; 4: maven-repo
# adds the jars of imported packages, Lombok expanded; 5: both over every root of the model, not Maven's default two;
# 6: both in the sibling modules too, and import-scope BOMs read; 7: the central class path, its coordinates and
# notes, the pom's JUnit 4; 8: the siblings of a reactor below the repository's root
_SUREFIRE_NAMES = re.compile(r"^(Test\w*|\w*Test|\w*Tests|\w*TestCase)$")  # Surefire's default includes


@dataclass(frozen=True)
class JavaSetup:
    """How a Java repository's workspace is made: stored in each task's ``setup`` so eval can make it again."""

    module: str = ""  # the Maven module's folder, relative to the repository ("" for its root)
    classpath: str = ""  # one of CLASSPATH_SOURCES; "" picks the first that works
    classpath_dir: str = ""  # the folder of jars, for "folder"
    release: str = ""  # the Java release compiled for; "" reads it from the pom (default 8)
    # group:artifact:version[:classifier] of each jar the central class path resolved, in order: a workspace made
    # again resolves the same ones or stops (central.check_same)
    resolved: tuple[str, ...] = ()
    # the javac that compiled the workspace and the JVM its tests run on (toolchain.jdk_for, project_runtime), as
    # the build found them: what a rebuild elsewhere finds may differ, and is not checked against them
    compiler: str = ""
    runtime: str = ""

    def to_json(self) -> str:
        fields = asdict(self)
        for name in ("resolved", "compiler", "runtime"):  # a setup without them reads as before the fields
            if not fields[name]:
                del fields[name]
        return json.dumps({"java": fields}, sort_keys=True)

    def key_json(self) -> str:
        """What names the workspace: the setup without what the build finds out (the coordinates it resolves, the
        JDK and the runtime)."""
        return dataclasses.replace(self, resolved=(), compiler="", runtime="").to_json()

    @classmethod
    def from_json(cls, text: str) -> JavaSetup:
        try:
            data = json.loads(text or "{}").get("java", {})
            return cls(**{**data, "resolved": tuple(data.get("resolved", ()))})
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
    missing_artifacts: list[str] = field(default_factory=list)  # declared dependencies no jar was found for
    siblings: list[str] = field(default_factory=list)  # reactor modules compiled onto the class path
    generated: list[str] = field(default_factory=list)  # sources and resources written by the build's plugins
    missing_parent: str = ""  # the first parent pom not at hand (what it manages or sets stays unknown)
    missing_imports: list[str] = field(default_factory=list)  # import-scope BOMs not at hand (their versions unknown)
    classpath_notes: list[str] = field(default_factory=list)  # how the class path was resolved, sources tried first


def java_workspace(tree: Path, key: str, setup: JavaSetup) -> JavaWorkspace:
    """The compiled workspace of the repository at *tree* (a pristine export, cache key *key*), made at first use."""
    # A folder can change between two builds under the same key (a paraphrased copy made again): its content counts.
    content = _tree_digest(tree) if key.startswith("dir-") else ""
    digest = hashlib.sha256(f"{JAVA_WORKSPACE_FORMAT}\0{setup.key_json()}\0{content}".encode()).hexdigest()[:10]
    root = cache_dir("classbench-java", "workspaces") / f"{key}-{digest}"
    cache_dir("classbench-java").chmod(0o700)
    manifest = root / "workspace.json"
    label = f"{key}{'/' + setup.module if setup.module else ''}"
    if manifest.is_file():
        try:
            made = _from_manifest(root, json.loads(manifest.read_text()))
        except (ValueError, KeyError, TypeError) as exc:
            raise BenchsmithError(f"{manifest}: corrupt workspace manifest ({exc}); delete {root}") from exc
        check_same(list(setup.resolved), list(made.setup.resolved), label)
        return made
    module = tree / setup.module if setup.module else tree
    if not (module / "pom.xml").is_file() and gradle_note(module):
        raise BenchsmithError(gradle_note(module))
    model = read_pom(module / "pom.xml")  # without one, Maven's default layout
    source_dir, test_dir = model.source_roots[0], model.test_roots[0]
    if not (module / source_dir).is_dir():
        raise BenchsmithError(
            f"{module}: no {source_dir}; a Maven module with main sources is expected (name one with "
            f"--module{'; its modules: ' + ', '.join(model.modules) if model.modules else ''})"
        )
    if not (module / test_dir).is_dir():
        raise BenchsmithError(f"{module}: no {test_dir}; the shortlist needs the repository's tests")
    _check_release(module, setup.release or model.release, bool(setup.release))
    building = Path(tempfile.mkdtemp(prefix=f".{root.name}.", dir=root.parent))
    try:
        record = _build(tree, module, model, setup, building, label)
        check_same(list(setup.resolved), record["setup"]["resolved"], label)
        make_readable(building)
        write_text_atomic(building / "workspace.json", json.dumps(record, indent=2))
        if root.exists():
            shutil.rmtree(root)
        building.rename(root)
    except BenchsmithError as exc:
        kept = _keep_failed(building, root)
        raise BenchsmithError(str(exc).replace(str(building), str(kept))) from None
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return _from_manifest(root, record)


def _build(tree: Path, module: Path, model: MavenModel, setup: JavaSetup, building: Path, label: str) -> dict:
    siblings = sibling_modules(tree, model)
    classpath = resolve_classpath(
        module,
        model,
        setup.classpath,
        setup.classpath_dir,
        frozenset((s.group, s.artifact) for _, s, _ in siblings),
        tree,
        tuple(folder for folder, _, _ in siblings),
    )
    if classpath.source == "central" and (model.missing_parent or model.missing_imports):
        model = read_pom(module / "pom.xml")  # the parents and BOMs Maven has just brought into the local repository
    shutil.copytree(module, building / "tree", symlinks=True, ignore=shutil.ignore_patterns("target", ".git"))
    local = dataclasses.replace(model, directory=building / "tree")
    generated = generate_sources(local)
    filtered = filter_resources(local)
    release = setup.release or model.release
    resolved = JavaSetup(
        setup.module,
        classpath.source,
        setup.classpath_dir if classpath.source == "folder" else "",
        release,
        tuple(classpath.coordinates),
    )
    engine = tuple(platform_classpath())
    built = compile_siblings(siblings, building, classpath, engine)
    libraries = [*(str(building / entry) for entry in built.entries), *built.jars]
    main_dirs = [d for d in [*model.source_roots[1:], *generated.main_roots] if (building / "tree" / d).is_dir()]
    test_dirs = [d for d in [*model.test_roots[1:], *generated.test_roots] if (building / "tree" / d).is_dir()]
    source_dir, test_dir = model.source_roots[0], model.test_roots[0]
    main_roots, test_roots = [source_dir, *main_dirs], [test_dir, *test_dirs]
    for_imports = (
        jars_for_imports(building / "tree", [*main_roots, *test_roots], libraries)
        if classpath.source == "maven-repo"
        else {}
    )
    libraries = [*libraries, *for_imports]
    merge_packages(for_imports, built.for_imports)
    delomboked = [*built.delomboked, *delombok(building / "tree", main_roots, test_roots, libraries, release=release)]
    missing = [*classpath.missing, *built.missing]
    left_out = leave_out_uncompilable_main(
        building, source_dir, tuple(main_dirs), tuple(libraries), release, engine, missing
    )
    left_out.update(built.left_out)
    encoding = compile_main(
        building / "tree", source_dir, building, tuple(libraries), release, engine, tuple(main_dirs)
    )
    test_encoding, excluded = compile_tests(
        label,
        set(),
        building / "tree",
        test_dir,
        building,
        tuple(libraries),
        encoding,
        release,
        engine,
        tuple(test_dirs),
    )
    reasons = exclusion_reasons(building / "compile-tests.log", excluded, missing)
    suite = [
        name for folder in (test_dir, *test_dirs) for name in suite_classes(building / "tree" / folder, set(excluded))
    ]
    return {
        "format": JAVA_WORKSPACE_FORMAT,
        "setup": asdict(
            dataclasses.replace(
                resolved,
                compiler=jdk_for(release).describe(),
                runtime=project_runtime(release, [Path(entry) for entry in libraries]).describe(),
            )
        ),
        "source_dir": source_dir,
        "test_dir": test_dir,
        "libraries": [
            str(Path(entry).relative_to(building)) if Path(entry).is_relative_to(building) else entry
            for entry in libraries
        ],
        "excluded_main": left_out,
        "encoding": encoding,
        "test_encoding": test_encoding,
        "excluded_tests": reasons,
        "test_classes": suite,
        "missing_artifacts": missing,
        "siblings": built.modules,
        "generated": [*generated.files, *filtered],
        "missing_parent": model.missing_parent,
        "missing_imports": model.missing_imports,
        "libraries_for_imports": for_imports,
        "delomboked": delomboked,
        "junit": classpath.test_framework,
        "classpath_notes": classpath.notes,
    }


def _check_release(module: Path, release: str, chosen: bool) -> None:
    """Stop, before anything is built, when nothing here compiles for *release* or runs its tests (a JDK to compile,
    a runtime with a security manager to run; :func:`~benchsmith.runners.java.toolchain.jdk_for` and
    :func:`~benchsmith.runners.java.toolchain.release_runtime` pick them): javac's own "release version 21 not
    supported" would otherwise fail every class, and the build with them."""
    try:
        jdk_for(release)
        if release.isdigit() and int(release) > default_runtime().version:
            release_runtime(int(release))
    except BenchsmithError as exc:
        asked = f"--release {release}:" if chosen else f"{module / 'pom.xml'}: the pom asks for Java {release};"
        raise BenchsmithError(f"{asked} {exc}") from None


def _keep_failed(building: Path, root: Path) -> Path:
    """The folder of a build that failed, logs and all, under ``failed/`` beside the workspaces, for the user to
    read."""
    kept = cache_dir("classbench-java", "failed") / root.name
    shutil.rmtree(kept, ignore_errors=True)
    building.rename(kept)
    return kept


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "target" not in p.relative_to(root).parts):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _from_manifest(root: Path, record: dict) -> JavaWorkspace:
    if record.get("format") != JAVA_WORKSPACE_FORMAT:
        raise ValueError(f"format {record.get('format')}, expected {JAVA_WORKSPACE_FORMAT}")
    libraries = [entry if Path(entry).is_absolute() else str(root / entry) for entry in record["libraries"]]
    workspace = Workspace(
        root,
        record["source_dir"],
        record["test_dir"],
        record["encoding"],
        record["test_encoding"],
        tuple(libraries),
        tuple(record["excluded_tests"]),
        release=record["setup"]["release"],
        junit_hamcrest=tuple(record.get("junit", ())),
    )
    return JavaWorkspace(
        workspace,
        JavaSetup(**{**record["setup"], "resolved": tuple(record["setup"].get("resolved", ()))}),
        libraries,
        record["excluded_tests"],
        record["excluded_main"],
        record["test_classes"],
        record["missing_artifacts"],
        record["siblings"],
        record["generated"],
        record.get("missing_parent", ""),
        record.get("missing_imports", []),
        record.get("classpath_notes", []),
    )


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
