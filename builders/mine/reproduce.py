"""Reproduce a candidate as Defects4J does: its trigger tests fail on the buggy version and pass on the fixed one.

The buggy version is the fixed revision with the one method as its parent had it, and the fix's tests: for a
single-method fix that is the parent plus the fix's tests. Both run in the NL2Fix harness that ``validate`` uses
(:class:`benchsmith.runners.java.method_runner.InstanceRunner`, on the workspace
:func:`benchsmith.runners.java.defects4j_workspace.prepare`
builds), each :data:`RUNS` times: a test that fails on buggy every time and passes on fixed every time is a trigger
test; one whose outcome changes between runs is flaky and dropped. The relevant tests are, as Defects4J's, the test
classes that load the changed class when they run on the fixed version (:mod:`benchsmith.runners.java.class_loading`);
only
where that run cannot happen are they the test classes whose source names it, and the step says which way
(``relevant_by``). Those of their tests that fail on the fixed version are listed as Defects4J lists its broken
tests (``failing_tests/<revision>``).

Jars come from the fixed revision's pom through the Maven model (:mod:`benchsmith.sources.java.maven`) and Debian's
Maven repository
(:func:`benchsmith.runners.java.classpath.maven_repo_classpath`), copied into the project's ``lib/`` as Defects4J ships
one.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchsmith.builders.mine.select import Candidate
from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.java.class_loading import classes_loading
from benchsmith.runners.java.classpath import DEBIAN_MAVEN_REPO, TEST_FRAMEWORK, maven_repo_classpath
from benchsmith.runners.java.defects4j_workspace import prepare
from benchsmith.runners.java.method_runner import InstanceRunner, Tests
from benchsmith.runners.sandbox.jail import Limits
from benchsmith.sources.defects4j import Defects4JRoot
from benchsmith.sources.java.maven import read_pom

RUNS = 3
BY_CLASS_LOADING = "class loading"  # relevant_by: the test classes whose run loaded the changed class
BY_SOURCE = "source"  # relevant_by (followed by why the class loading could not be listed): those naming it
# In the detail of a step given up as GOLD_BROKEN: no verdict on the step, but on the machine at the time (the harness
# itself failed, a run was killed for its time or ended without a report on a loaded machine, after ATTEMPTS tries).
NO_VERDICT_MARKS = ("error: harness: ", "timeout: killed after", "the test JVM ended without a report")
# How the details of the rejections made once the relevant tests are known begin.
RELEVANT_STAGE_DETAILS = ("fixed version with the relevant tests", "trigger tests fail on the fixed version beside")
M2_REPOSITORY = Path.home() / ".m2" / "repository"
ATTEMPTS = 3  # tries of one run that cannot be judged (a killed JVM) before the step is given up
_TEST_MARK = re.compile(r"@Test\b|extends\s+TestCase\b|@ParameterizedTest\b")
_ABSTRACT = re.compile(r"\babstract\s+class\b")

# Rejections of reproduction.
NO_TESTS_IN_CHANGE = "changed test files hold no tests"
BUILD_FAILED = "build failed"
GOLD_BROKEN = "fixed version cannot be judged"
BUGGY_UNCOMPILABLE = "buggy version does not compile"
NO_TRIGGER = "no trigger test"
ONLY_FLAKY = "only flaky trigger tests"


@dataclass(frozen=True)
class Reproduction:
    reason: str  # "" when reproduced
    detail: str = ""
    trigger_tests: tuple[str, ...] = ()
    relevant_tests: tuple[str, ...] = ()
    broken_tests: tuple[str, ...] = ()  # Class::method of the relevant classes failing on the fixed version
    flaky_tests: tuple[str, ...] = ()
    build_notes: str = ""  # what the Maven model could not find
    relevant_by: str = ""  # how the relevant tests were found: BY_CLASS_LOADING, or BY_SOURCE and why


def stock_libraries(git_dir: Path, revision: str, lib_dir: Path) -> str:
    """Copy the jars the pom at *revision* names (and what they need) from Debian's Maven repository into *lib_dir*
    in Maven's layout; say what the model could not find (a parent pom, artifacts)."""
    pom_text = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{revision}:pom.xml"], capture_output=True
    ).stdout
    if not pom_text:
        return f"no pom.xml at {revision[:12]}"
    with tempfile.TemporaryDirectory(prefix="mine-pom-") as folder:
        pom = Path(folder) / "pom.xml"
        pom.write_bytes(pom_text)
        model = read_pom(pom)
        classpath = maven_repo_classpath(model)
    for jar in map(Path, classpath.jars):
        target = (
            lib_dir / jar.relative_to(DEBIAN_MAVEN_REPO)
            if jar.is_relative_to(DEBIAN_MAVEN_REPO)
            else lib_dir / jar.name
        )
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(jar, target)
    # the version a pom pins, from ~/.m2 where Debian has another (commons-text 1.12 calls commons-lang3 3.14's
    # Range.of; Debian ships 3.12): lib/ then holds both, and the workspace picks the pinned one
    pinned = [
        f"{d.group}:{d.artifact}:{d.version}"
        for d in model.dependencies
        if d.version and "${" not in d.version and d.scope != "system" and not TEST_FRAMEWORK.match(d.artifact)
    ]
    missing = []
    for coordinates in [*classpath.missing, *(c for c in pinned if c not in classpath.missing)]:
        if coordinates in pinned and coordinates not in classpath.missing and not _m2_exact(coordinates):
            continue  # Debian's serves it; ~/.m2 has not this very version either
        jar = _m2_jar(coordinates)
        if jar is None:
            missing.append(coordinates)
            continue
        target = lib_dir / jar.relative_to(M2_REPOSITORY)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(jar, target)
    notes = [f"parent pom {model.missing_parent} not at hand"] if model.missing_parent else []
    if missing:
        notes.append(f"in neither Debian's Maven repository nor ~/.m2: {', '.join(missing[:6])}")
    return "; ".join(notes)


def _m2_exact(coordinates: str) -> bool:
    group, artifact, version = (coordinates.split(":") + ["", "", ""])[:3]
    return M2_REPOSITORY.joinpath(*group.split("."), artifact, version, f"{artifact}-{version}.jar").is_file()


def _m2_jar(coordinates: str) -> Path | None:
    """The jar of ``group:artifact:version`` in ~/.m2: that version, else the newest there (as
    :func:`benchsmith.runners.java.toolchain.library_jars` picks from a ``lib/`` that lacks the version a pom pins)."""
    group, artifact, version = (coordinates.split(":") + ["", "", ""])[:3]
    folder = M2_REPOSITORY.joinpath(*group.split("."), artifact)
    if not folder.is_dir():
        return None
    wanted = [
        folder / version / f"{artifact}-{version}.jar",
        *sorted(folder.glob(f"*/{artifact}-*.jar"), key=lambda jar: _version_key(jar.parent.name), reverse=True),
    ]
    return next(
        (jar for jar in wanted if jar.is_file() and not jar.name.endswith(("-sources.jar", "-javadoc.jar"))), None
    )


def _version_key(version: str) -> tuple:
    return tuple(int(part) if part.isdigit() else -1 for part in re.split(r"[.\-]", version))


def test_class_names(tree: Path, files: tuple[str, ...], test_root: str) -> list[str]:
    """The classes among the test *files* (paths in *tree*) that hold tests; for an abstract one, the concrete test
    classes that extend it (its tests run in them)."""
    names = []
    for path in files:
        text = (tree / path).read_text(encoding="utf-8", errors="replace") if (tree / path).is_file() else ""
        if not _TEST_MARK.search(text):
            continue
        if _ABSTRACT.search(text):
            names += _subclasses(tree / test_root, Path(path).stem)
        else:
            names.append(path.removeprefix(test_root + "/").removesuffix(".java").replace("/", "."))
    return list(dict.fromkeys(names))


def _subclasses(test_root: Path, simple_name: str) -> list[str]:
    extends = re.compile(rf"\bextends\s+{re.escape(simple_name)}\b")
    return [
        ".".join(p.relative_to(test_root).with_suffix("").parts)
        for p in sorted(test_root.rglob("*.java"))
        if extends.search(text := p.read_text(encoding="utf-8", errors="replace")) and not _ABSTRACT.search(text)
    ]


def test_classes(tree: Path, test_dir: str, excluded: set[str]) -> dict[str, str]:
    """The concrete test classes of *test_dir* (those holding tests), but *excluded*: name → source text."""
    root = tree / test_dir
    found = {}
    for path in sorted(root.rglob("*.java")):
        name = ".".join(path.relative_to(root).with_suffix("").parts)
        text = path.read_text(encoding="utf-8", errors="replace")
        if name not in excluded and _TEST_MARK.search(text) and not _ABSTRACT.search(text):
            found[name] = text
    return found


def classes_naming(tree: Path, test_dir: str, simple_name: str, excluded: set[str]) -> list[str]:
    """The test classes of *test_dir* whose source names *simple_name* (the classes that load it, guessed from the
    source: the fallback where they cannot be run)."""
    pattern = re.compile(rf"\b{re.escape(simple_name)}\b")
    return [name for name, text in test_classes(tree, test_dir, excluded).items() if pattern.search(text)]


def relevant_test_classes(runner: InstanceRunner, instance, workspace, trigger: list[str]) -> tuple[list[str], str]:
    """The test classes that load the changed class when they run on the fixed version (with the trigger tests'
    classes), and how they were found: by class loading, or, where that run cannot happen, by reading the sources."""
    excluded = set(workspace.excluded_tests)
    candidates = list(test_classes(workspace.tree, workspace.test_dir, excluded))
    try:
        loaders = classes_loading(runner, instance.fixed_method, runner.candidate_types, candidates, "relevant-loading")
        found, how = list(loaders.classes), BY_CLASS_LOADING
        if loaders.timed_out:
            how += (
                f" ({len(loaders.timed_out)} test class(es) killed for their time: {', '.join(loaders.timed_out[:3])})"
            )
    except (BenchsmithError, OSError) as exc:
        found = classes_naming(workspace.tree, workspace.test_dir, Path(instance.file_path).stem, excluded)
        how = f"{BY_SOURCE}: {str(exc)[:300]}"
    return sorted({*found, *(t.split("::")[0] for t in trigger)}), how


@dataclass(frozen=True)
class Triggered:
    """What the runs of a step's tests on both versions found, when a journal holds it already: only the relevant
    tests remain to be found (a step reproduced before they were found by class loading)."""

    trigger_tests: tuple[str, ...]
    flaky_tests: tuple[str, ...] = ()


def reproduce(
    candidate: Candidate,
    d4j: Defects4JRoot,
    repos: Path,
    limits: Limits,
    logs: Path,
    build_notes: str = "",
    runs: int = RUNS,
    slot: int = 0,
    triggered: Triggered | None = None,
) -> Reproduction:
    """Run the candidate's tests on the fixed and the buggy method, in sandbox *slot* (one this process leased:
    :func:`benchsmith.runners.sandbox.jail.leased_slot`); its trigger and relevant tests, or why none. With *triggered*,
    those
    runs are not made again: only the relevant tests are found and run on the fixed version."""
    instance = candidate.instance
    notes = f" ({build_notes})" if build_notes else ""
    try:
        workspace = prepare(dataclasses.replace(instance, trigger_tests=[], relevant_tests=[]), d4j, repos)
    except BenchsmithError as exc:
        return Reproduction(BUILD_FAILED, f"{exc}{notes}", build_notes=build_notes)
    changed = [
        c
        for c in test_class_names(workspace.tree, candidate.step.test_files, candidate.step.layout[1])
        if c not in workspace.excluded_tests
    ]
    if not changed:
        return Reproduction(NO_TESTS_IN_CHANGE, ", ".join(candidate.step.test_files[:3]), build_notes=build_notes)
    probe = dataclasses.replace(instance, trigger_tests=[], relevant_tests=changed)
    try:
        runner = InstanceRunner(probe, workspace, slot, limits, logs)
    except BenchsmithError as exc:
        return Reproduction(BUILD_FAILED, f"{exc}{notes}", build_notes=build_notes)
    try:
        if triggered is not None:
            return _with_relevant(
                runner, instance, workspace, list(triggered.trigger_tests), set(triggered.flaky_tests), build_notes
            )
        return _judge(runner, instance, workspace, changed, build_notes, runs)
    except BenchsmithError as exc:
        return Reproduction(GOLD_BROKEN, f"harness: {exc}", build_notes=build_notes)
    finally:
        runner.close()


def _failing(runner: InstanceRunner, code: str, name: str, tests: Tests) -> tuple[set[str] | None, str]:
    """The tests failing in one run of *code*, or None and why it could not be judged. A run that could not be judged
    is tried again (:data:`ATTEMPTS` in all): on a loaded machine a JVM or javac is sometimes killed for its time, and
    that is no verdict on the step; a real cause (the code does not compile) repeats."""
    why = ""
    for attempt in range(ATTEMPTS):
        try:
            # a retry takes the plain path (fresh javac, fresh JVM): the fast path's JVM, started ahead, is the one
            # a loaded machine kills most (jsoup's: exit 137 before any report)
            verdict = runner.evaluate(
                code, name if attempt == 0 else f"{name}-attempt{attempt + 1}", fast=attempt == 0, tests=tests
            )
        except BenchsmithError as exc:  # the trusted reference run of the fixed version could not finish
            why = f"error: {exc}"
            continue
        # "wrong" without a failing test: the JVM ended without a report, which judges nothing
        if verdict.status == "plausible" or (verdict.status == "wrong" and verdict.failing_tests):
            return set(verdict.failing_tests), ""
        why = f"{verdict.status}: {verdict.reason}"
    return None, why


def _judge(
    runner: InstanceRunner, instance, workspace, changed: list[str], build_notes: str, runs: int
) -> Reproduction:
    tests = Tests([], changed, stop_early=False)
    gold_runs, buggy_runs = [], []
    for run in range(runs):
        failing, why = _failing(runner, instance.fixed_method, f"gold-{run + 1}", tests)
        if failing is None:
            return Reproduction(GOLD_BROKEN, f"fixed version is {why}", build_notes=build_notes)
        gold_runs.append(failing)
    for run in range(runs):
        failing, why = _failing(runner, instance.buggy_method, f"buggy-{run + 1}", tests)
        if failing is None:
            reason = BUGGY_UNCOMPILABLE if why.startswith("uncompilable") else GOLD_BROKEN
            return Reproduction(reason, f"buggy version is {why}", build_notes=build_notes)
        buggy_runs.append(failing)
    gold_any, gold_all = set().union(*gold_runs), set.intersection(*gold_runs)
    buggy_any, buggy_all = set().union(*buggy_runs), set.intersection(*buggy_runs)
    flaky = (gold_any - gold_all) | (buggy_any - buggy_all)  # passed and failed on the same version
    trigger = sorted(buggy_all - gold_any)
    if not trigger:
        reason = ONLY_FLAKY if flaky else NO_TRIGGER
        detail = (
            f"flaky: {', '.join(sorted(flaky)[:3])}"
            if flaky
            else f"the fix's tests ({', '.join(changed[:3])}) fail on neither version or on both"
        )
        return Reproduction(reason, detail, flaky_tests=tuple(sorted(flaky)), build_notes=build_notes)
    return _with_relevant(runner, instance, workspace, trigger, flaky, build_notes)


def _with_relevant(
    runner: InstanceRunner, instance, workspace, trigger: list[str], flaky: set[str], build_notes: str
) -> Reproduction:
    """The step with its *trigger* tests found: its relevant tests, run once on the fixed version."""
    relevant, relevant_by = relevant_test_classes(runner, instance, workspace, trigger)
    failing, why = _failing(runner, instance.fixed_method, "gold-relevant", Tests(trigger, relevant, stop_early=False))
    if failing is None:
        return Reproduction(
            GOLD_BROKEN,
            f"fixed version with the relevant tests is {why}",
            build_notes=build_notes,
            relevant_by=relevant_by,
        )
    if failing & set(trigger):
        return Reproduction(
            ONLY_FLAKY,
            f"trigger tests fail on the fixed version beside the relevant tests: "
            f"{', '.join(sorted(failing & set(trigger))[:3])}",
            build_notes=build_notes,
            relevant_by=relevant_by,
        )
    return Reproduction(
        "", "", tuple(trigger), tuple(relevant), tuple(sorted(failing)), tuple(sorted(flaky)), build_notes, relevant_by
    )
