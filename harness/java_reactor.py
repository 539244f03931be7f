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

from benchsmith.errors import BenchsmithError
from harness.java_classpath import TEST_FRAMEWORK, ClassPath, explain_error, maven_repo_classpath
from harness.javatools import JAR_NAME
from harness.workspace import compile_main
from sources.maven import MavenModel, reactor_modules
from sources.maven_generate import filter_resources, generate_sources

_SKIPPED = ("target", ".git", "src/test", "test")


@dataclass(frozen=True)
class BuiltSiblings:
    modules: list[str]  # folders, relative to the repository, in the order compiled
    entries: list[str]  # their classes folders, relative to the build folder
    jars: list[str]  # the module's class path with the siblings' own dependencies added
    missing: list[str]  # dependencies of the siblings no jar was found for


def sibling_modules(tree: Path, model: MavenModel) -> list[tuple[str, MavenModel]]:
    """(folder, model) of each reactor module *model* needs, what it needs first; empty outside a reactor."""
    if model.directory.resolve() == tree.resolve():
        return []
    reactor = reactor_modules(tree)
    by_coordinates = {(m.group, m.artifact): (folder, m) for folder, m in reactor.items() if m.directory != model.directory}
    ordered: list[tuple[str, MavenModel]] = []

    def visit(current: MavenModel, scopes: tuple[str, ...]) -> None:
        for dependency in current.dependencies:
            found = by_coordinates.get((dependency.group, dependency.artifact))
            if found and dependency.scope in scopes and found not in ordered:
                visit(found[1], ("compile", "provided", "runtime"))
                if found not in ordered:
                    ordered.append(found)

    visit(model, ("compile", "provided", "runtime", "test"))
    return ordered


def compile_siblings(siblings: list[tuple[str, MavenModel]], building: Path, classpath: ClassPath,
                     engine: tuple[Path, ...]) -> BuiltSiblings:  # fmt: skip
    """Compile each sibling's main sources (a copy of its module, its sources generated) into
    ``building/siblings/<folder>/classes``, with its resources beside its classes."""
    entries, jars, missing = [], list(classpath.jars), []
    artifacts = {_artifact(jar) for jar in jars}
    skip = frozenset((m.group, m.artifact) for _, m in siblings)
    for folder, model in siblings:
        if classpath.source == "maven-repo":  # their own dependencies (mvn's class path has them already)
            own = maven_repo_classpath(model, skip)
            jars += [jar for jar in own.jars if _artifact(jar) not in artifacts and not TEST_FRAMEWORK.match(_artifact(jar))]
            artifacts |= {_artifact(jar) for jar in own.jars}
            missing += [m for m in own.missing if m not in missing]
        home = building / "siblings" / folder.replace("/", "+")
        shutil.copytree(model.directory, home / "tree", symlinks=True, ignore=_ignore(model.directory))
        local = dataclasses.replace(model, directory=home / "tree")
        generated = generate_sources(local)
        filter_resources(local)
        more = tuple(d for d in [*model.source_roots[1:], *generated.main_roots] if (home / "tree" / d).is_dir())
        try:
            compile_main(home / "tree", model.source_roots[0], home, tuple(str(building / e) for e in entries) + tuple(jars),
                         model.release, engine, more)  # fmt: skip
        except BenchsmithError:
            log_path = home / "compile-main.log"
            text = log_path.read_text(errors="replace")
            first = re.search(r"^/\S+\.java:\d+: error: ", text, re.M)
            where = f"{Path(first[0].split(': error')[0]).name}: {explain_error(text, first.start(), missing)}" if first else ""
            raise BenchsmithError(f"sibling module {folder} does not compile ({where}); see {log_path}") from None
        for resource in model.resources:
            if not resource.test and (home / "tree" / resource.directory).is_dir():
                shutil.copytree(home / "tree" / resource.directory, home / "classes", dirs_exist_ok=True)
        entries.append(str((home / "classes").relative_to(building)))
    return BuiltSiblings([f for f, _ in siblings], entries, jars, missing)


def _artifact(jar: str) -> str:
    match = JAR_NAME.match(Path(jar).name)
    return match["artifact"] if match else Path(jar).stem


def _ignore(module: Path):
    """Leave out the build's output, the history and the tests, and the nested modules (they are their own)."""

    def ignore(folder: str, names: list[str]) -> list[str]:
        here = Path(folder).relative_to(module)
        return [n for n in names if str(here / n) in _SKIPPED or (Path(folder) / n / "pom.xml").is_file()]

    return ignore


def gradle_note(module: Path) -> str:
    """One line for a module that builds with Gradle rather than Maven; "" for any other."""
    scripts = [name for name in ("build.gradle", "build.gradle.kts") if (module / name).is_file()]
    if not scripts:
        return ""
    installed = shutil.which("gradle")
    return (f"{module}: builds with Gradle ({scripts[0]}), which Java classbench does not drive yet"
            f"{'' if installed else ' (and gradle is not installed)'}; give it a pom.xml, or name a Maven module with "
            "--module")  # fmt: skip
