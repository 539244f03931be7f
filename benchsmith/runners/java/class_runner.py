"""Run a Java classbench task's candidates: the class's file replaced by the candidate, the directives run.

A candidate is the whole file (package, imports, the class), as the RepoClassBench paper's
Java ground truths are. It runs through the NL2Fix machinery
(``benchsmith.runners.java.method_runner``): the public view of the repository's workspace
without the file, a warm compiler that executes nothing of a candidate's, and
one fresh test JVM per candidate in a jail and a uid of its own, here on the
JUnit Platform (Jupiter, and JUnit 3 and 4 through the vintage engine), with
sentinel tests planted among the directives. Every directive runs (TR counts
them all).

The fast path compiles the candidate with every file of the view that names
the class, so that what they compiled against the ground truth (a constant
inlined, a signature) is checked against the candidate instead: a candidate
that breaks a caller does not compile, on either path.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask
from benchsmith.core.verdict import Verdict
from benchsmith.runners.java.insertion import UnreadableJava, javac_text
from benchsmith.runners.java.jvm import TestJvms, fresh_folder
from benchsmith.runners.java.maven_workspace import JavaSetup, JavaWorkspace, java_workspace
from benchsmith.runners.java.method_runner import TEST_JVM_OPTIONS, InstanceRunner, Tests
from benchsmith.runners.java.toolchain import junit_classpath, platform_classpath, project_runtime
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.sources.checkout import source_tree
from benchsmith.sources.java.class_file import java_unit


class ClassTaskRunner(InstanceRunner):
    """Judges the candidates of one Java classbench task in one sandbox slot."""

    def __init__(self, task: ClassBenchTask, prepared: JavaWorkspace, slot: int, limits: sandbox.Limits, logs: Path):
        self.task = task
        self.excluded = ()
        workspace = prepared.workspace
        if not (workspace.tree / task.file_path).is_file():
            # a task imported from elsewhere (the published ones) whose class the workspace left out as not compiling
            qualified = (
                ".".join(Path(task.file_path).relative_to(workspace.source_dir).with_suffix("").parts)
                if Path(task.file_path).is_relative_to(workspace.source_dir)
                else task.file_path
            )
            why = prepared.excluded_main.get(qualified, "it is not in the module")
            raise BenchsmithError(f"{task.task_id}: its class was left out of the workspace {workspace.root}: {why}")
        for directive in task.test_directives:
            test_class = directive.split("::")[0]
            if test_class in prepared.excluded_tests:
                raise BenchsmithError(
                    f"{task.task_id}: its test class {test_class} was left out of the workspace "
                    f"{workspace.root}: {prepared.excluded_tests[test_class]}"
                )
        host = (workspace.tree / task.file_path).read_text(encoding=workspace.encoding, errors="surrogateescape")
        self.package = java_unit(host, task.file_path).package
        self.allowed_types = {t.name for t in java_unit(host, task.file_path).types}
        self._open(
            task.task_id,
            task.file_path,
            task.ground_truth_class,
            Tests(list(task.test_directives), [], stop_early=False),
            workspace,
            slot,
            limits,
            logs,
            platform=True,
            release=prepared.setup.release or "8",
            runtime=test_runtime(prepared),
        )
        self._dependents = _dependents(self.view.tree, workspace, task.file_path, task.class_name)

    def source_with(self, code: str) -> str:
        return code

    def check(self, code: str) -> tuple[bool, str]:
        """The candidate's file declares the class in the task's package, and no top-level type the file lacks (one
        named like a test class would stand in for it). Read as javac reads it: javac ends a // comment at a lone
        carriage return (raw or escaped), javalang does not, and a type after one was invisible here (red team round
        6)."""
        try:
            unit = java_unit(javac_text(code), "the candidate")
        except UnreadableJava as exc:
            return False, f"cannot read the Java tokens: {exc}"
        except BenchsmithError as exc:
            return False, str(exc).removeprefix("the candidate: ")
        names = [t.name for t in unit.types]
        if self.task.class_name not in names:
            return False, f"does not declare the top-level class {self.task.class_name}"
        if unit.package != self.package:
            return False, f"declares package {unit.package or '(none)'}, not {self.package or '(none)'}"
        strangers = [n for n in names if n not in self.allowed_types]
        if strangers:
            return False, f"declares top-level types the file does not have: {', '.join(strangers[:3])}"
        return True, ""

    def candidate_sources(self, folder: Path, code: str) -> list[Path]:
        return [self._write_source(folder, code), *self._dependents]

    def _compile_classpath(self) -> list[Path]:
        return [self.view.classes, self.view.test_classes, *self._libraries()]

    def evaluate(self, code: str, name: str, fast: bool = True, tests: Tests | None = None) -> Verdict:
        verdict = super().evaluate(code, name, fast, tests)
        if verdict.status == "plausible" and not verdict.tests_passed:
            verdict.status, verdict.reason = "wrong", "no directive ran"
        return verdict


def _dependents(view_tree: Path, workspace, file_path: str, class_name: str) -> list[Path]:
    """Files of the view (main and test sources) that name the class: compiled again with each candidate."""
    word = re.compile(rf"\b{re.escape(class_name)}\b")
    found = []
    for folder in (workspace.source_dir, workspace.test_dir):
        for path in sorted((view_tree / folder).rglob("*.java")):
            relative = path.relative_to(view_tree)
            if str(relative) == file_path or _class_name(folder, relative) in workspace.excluded_tests:
                continue
            if word.search(path.read_text(encoding="utf-8", errors="replace")):
                found.append(path)
    return found


def _class_name(folder: str, relative: Path) -> str:
    return ".".join(relative.relative_to(folder).with_suffix("").parts)


def test_runtime(prepared: JavaWorkspace):
    """The JVM the workspace's tests run on: the release its pom asks for (Java 8 on the bundled runtime)."""
    return project_runtime(prepared.setup.release or "8", [Path(entry) for entry in prepared.libraries])


def task_workspace(task: ClassBenchTask) -> JavaWorkspace:
    """The workspace a Java task was built in, made again from its repository and setup where it is not cached."""
    key, tree, _ = source_tree(task.repo, task.commit or None)
    return java_workspace(tree, key, JavaSetup.from_json(task.setup))


@dataclass(frozen=True)
class SuiteReport:
    """What one run of a repository's suite reported: each test as it ran (``pkg.Class::method``, the class it ran
    under, nested ones with ``$``) with its outcome, and the tests that ran with no method for a source (a runner's
    own names), which no directive can name."""

    outcomes: dict[str, str]
    unattributed: list[dict[str, str]] = field(default_factory=list)  # {"class", "name", "outcome"}


def run_suite(prepared: JavaWorkspace, slot: int, limits: sandbox.Limits, log_path: Path) -> SuiteReport:
    """One sandboxed run of the repository's whole suite on the JUnit Platform, as its report gives it.

    The repository's own tests on its own code: trusted to report, but still run in a jail, as any test is."""
    workspace = prepared.workspace
    scratch = cache_dir("scratch")
    scratch.chmod(0o711)
    box = fresh_folder(scratch, None, slot)
    box.chmod(0o711)
    libraries = [*map(Path, workspace.libraries), *junit_classpath(), *platform_classpath()]
    resources = [str(p.relative_to(workspace.tree)) for p in workspace.resource_dirs()]
    jvms = TestJvms(
        slot,
        box,
        workspace.tree,
        [workspace.classes, workspace.test_classes, *libraries],
        limits,
        TEST_JVM_OPTIONS,
        resources,
        platform=True,
        runtime=test_runtime(prepared),
        runner_jars=tuple(map(Path, workspace.junit_hamcrest)),  # the pom's JUnit 4, ahead of the runner's
    )
    jvm = jvms.fresh()
    try:
        classpath = [
            workspace.classes,
            workspace.test_classes,
            *(jvm.cwd / r for r in resources),
            *map(Path, workspace.libraries),
        ]
        report, why = jvm.run(classpath, True, (), prepared.test_classes, [])
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_text((why + "\n" if why else "") + jvm.log_text())
    finally:
        jvms.retire(jvm)
        jvms.close()
        shutil.rmtree(box, ignore_errors=True)
    if report is None:
        return SuiteReport({})
    return SuiteReport(
        {t["name"]: t["outcome"] for t in report["tests"] if "::" in t.get("name", "")},
        [
            {"class": str(u.get("class", "")), "name": str(u.get("name", "")), "outcome": str(u.get("outcome", ""))}
            for u in report.get("unattributed", [])
        ],
    )
