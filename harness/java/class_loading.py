"""Which test classes load a class when they run: Defects4J's relevant tests, found as Defects4J finds them.

Defects4J's relevant tests are the test classes that load a modified class (its ``monitor.test`` runs each test class
and lists the classes the class loader loaded). Here the same: the version given (the fixed one) is compiled whole
(:meth:`harness.java.method_runner.InstanceRunner.compile_whole`), then each test class runs alone in a fresh JVM of
the runner's (a class loads once per JVM, so one JVM per test class), jailed in a lane of the runner's own, with
``-verbose:class``; a test class is relevant when that log names one of the wanted types or a nested class of one.
A class reached only through another class (a helper, a subclass, a factory) counts, as it does under Defects4J; a
class that merely names the type in a comment does not.

Tests run on JUnit 4's ``JUnitCore`` (JUnit 3 and 4 tests, as Defects4J runs them), or on the JUnit Platform's console
launcher where the project's tests need the Platform (Jupiter).
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.verdict import Verdict
from harness.java.jvm import fresh_folder
from harness.java.method_runner import InstanceRunner
from harness.java.toolchain import junit_classpath, platform_classpath
from harness.sandbox import jail as sandbox

# Java 8 writes "[Loaded a.B from file:...]", Java 9 and later "[0.1s][info][class,load] a.B source: ...".
_LOADED = re.compile(r"^\[(?:Loaded |[^\n]*?\[class,load\] )([\w.$]+)", re.MULTILINE)
# The console launcher of Debian's junit5 package (its option parser shaded in). Not its reporting jar: that one is
# built for Java 11, and Defects4J's tests run on Java 8.
CONSOLE_JARS = (Path("/usr/share/java/junit-platform-console.jar"),)
SUMMARY_LINES = 6  # lines of a run's own output kept in the log


@dataclass(frozen=True)
class Loaders:
    """The test classes whose run loaded a wanted type, and those whose JVM was killed for its time (what it had
    loaded by then still counts)."""

    classes: tuple[str, ...]
    timed_out: tuple[str, ...] = ()


def classes_loading(runner: InstanceRunner, code: str, types: tuple[str, ...], test_classes: list[str],
                    name: str) -> Loaders:  # fmt: skip
    """The classes among *test_classes* that load one of *types* (binary names of top-level types) when they run on
    the runner's workspace with *code* as the candidate's method (trusted: the ground truth); the runs logged to
    ``<runner logs>/<name>.log``. Raises BenchsmithError when that version does not compile."""
    runner.logs.mkdir(parents=True, exist_ok=True)
    log_path = runner.logs / f"{name}.log"
    log_path.write_text(f"[class loading of {', '.join(types)}]\n")
    folder = fresh_folder(runner.box, None, runner.slot)
    try:
        compiled = runner.compile_whole(code, folder, log_path)
        if isinstance(compiled, Verdict):
            raise BenchsmithError(f"{runner.label}: the version whose class loading is listed does not compile: "
                                  f"{compiled.reason}")  # fmt: skip
        classes, tests = compiled
        found, timed_out = [], []
        for test_class in test_classes:
            loaded, killed, said = _loaded_by(runner, classes, tests, test_class, folder)
            if killed:
                timed_out.append(test_class)
            hit = sorted(t for t in types if any(c == t or c.startswith(t + "$") for c in loaded))
            with log_path.open("a") as out:
                out.write(f"{test_class}: {len(loaded)} classes loaded{' (killed for its time)' if killed else ''}"
                          f"{'; loads ' + ', '.join(hit) if hit else ''}\n{said}")  # fmt: skip
            if hit:
                found.append(test_class)
        return Loaders(tuple(found), tuple(timed_out))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _loaded_by(runner: InstanceRunner, classes: Path, tests: Path, test_class: str,
               folder: Path) -> tuple[set[str], bool, str]:  # fmt: skip
    """The classes one JVM loaded while running *test_class* alone; whether it was killed for its time; the last
    lines of what its tests wrote (the runner's summary), for the log."""
    run_folder = fresh_folder(folder, None, runner.slot)
    cwd = run_folder / "tree"  # a private copy of the tree: tests read their resources relative to it
    tree = runner.test_tree
    platform = runner.platform
    engine = [*junit_classpath(), *([*platform_classpath(), *CONSOLE_JARS] if platform else [])]
    libraries = [Path(p) for p in runner.workspace.libraries]
    resources = [cwd / p.relative_to(runner.workspace.tree) for p in runner.workspace.resource_dirs()]
    classpath = [classes, tests, *resources, *libraries, *map(Path, runner.workspace.junit_hamcrest), *engine]
    main = ["org.junit.platform.console.ConsoleLauncher", "--select-class", test_class] if platform \
        else ["org.junit.runner.JUnitCore", test_class]  # fmt: skip
    runtime = runner.runtime
    argv = [runtime.java, *runtime.options(), "-verbose:class", "-cp", os.pathsep.join(map(str, classpath)), *main]
    jail = sandbox.Jail(read_only=tuple(dict.fromkeys([runtime.home, classes, tests, *libraries, *engine,
                                                       *map(Path, runner.workspace.junit_hamcrest)])),
                        trees=((tree, cwd),))  # fmt: skip
    output = run_folder / "jvm.log"
    try:
        with runner.test_jvms().lane() as lane:
            outcome = sandbox.run(argv, cwd, runner.slot, runner.limits, output, jail=jail, lane=lane)
        text = output.read_text(errors="replace") if output.is_file() else ""
        said = [line for line in text.splitlines() if line.strip() and not _LOADED.match(line)][-SUMMARY_LINES:]
        return set(_LOADED.findall(text)), outcome.timed_out, "".join(f"    {line[:300]}\n" for line in said)
    finally:
        shutil.rmtree(run_folder, ignore_errors=True)
