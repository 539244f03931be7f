"""Prepared workspaces: an instance's fixed revision, compiled once, read-only to candidates.

With the ``defects4j`` command a workspace is its checkout, built by
``defects4j compile``, with the class path ``defects4j export`` gives. Without
it, a workspace is the project's upstream git
history at the fixed revision, compiled with javac against one jar per
artifact of Defects4J's ``lib/`` folder plus JUnit 4. Test sources that do not
compile with today's JDK are left out (and listed), unless the instance needs
them. A workspace is complete once its ``workspace.json`` exists; it is reused
by every later run.

A workspace holds the ground truth (the fixed sources, their classes), so it
is private to root. Candidates see a *public view* of it instead: the same
tree and classes without the file under repair and its classes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import NL2FixInstance
from benchsmith.runners.java.ant_build import AntBuild, ant_source_dirs, relocated_libraries
from benchsmith.runners.java.defects4j_checkout import (
    adapt_as_defects4j,
    classes_release,
    for_locale_data,
    rename_enum_packages,
)
from benchsmith.runners.java.toolchain import (
    JAVA_RELEASE,
    debian_substitutes,
    defects4j_runtime,
    gradle_source_dirs,
    gradle_versions,
    javac,
    junit_classpath,
    junit_hamcrest,
    library_jars,
    pinned_jars,
    platform_classpath,
    pom_coordinates,
    pom_versions,
)
from benchsmith.sources.defects4j import Bug, Defects4JRoot
from benchsmith.sources.history import GitHistory, fixed_commit, locate_upstream, project_folder
from benchsmith.sources.java.maven import read_pom
from benchsmith.sources.java.maven_generate import fill_replacer_templates
from benchsmith.sources.patches import apply_patch

log = logging.getLogger(__name__)

_LAYOUT_GUESSES = (("src/main/java", "src/test/java"), ("src/java", "src/test"), ("source", "tests"), ("src", "test"))
_IMPORT = re.compile(r"^\s*(import\s+(?:static\s+)?[\w.]+(?:\.\*)?\s*;)", re.M)
_RUNNER_JARS = re.compile(r"^(junit|hamcrest)[0-9.-]")  # the runner brings JUnit 4.13 itself
# the files an Ant build copies beside its classes (runners/java/ant_build.py), where the tree keeps them
BUILD_RESOURCES = ".ant-build-resources"
_RESOURCE_DIRS = ("src/main/resources", "src/test/resources", "src/resources", "src/test-resources", BUILD_RESOURCES)
_MAX_TEST_EXCLUSION_ROUNDS = 5
WORKSPACE_FORMAT = 9  # bump when the manifest or the way workspaces are built changes (9: compile-errors/)
OLDEST_RELEASE = "7"  # the oldest --release javac 17 compiles for
VIEW_FORMAT = 3  # bump when what a public view holds changes (3: target/test-classes)


class _Layout:
    """tree/, classes/ and test-classes/ under a root: a workspace and its public view alike."""

    root: Path

    @property
    def tree(self) -> Path:
        return self.root / "tree"

    @property
    def classes(self) -> Path:
        return self.root / "classes"

    @property
    def test_classes(self) -> Path:
        return self.root / "test-classes"


@dataclass(frozen=True)
class Workspace(_Layout):
    root: Path  # holds tree/, classes/, test-classes/, logs
    source_dir: str  # relative to tree/
    test_dir: str
    encoding: str  # of the main sources
    test_encoding: str  # of the test sources (old projects mix UTF-8 and Latin-1)
    libraries: tuple[str, ...]
    excluded_tests: tuple[str, ...]
    missing_files: tuple[str, ...] = ()  # blobs the history lacked (a partial mirror)
    buggy_only_imports: tuple[str, ...] = ()  # imports of the buggy file that the fix removed
    release: str = JAVA_RELEASE  # what its sources (and candidates) compile for
    junit_hamcrest: tuple[str, ...] = ()  # the Hamcrest 1.3 of lib/, which the test JVM runs JUnit with
    platform: bool = False  # its tests use JUnit 5 (Jupiter): compiled and run on the JUnit Platform
    adapted: tuple[str, ...] = ()  # the diffs of Defects4J's compile-errors/ applied to its tree
    locale_data: str = "cldr"  # the test runtime's when they were chosen (its locale-* diffs are for "cldr")
    more_source_dirs: tuple[str, ...] = ()  # compiled with source_dir (the revision's build names them: Closure's gen/)
    more_test_dirs: tuple[str, ...] = ()  # compiled with test_dir
    test_release: str = ""  # what its tests compile for, when not *release* (Mockito's, 7: Java 8's inference)

    def resource_dirs(self) -> list[Path]:
        """Resource folders, and the source folders (old Ant builds copied their resources beside the classes)."""
        resources = [self.tree / d for d in _RESOURCE_DIRS if (self.tree / d).is_dir()]
        return [*resources, self.tree / self.source_dir, self.tree / self.test_dir]


def guard_forbidden_tests(workspace: Workspace, instance: NL2FixInstance) -> list[str]:
    """The methods (``Class::method``) of the instance's test classes that install a security manager of their own:
    the runner's guard refuses any replacement, since a candidate could otherwise drop it, so they cannot run here
    (JacksonDatabind's AccessFixTest checks that Jackson survives one that forbids setAccessible; it is a relevant
    test of most later bugs). Left out of the relevant tests like Defects4J's own broken ones; a trigger test among
    them still runs, and fails with the guard's reason."""
    import javalang

    classes = {t.split("::")[0] for t in instance.trigger_tests} | set(instance.relevant_tests)
    found = []
    for name in sorted(classes):
        path = workspace.tree / workspace.test_dir / (name.replace(".", "/") + ".java")
        text = path.read_text(encoding=workspace.test_encoding, errors="replace") if path.is_file() else ""
        if "setSecurityManager" not in text:
            continue
        try:
            unit = javalang.parse.parse(text)
        except (javalang.parser.JavaSyntaxError, javalang.tokenizer.LexerError):
            continue
        tests, forbidden = set(), []
        for _, method in unit.filter(javalang.tree.MethodDeclaration):
            if method.name.startswith("test") or any(a.name == "Test" for a in method.annotations):
                tests.add(method.name)
            if any(c.member == "setSecurityManager" for _, c in method.filter(javalang.tree.MethodInvocation)):
                forbidden.append(f"{name}::{method.name}")
        found += forbidden
        if forbidden and tests <= {f.split("::")[1] for f in forbidden}:
            found.append(f"{name}::*")  # nothing of the class can run: JUnit refuses a class filtered empty
    return found


def prepare(instance: NL2FixInstance, d4j: Defects4JRoot, repos: Path | None) -> Workspace:
    """The compiled workspace of *instance*'s fixed revision, built at first use."""
    root = cache_dir("workspaces", instance.project) / f"{instance.bug_id}-{instance.revision_fixed[:12]}"
    manifest = root / "workspace.json"
    if manifest.is_file():
        try:
            record = json.loads(manifest.read_text())
        except ValueError as exc:
            raise BenchsmithError(f"{manifest}: corrupt workspace manifest ({exc}); delete {root}") from exc
        kept = _kept(record, instance, d4j, root)
        if kept is not None:
            if kept != record:
                write_text_atomic(manifest, json.dumps(kept, indent=2))
            root.chmod(0o700)  # made private after format 4 first appeared
            copy_test_resources(root / "tree")  # added after format 4 first appeared; does nothing a second time
            fields = {k: tuple(v) if isinstance(v, list) else v for k, v in kept.items() if k != "format"}
            return Workspace(root=root, **fields)
    log.info("preparing workspace %s at %s", instance.instance_id, instance.revision_fixed[:12])
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    executable = shutil.which("defects4j")
    workspace = _from_defects4j(instance, executable, root) if executable else _from_git(instance, d4j, repos, root)
    hamcrest = junit_hamcrest(_lib_dir(instance, d4j, workspace.tree))
    workspace = dataclasses.replace(workspace, junit_hamcrest=tuple(str(jar) for jar in hamcrest))
    make_readable(root)
    record = {"format": WORKSPACE_FORMAT, **{k: v for k, v in asdict(workspace).items() if k != "root"}}
    write_text_atomic(manifest, json.dumps(record, indent=2))
    return workspace


def _kept(record: dict, instance: NL2FixInstance, d4j: Defects4JRoot, root: Path) -> dict | None:
    """The manifest *record* of a cached workspace brought to :data:`WORKSPACE_FORMAT`, or None when it must be made
    again: a workspace of an older format that a later one would build differently, one whose tests were mended for
    another runtime's locale data, or one whose libraries are gone."""
    made_by = record.get("format")
    record = dict(record)
    while made_by != WORKSPACE_FORMAT:
        step = _FORMAT_STEPS.get(made_by)
        if step is None or not step(record, instance, d4j, root):
            log.info("%s: made by an older benchsmith (format %s); rebuilding it", root, made_by)
            return None
        made_by += 1
    record["format"] = WORKSPACE_FORMAT
    if "more_source_dirs" not in record or "test_release" not in record:
        # recorded since format 9 first appeared, for the plain path, which compiles the tests again: the folders the
        # tree and its build files name, and the release the test classes were compiled for (their class files say it)
        main, tests = _more_source_dirs(root / "tree", record["source_dir"], record["test_dir"])
        record.update(more_source_dirs=list(main), more_test_dirs=list(tests))
        compiled_for = classes_release(root / "test-classes")
        record["test_release"] = compiled_for if compiled_for not in ("", record.get("release")) else ""
    made_for, runtime_locales = record.get("locale_data", "cldr"), defects4j_runtime().locale_data()
    if made_for != runtime_locales and any(
        for_locale_data(diff.name, made_for) != for_locale_data(diff.name, runtime_locales)
        for diff, _ in d4j.compile_error_diffs(_bug_of(instance))
    ):  # its tests were mended (or not) for another runtime's locale data (Defects4J's locale-* diffs)
        log.info(
            "%s: its tests were adapted for %s locale data, the test runtime has %s", root, made_for, runtime_locales
        )
        return None
    gone = [jar for jar in record.get("libraries", []) if not Path(jar).is_file()]
    if gone:  # the key names the project, not the Defects4J root: another root's run (a mined project's) made it
        log.info("%s: its library %s is gone; rebuilding it", root, gone[0])
        return None
    return record


def _to_format_7(record: dict, instance: NL2FixInstance, d4j: Defects4JRoot, root: Path) -> bool:
    """Format 7 adds the jars and source folders a revision's Gradle build names (Mockito's byte-buddy): a workspace
    whose build names none is the same."""
    return (
        not shutil.which("defects4j")
        and not any(_more_source_dirs(root / "tree", record["source_dir"], record["test_dir"]))
        and list(_libraries(instance, d4j, root / "tree")) == record["libraries"]
    )


def _to_format_8(record: dict, instance: NL2FixInstance, d4j: Defects4JRoot, root: Path) -> bool:
    """Format 8 only records the Hamcrest of lib/ that JUnit runs with."""
    record["junit_hamcrest"] = [str(j) for j in junit_hamcrest(_lib_dir(instance, d4j, root / "tree"))]
    return True


def _to_format_9(record: dict, instance: NL2FixInstance, d4j: Defects4JRoot, root: Path) -> bool:
    """Format 9 applies Defects4J's compile-errors/ diffs, compiles the folders the revision's Ant build adds and the
    libraries it renames, and keeps the files it copies beside its classes: a workspace of a bug with none of them
    is the same."""
    tree, main, tests = root / "tree", record["source_dir"], record["test_dir"]
    return (
        not shutil.which("defects4j")
        and not d4j.compile_error_diffs(_bug_of(instance))
        and _more_source_dirs(tree, main, tests) == _more_source_dirs(tree, main, tests, ant=False)
        and not AntBuild(tree).relocations()
        and not AntBuild(tree).copied_resources(main)
    )


# A cached workspace of format N is brought to N + 1 in place when _FORMAT_STEPS[N] says it would be built the same.
_FORMAT_STEPS = {6: _to_format_7, 7: _to_format_8, 8: _to_format_9}


def _from_defects4j(instance: NL2FixInstance, executable: str, root: Path) -> Workspace:
    """Defects4J's own checkout, build and class path (``export``), copied into the workspace layout."""
    tree = root / "tree"

    def d4j(*args: str) -> str:
        completed = subprocess.run([executable, *args], capture_output=True, text=True)
        if completed.returncode != 0:
            last = (completed.stderr.strip().splitlines() or ["failed"])[-1]
            raise BenchsmithError(f"{instance.instance_id}: defects4j {' '.join(args[:1])}: {last}")
        return completed.stdout.strip()

    d4j("checkout", "-p", instance.project, "-v", f"{instance.bug_id}f", "-w", str(tree))
    d4j("compile", "-w", str(tree))
    prop = {
        name: d4j("export", "-p", name, "-w", str(tree))
        for name in ("dir.src.classes", "dir.src.tests", "dir.bin.classes", "dir.bin.tests", "cp.test")
    }
    shutil.copytree(tree / prop["dir.bin.classes"], root / "classes")
    shutil.copytree(tree / prop["dir.bin.tests"], root / "test-classes")
    own = {(tree / prop["dir.bin.classes"]).resolve(), (tree / prop["dir.bin.tests"]).resolve()}
    libraries = tuple(
        entry
        for entry in prop["cp.test"].split(os.pathsep)
        if entry and Path(entry).resolve() not in own and not _RUNNER_JARS.search(Path(entry).name)
    )
    return Workspace(root, prop["dir.src.classes"], prop["dir.src.tests"], "UTF-8", "UTF-8", libraries, ())


def _from_git(instance: NL2FixInstance, d4j: Defects4JRoot, repos: Path | None, root: Path) -> Workspace:
    """The upstream history at the fixed revision, compiled with javac against Defects4J's lib/."""
    tree = root / "tree"
    missing = _export(instance, d4j, repos, tree)
    adapted = adapt_as_defects4j(d4j, _bug_of(instance), tree)
    copy_test_resources(tree)
    source_dir, test_dir = _layout(d4j, instance, tree)
    rename_enum_packages(tree, (source_dir, test_dir))
    for source, target in AntBuild(tree).copied_resources(source_dir):  # Closure's rhino_ast/.../Messages.properties
        if (tree / source).is_file():
            (tree / BUILD_RESOURCES / target).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(tree / source, tree / BUILD_RESOURCES / target)
    _generate_from_templates(tree, source_dir)
    # and the libraries its Ant build makes from sources in its tree (Closure's renamed Rhino)
    libraries = (*_libraries(instance, d4j, tree), *map(str, relocated_libraries(tree, JAVA_RELEASE)))
    more_main, more_tests = _more_source_dirs(tree, source_dir, test_dir)
    release = JAVA_RELEASE
    try:
        encoding = compile_main(tree, source_dir, root, libraries, more_dirs=more_main)
    except BenchsmithError:
        # Java 8's inference rejects some code written for 6 and 7 (Collections-26's conditional expressions of
        # generic methods); their own javac, and Defects4J's build, compile it at the pom's older level. 7 is the
        # oldest javac 17 accepts.
        if "incompatible types" not in (root / "compile-main.log").read_text(errors="replace"):
            raise
        release = OLDEST_RELEASE
        shutil.rmtree(root / "classes", ignore_errors=True)
        encoding = compile_main(tree, source_dir, root, libraries, release, more_dirs=more_main)
        log.info("%s: compiled for Java %s: Java 8's type inference rejects its sources", instance.instance_id, release)
    needed = {t.split("::")[0] for t in instance.trigger_tests} | set(instance.relevant_tests)
    platform = uses_jupiter(tree / test_dir)
    engine = tuple(platform_classpath()) if platform else ()
    test_release = ""
    try:
        test_encoding, excluded = compile_tests(
            instance.instance_id,
            needed,
            tree,
            test_dir,
            root,
            libraries,
            encoding,
            release,
            engine,
            more_dirs=more_tests,
        )
    except BenchsmithError:
        # Tests written for Java 5 and 6 that Java 8's inference finds ambiguous (Mockito's when(mock.oneArg(
        # anyObject())), with oneArg(Double) and oneArg(String)): compiled at the oldest level javac 17 has, as for
        # the main sources above; their classes still run on the test JVM.
        log_text = (root / "compile-tests.log").read_text(errors="replace")
        if release == OLDEST_RELEASE or not re.search(r"is ambiguous|incompatible types", log_text):
            raise
        test_encoding, excluded = compile_tests(
            instance.instance_id,
            needed,
            tree,
            test_dir,
            root,
            libraries,
            encoding,
            OLDEST_RELEASE,
            engine,
            more_dirs=more_tests,
        )
        test_release = OLDEST_RELEASE
        log.info(
            "%s: tests compiled for Java %s: Java 8's type inference rejects them", instance.instance_id, OLDEST_RELEASE
        )
    extra = _buggy_only_imports(instance, d4j, tree, encoding)
    return Workspace(
        root,
        source_dir,
        test_dir,
        encoding,
        test_encoding,
        libraries,
        tuple(excluded),
        tuple(missing),
        extra,
        release,
        platform=platform,
        adapted=adapted,
        locale_data=defects4j_runtime().locale_data(),
        more_source_dirs=more_main,
        more_test_dirs=more_tests,
        test_release=test_release if test_release != release else "",
    )


_JUPITER_IMPORT = re.compile(r"^\s*import\s+(?:static\s+)?org\.junit\.jupiter\.", re.M)


def uses_jupiter(test_root: Path) -> bool:
    """Whether any test source under *test_root* is written for JUnit 5 (Jupiter): Defects4J's projects never are;
    projects mined from recent history (builders/mine) often are. The JUnit Platform runs JUnit 3 and 4 tests too."""
    return (
        any(
            _JUPITER_IMPORT.search(path.read_text(encoding="utf-8", errors="replace"))
            for path in _java_files(test_root)
        )
        if test_root.is_dir()
        else False
    )


def _more_source_dirs(
    tree: Path, source_dir: str, test_dir: str, ant: bool = True
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Source folders besides Defects4J's layout that the revision's own build compiles (main, test): Mockito 2's
    betas keep the default mock maker, which every mock needs, in ``mockmaker/bytebuddy/main/java`` (Gradle); Closure
    compiles its generated protocol buffers, ``gen/``, with ``src/`` (Ant)."""
    found = gradle_source_dirs(tree)
    # the folders an Ant build compiles into the same output as Defects4J's source or test folder
    for group in ant_source_dirs(tree) if ant else []:
        for kind, folder in (("main", source_dir), ("test", test_dir)):
            if folder.rstrip("/") in group:
                found.setdefault(kind, []).extend(group)
    return tuple(
        tuple(d for d in dict.fromkeys(found.get(kind, ())) if d not in (source_dir, test_dir) and (tree / d).is_dir())
        for kind in ("main", "test")
    )


def _lib_dir(instance: NL2FixInstance, d4j: Defects4JRoot, tree: Path) -> Path:
    lib_dir = d4j.lib_dir(instance.project)
    # Chart: Defects4J builds it with the jars of the revision's own lib/ (its Ant build's)
    return lib_dir if lib_dir.is_dir() else tree / "lib"


def _libraries(instance: NL2FixInstance, d4j: Defects4JRoot, tree: Path) -> tuple[str, ...]:
    """The jars *instance*'s revision compiles and runs with: Defects4J's ``lib/`` at the versions the revision pins."""
    # Defects4J's own Maven resolution of the revision, where it keeps one, pins transitive jars the pom never names
    pinned = {
        **gradle_versions(tree),
        **pom_versions(tree / "pom.xml"),
        **d4j.resolved_versions(instance.project, instance.revision_fixed),
    }
    lib_dir = _lib_dir(instance, d4j, tree)
    return tuple(
        str(jar)
        for jar in [
            *library_jars(lib_dir, pinned, pom_coordinates(tree / "pom.xml")),
            *debian_substitutes(lib_dir, pinned),
            *(jar for folder in d4j.versioned_lib_dirs(instance.project) for jar in pinned_jars(folder, pinned)),
        ]
    )


def copy_test_resources(tree: Path) -> None:
    """``src/test/resources`` also at ``target/test-classes``, where Maven's build copies it before the tests run:
    tests that open their resources by that relative path (Compress's ExplodeSupportTest) find them there."""
    resources, target = tree / "src" / "test" / "resources", tree / "target" / "test-classes"
    if not resources.is_dir() or target.exists():
        return
    building = target.with_name(f".{target.name}.building")
    shutil.rmtree(building, ignore_errors=True)
    link_tree(resources, building, lambda path: False)
    for folder, _, _ in os.walk(building):
        os.chmod(folder, 0o755)
    building.rename(target)


def _generate_from_templates(tree: Path, source_dir: str) -> None:
    """The sources Maven generates before compiling, as the classbench build makes them
    (:mod:`benchsmith.sources.java.maven_generate`):
    each ``X.java.in`` of *source_dir* filled in beside it as ``X.java`` (the Jackson projects' PackageVersion, which
    maven-replacer-plugin writes from the pom's coordinates; without it their main sources do not compile)."""
    if any((tree / source_dir).rglob("*.java.in")):
        fill_replacer_templates(read_pom(tree / "pom.xml", ()), [source_dir], beside=True)


def _buggy_only_imports(instance: NL2FixInstance, d4j: Defects4JRoot, tree: Path, encoding: str) -> tuple[str, ...]:
    """Import statements of the buggy file that the fixed one lacks: the buggy method (and candidates
    written from it) may need them once it stands in the fixed file."""
    bug = _bug_of(instance)
    fixed = (tree / instance.file_path).read_bytes().decode(encoding, errors="surrogateescape")
    try:
        patch = d4j.patch_path(bug).read_bytes().decode("utf-8", errors="surrogateescape")
        buggy = apply_patch(patch, {instance.file_path: fixed}, str(d4j.patch_path(bug))).get(instance.file_path) or ""
    except (OSError, BenchsmithError) as exc:
        log.warning("%s: cannot rebuild the buggy file for its imports: %s", instance.instance_id, exc)
        return ()
    ours = set(_IMPORT.findall(fixed))
    return tuple(statement for statement in dict.fromkeys(_IMPORT.findall(buggy)) if statement not in ours)


def _bug_of(instance: NL2FixInstance) -> Bug:
    return Bug(
        instance.project,
        instance.bug_id,
        instance.revision_buggy,
        instance.revision_fixed,
        instance.report_id,
        instance.report_url,
    )


def _export(instance: NL2FixInstance, d4j: Defects4JRoot, repos: Path | None, tree: Path) -> list[str]:
    """Write the fixed revision's files under *tree*; return the paths whose blobs the history lacks.

    Blob by blob rather than ``git archive``, so that a partial history (a
    mirror without its largest files) still gives a workspace; what is missing
    is recorded, and a test that needs it fails visibly.
    """
    history = GitHistory(locate_upstream(instance.project, repos))
    bug = _bug_of(instance)
    patch_path = d4j.patch_path(bug)
    revision = fixed_commit(
        bug, history.git_dir, patch_path.read_bytes().decode("utf-8", errors="surrogateescape"), str(patch_path)
    )
    if not history.has_revision(revision):
        raise BenchsmithError(f"{instance.instance_id}: revision {revision} is not in {history.git_dir}")
    folder = project_folder(instance.project, history.git_dir, revision)  # Joda-Time's JodaTime/, moved to the root
    listing = subprocess.run(
        [
            "git",
            "--git-dir",
            str(history.git_dir),
            "ls-tree",
            "-r",
            "-z",
            f"{revision}:{folder}" if folder else revision,
        ],
        capture_output=True,
        check=True,
    ).stdout
    entries = []
    for record in listing.split(b"\0"):
        if record:
            meta, path = record.split(b"\t", 1)
            mode, kind, sha = meta.split()
            if kind == b"blob":
                entries.append((mode.decode(), sha.decode(), os.fsdecode(path)))
    missing = []
    with subprocess.Popen(
        ["git", "--git-dir", str(history.git_dir), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as batch:
        for mode, sha, path in entries:
            batch.stdin.write(sha.encode() + b"\n")
            batch.stdin.flush()
            header = batch.stdout.readline().split()
            if len(header) < 3 or header[1] == b"missing":
                missing.append(path)
                continue
            data = batch.stdout.read(int(header[2]))
            batch.stdout.read(1)  # the newline after the contents
            target = tree / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if mode == "120000":
                target.symlink_to(os.fsdecode(data))
            else:
                target.write_bytes(data)
        batch.stdin.close()
    if missing:
        log.warning(
            "%s: %d file(s) missing from %s, left out: %s",
            instance.instance_id,
            len(missing),
            history.git_dir,
            ", ".join(missing[:3]),
        )
    return missing


def _layout(d4j: Defects4JRoot, instance: NL2FixInstance, tree: Path) -> tuple[str, str]:
    listed = d4j.layout(instance.project, instance.revision_fixed)
    if listed and (tree / listed[0]).is_dir():
        return listed
    for main, test in _LAYOUT_GUESSES:
        if (tree / main).is_dir() and (tree / test).is_dir():
            return main, test
    raise BenchsmithError(f"{instance.instance_id}: cannot tell the source and test folders of {tree}")


def _java_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.java"))


_ENCODINGS = ("UTF-8", "ISO-8859-1")


def compile_main(
    tree: Path,
    source_dir: str,
    root: Path,
    libraries: tuple[str, ...],
    release: str = JAVA_RELEASE,
    test_libraries: tuple[Path, ...] = (),
    more_dirs: tuple[str, ...] = (),
) -> str:
    """Compile the main sources (of *source_dir* and *more_dirs*) into ``root/classes``; their encoding (UTF-8, else
    Latin-1)."""
    classpath = [*map(Path, libraries), *junit_classpath(), *test_libraries]
    log_path = root / "compile-main.log"
    for encoding in _ENCODINGS:
        sources = [path for folder in (source_dir, *more_dirs) for path in _java_files(tree / folder)]
        if javac(sources, classpath, root / "classes", log_path, encoding=encoding, release=release):
            return encoding
        if "unmappable character" not in log_path.read_text():
            break
    errors = [line for line in log_path.read_text(errors="replace").splitlines() if ": error: " in line]
    # The log may go with a build folder that fails: the first error travels in the message.
    first = f": {errors[0].strip()[:300]} ({len(errors)} error(s) in all)" if errors else ""
    raise BenchsmithError(f"{root}: the main sources do not compile{first}; see {log_path}")


def compile_tests(
    label: str,
    needed: set[str],
    tree: Path,
    test_dir: str,
    root: Path,
    libraries: tuple[str, ...],
    encoding: str,
    release: str = JAVA_RELEASE,
    test_libraries: tuple[Path, ...] = (),
    more_dirs: tuple[str, ...] = (),
) -> tuple[str, list[str]]:
    """The test sources' (of *test_dir* and *more_dirs*) encoding and the test classes left out because they do not
    compile (never one of *needed*: that is an error naming *label*)."""
    classpath = [root / "classes", *map(Path, libraries), *junit_classpath(), *test_libraries]
    roots = [tree / folder for folder in (test_dir, *more_dirs)]
    sources = [path for folder in roots for path in _java_files(folder)]
    excluded: list[str] = []
    log_path = root / "compile-tests.log"
    for round_number in range(_MAX_TEST_EXCLUSION_ROUNDS):
        shutil.rmtree(root / "test-classes", ignore_errors=True)
        if javac(sources, classpath, root / "test-classes", log_path, encoding, release=release):
            return encoding, excluded
        if "unmappable character" in log_path.read_text() and encoding != _ENCODINGS[-1]:
            encoding = _ENCODINGS[-1]
            continue
        broken = {Path(m) for m in re.findall(r"^(/\S+\.java):\d+: error", log_path.read_text(), re.M)}
        if not broken:
            break
        names = {_class_name(next(r for r in roots if path.is_relative_to(r)), path) for path in broken}
        # Each round's log is kept: it holds the errors of the classes that round leaves out.
        shutil.copyfile(log_path, root / f"compile-tests.round{round_number + 1}.log")
        if names & needed:
            raise BenchsmithError(
                f"{label}: test classes it needs do not compile: {sorted(names & needed)}; see {log_path}"
            )
        excluded.extend(sorted(names))
        sources = [s for s in sources if s not in broken]
    errors = [line for line in log_path.read_text(errors="replace").splitlines() if ": error: " in line]
    first = f": {errors[0].strip()[:300]} ({len(errors)} error(s) in all)" if errors else ""
    raise BenchsmithError(f"{label}: the tests do not compile{first}; see {log_path}")


def _class_name(test_root: Path, path: Path) -> str:
    return ".".join(path.relative_to(test_root).with_suffix("").parts)


def make_readable(root: Path) -> None:
    """Readable inside, so that views can link to it; private as a whole: it holds the ground truth."""
    for folder, dirs, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, 0o644)
    root.chmod(0o700)


@dataclass(frozen=True)
class PublicView(_Layout):
    """What the candidates of one instance may see of its workspace: all of it but the file under repair and the
    classes compiled from it. Files are hard links into the (private) workspace, owned by root and read-only."""

    root: Path


def java_public_view(workspace: Workspace, file_path: str) -> PublicView:
    """The public view of *workspace* without *file_path* (relative to its tree), made at first use."""
    # The build of the workspace is part of the key: a rebuilt workspace (a new benchsmith's format) has new files,
    # which a view linked to the old ones would not show.
    try:
        built = (workspace.root / "workspace.json").stat()
        build = f"{built.st_ino}:{built.st_mtime_ns}"
    except FileNotFoundError:
        build = ""
    key = hashlib.sha256(f"{VIEW_FORMAT}\0{workspace.root}\0{build}\0{file_path}".encode()).hexdigest()[:12]
    views = cache_dir("views")
    views.chmod(0o755)
    prefix = f"{workspace.root.parent.name}-{workspace.root.name}-"
    root = views / f"{prefix}{key}"
    if (root / ".complete").is_file():
        return PublicView(root)
    for stale in views.glob(f"{prefix}*"):  # views of an earlier build of this workspace
        if (stale / ".complete").is_file() and (stale / ".complete").read_text() == file_path:
            shutil.rmtree(stale, ignore_errors=True)
    relative = (
        Path(file_path).relative_to(workspace.source_dir)
        if Path(file_path).is_relative_to(workspace.source_dir)
        else None
    )
    if relative is None:
        raise BenchsmithError(f"{file_path}: not under the workspace's source folder {workspace.source_dir}")
    package, stem = relative.parent, relative.stem

    def gold_class(path: Path) -> bool:
        """Every class compiled from the file: its own, nested and anonymous ones, and other top-level classes in it."""
        inside = path.relative_to(workspace.classes)
        if path.suffix != ".class" or inside.parent != package:
            return False
        source = class_source_file(path)
        return (
            source == relative.name
            if source is not None
            else (inside.stem == stem or inside.stem.startswith(stem + "$"))
        )

    building = Path(tempfile.mkdtemp(prefix=f".{root.name}.", dir=views))
    link_tree(workspace.tree, building / "tree", lambda path: path == workspace.tree / file_path)
    link_tree(workspace.classes, building / "classes", gold_class)
    link_tree(workspace.test_classes, building / "test-classes", lambda path: False)
    (building / ".complete").write_text(file_path)
    building.chmod(0o755)
    try:
        building.rename(root)
    except OSError:  # made meanwhile by another process
        shutil.rmtree(building, ignore_errors=True)
    return PublicView(root)


_CONSTANT_SIZES = {
    3: 4,
    4: 4,
    5: 8,
    6: 8,
    7: 2,
    8: 2,
    9: 4,
    10: 4,
    11: 4,
    12: 4,
    15: 3,
    16: 2,
    17: 4,
    18: 4,
    19: 2,
    20: 2,
}


def class_source_file(path: Path) -> str | None:
    """The SourceFile attribute of a class file (the .java file it was compiled from), or None without one."""
    data = path.read_bytes()
    try:
        count, at, utf8 = int.from_bytes(data[8:10], "big"), 10, {}
        index = 1
        while index < count:
            tag = data[at]
            if tag == 1:
                length = int.from_bytes(data[at + 1 : at + 3], "big")
                utf8[index] = data[at + 3 : at + 3 + length].decode("utf-8", errors="replace")
                at += 3 + length
            else:
                at += 1 + _CONSTANT_SIZES[tag]
            index += 2 if tag in (5, 6) else 1  # longs and doubles take two entries
        at += 6
        at += 2 + 2 * int.from_bytes(data[at : at + 2], "big")  # interfaces
        for _ in range(2):  # fields, then methods
            members, at = int.from_bytes(data[at : at + 2], "big"), at + 2
            for _ in range(members):
                attributes, at = int.from_bytes(data[at + 6 : at + 8], "big"), at + 8
                for _ in range(attributes):
                    at += 6 + int.from_bytes(data[at + 2 : at + 6], "big")
        attributes, at = int.from_bytes(data[at : at + 2], "big"), at + 2
        for _ in range(attributes):
            name, length = (
                utf8.get(int.from_bytes(data[at : at + 2], "big")),
                int.from_bytes(data[at + 2 : at + 6], "big"),
            )
            if name == "SourceFile":
                return utf8.get(int.from_bytes(data[at + 6 : at + 8], "big"))
            at += 6 + length
    except (IndexError, KeyError) as exc:
        raise BenchsmithError(f"{path}: not a class file that can be read ({exc!r})") from exc
    return None


def link_tree(source: Path, target: Path, leave_out) -> None:
    """*target* as a tree of hard links to *source*'s files (links as links), without the files *leave_out* names."""
    for folder, dirs, files in os.walk(source):
        here = target / Path(folder).relative_to(source)
        here.mkdir(mode=0o755, parents=True, exist_ok=True)
        for name in [*files, *(d for d in dirs if os.path.islink(os.path.join(folder, d)))]:
            path = Path(folder) / name
            if leave_out(path):
                continue
            if path.is_symlink():
                (here / name).symlink_to(os.readlink(path))
            else:
                os.link(path, here / name)
