"""The sibling modules of a Maven reactor that one module depends on, compiled onto its class path.

``classbench build --language java --module DIR`` builds one module; the
modules of the same reactor it depends on (by groupId and artifactId, in any
scope, and what those depend on in turn) are compiled first, each with its
generated sources and resources, in dependency order, and their classes go
ahead of the jars on the class path, as Maven's reactor puts them.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.java.classpath import TEST_FRAMEWORK, ClassPath, maven_repo_classpath
from benchsmith.runners.java.compile import explain_error, leave_out_uncompilable_main
from benchsmith.runners.java.defects4j_workspace import compile_main, compile_tests
from benchsmith.runners.java.lombok import delombok
from benchsmith.runners.java.packages import jars_for_imports, merge_packages
from benchsmith.runners.java.toolchain import JAR_NAME
from benchsmith.sources.java.maven import MavenModel, reactor_modules
from benchsmith.sources.java.maven_generate import filter_resources, generate_sources

_SKIPPED = ("target", ".git", "src/test", "test")


@dataclass(frozen=True)
class BuiltSiblings:
    modules: list[str]  # folders, relative to the repository, in the order compiled
    entries: list[str]  # their classes folders, relative to the build folder
    jars: list[str]  # the module's class path with the siblings' own dependencies added
    missing: list[str]  # dependencies of the siblings no jar was found for
    left_out: dict[str, str]  # "folder:class" → why, what of the siblings does not compile
    for_imports: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # jar → packages siblings import
    delomboked: list[str] = dataclasses.field(default_factory=list)  # "folder/root" of siblings with Lombok expanded


def sibling_modules(tree: Path, model: MavenModel) -> list[tuple[str, MavenModel, bool]]:
    """(folder, model, whether its test classes are needed too: a ``test-jar`` dependency) of each reactor module
    *model* needs, what it needs first; empty outside a reactor."""
    if model.directory.resolve() == tree.resolve():
        return []
    top = reactor_root(tree, model.directory)
    below = top.relative_to(tree.resolve())
    reactor = {
        str(below / folder) if folder else ("" if top == tree.resolve() else str(below)): found
        for folder, found in reactor_modules(top).items()
    }
    by_coordinates = {(m.group, m.artifact): folder for folder, m in reactor.items() if m.directory != model.directory}
    order: list[str] = []
    tests: set[str] = set()

    def visit(current: MavenModel, scopes: tuple[str, ...]) -> None:
        for dependency in current.dependencies:
            folder = by_coordinates.get((dependency.group, dependency.artifact))
            if folder is None or dependency.scope not in scopes:
                continue
            if dependency.test_jar:
                tests.add(folder)
            if folder not in order:
                visit(reactor[folder], ("compile", "provided", "runtime"))
                if folder not in order:
                    order.append(folder)

    visit(model, ("compile", "provided", "runtime", "test"))
    return [(folder, reactor[folder], folder in tests) for folder in order]


def reactor_root(tree: Path, module: Path) -> Path:
    """The top folder of *module*'s reactor in *tree*: the highest folder from *module* up that holds a ``pom.xml``,
    with none missing on the way; the repository's root, or below it where the Maven build lives in a folder of its
    own (gchq/sleeper's ``java/``, whose repository's root holds no pom)."""
    tree, folder = tree.resolve(), module.resolve()
    while folder != tree and folder.parent.is_relative_to(tree) and (folder.parent / "pom.xml").is_file():
        folder = folder.parent
    return folder


def compile_siblings(
    siblings: list[tuple[str, MavenModel, bool]], building: Path, classpath: ClassPath, engine: tuple[Path, ...]
) -> BuiltSiblings:
    """Compile each sibling's main sources (a copy of its module, its sources generated) into
    ``building/siblings/<folder>/classes``, with its resources beside its classes, and its tests where a test-jar of
    it is needed. What does not compile is left out as in the module itself (a ``module-info.java`` that Maven
    compiles apart, for a newer release)."""
    entries, jars, missing, left_out = [], list(classpath.jars), [], {}
    for_imports: dict[str, list[str]] = {}
    delomboked: list[str] = []
    artifacts = {_artifact(jar) for jar in jars}
    skip = frozenset((m.group, m.artifact) for _, m, _ in siblings)
    for folder, model, with_tests in siblings:
        if classpath.source == "maven-repo":  # their own dependencies (mvn's class path has them already)
            own = maven_repo_classpath(model, skip)
            jars += [
                jar for jar in own.jars if _artifact(jar) not in artifacts and not TEST_FRAMEWORK.match(_artifact(jar))
            ]
            artifacts |= {_artifact(jar) for jar in own.jars}
            missing += [m for m in own.missing if m not in missing]
        home = building / "siblings" / folder.replace("/", "+")
        shutil.copytree(model.directory, home / "tree", symlinks=True, ignore=_ignore(model.directory, with_tests))
        local = dataclasses.replace(model, directory=home / "tree")
        generated = generate_sources(local)
        filter_resources(local)
        more = tuple(d for d in [*model.source_roots[1:], *generated.main_roots] if (home / "tree" / d).is_dir())
        main_roots = [model.source_roots[0], *more]
        test_roots = [d for d in model.test_roots if with_tests and (home / "tree" / d).is_dir()]
        # as the module itself (maven_workspace): the jars of the packages its sources import, then Lombok expanded
        if classpath.source == "maven-repo":
            found = jars_for_imports(
                home / "tree", [*main_roots, *test_roots], [*(str(building / e) for e in entries), *jars]
            )
            jars += [jar for jar in found if jar not in jars]
            merge_packages(for_imports, found)
        libraries = tuple(str(building / e) for e in entries) + tuple(jars)
        delomboked += [
            f"{folder}/{root}"
            for root in delombok(home / "tree", main_roots, test_roots, list(libraries), release=model.release)
        ]
        dropped = leave_out_uncompilable_main(
            home, model.source_roots[0], more, libraries, model.release, engine, missing
        )
        left_out.update({f"{folder}:{name}": why for name, why in dropped.items()})
        encoding = _compile_main(folder, model, home, libraries, engine, more, missing)
        _copy_resources(model, home, test=False)
        entries.append(str((home / "classes").relative_to(building)))
        tests = [d for d in model.test_roots if (home / "tree" / d).is_dir()]
        if with_tests and tests:
            _, excluded = compile_tests(
                folder,
                set(),
                home / "tree",
                tests[0],
                home,
                libraries,
                encoding,
                model.release,
                engine,
                tuple(tests[1:]),
            )
            left_out.update({f"{folder}:{name} (test-jar)": "does not compile" for name in excluded})
            _copy_resources(model, home, test=True)
            entries.append(str((home / "test-classes").relative_to(building)))
    return BuiltSiblings([f for f, _, _ in siblings], entries, jars, missing, left_out, for_imports, delomboked)


def _compile_main(
    folder: str,
    model: MavenModel,
    home: Path,
    libraries: tuple[str, ...],
    engine: tuple[Path, ...],
    more: tuple[str, ...],
    missing: list[str],
) -> str:
    """A sibling's main classes into ``home/classes``; their encoding. A module left with no source compiles to an
    empty folder, as Maven builds one."""
    if not any(True for d in (model.source_roots[0], *more) for _ in (home / "tree" / d).rglob("*.java")):
        (home / "classes").mkdir(exist_ok=True)
        return "UTF-8"
    try:
        return compile_main(home / "tree", model.source_roots[0], home, libraries, model.release, engine, more)
    except BenchsmithError:
        log_path = home / "compile-main.log"
        text = log_path.read_text(errors="replace")
        first = re.search(r"^/\S+\.java:\d+: error: ", text, re.M)
        where = (
            f"{Path(first[0].split(': error')[0]).name}: {explain_error(text, first.start(), missing)}" if first else ""
        )
        raise BenchsmithError(f"sibling module {folder} does not compile ({where}); see {log_path}") from None


def _copy_resources(model: MavenModel, home: Path, test: bool) -> None:
    for resource in model.resources:
        if resource.test == test and (home / "tree" / resource.directory).is_dir():
            shutil.copytree(
                home / "tree" / resource.directory, home / ("test-classes" if test else "classes"), dirs_exist_ok=True
            )


def _artifact(jar: str) -> str:
    match = JAR_NAME.match(Path(jar).name)
    return match["artifact"] if match else Path(jar).stem


def _ignore(module: Path, with_tests: bool):
    """Leave out the build's output, the history, the tests unless needed, and the nested modules (their own)."""
    skipped = _SKIPPED[:2] if with_tests else _SKIPPED

    def ignore(folder: str, names: list[str]) -> list[str]:
        here = Path(folder).relative_to(module)
        return [n for n in names if str(here / n) in skipped or (Path(folder) / n / "pom.xml").is_file()]

    return ignore


def gradle_note(module: Path) -> str:
    """One line for a module that builds with Gradle rather than Maven; "" for any other."""
    scripts = [name for name in ("build.gradle", "build.gradle.kts") if (module / name).is_file()]
    if not scripts:
        return ""
    installed = shutil.which("gradle")
    return (
        f"{module}: builds with Gradle ({scripts[0]}), which Java classbench does not drive yet"
        f"{'' if installed else ' (and gradle is not installed)'}; give it a pom.xml, or name a Maven module with "
        "--module"
    )
