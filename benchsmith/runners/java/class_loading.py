"""Which test classes load a class when they run: Defects4J's relevant tests, found as Defects4J finds them.

Defects4J's relevant tests are the test classes that load a modified class (its ``monitor.test`` runs the test classes
and lists the classes loaded). Here the same, on the version given (the fixed one) compiled whole
(:meth:`benchsmith.runners.java.method_runner.InstanceRunner.compile_whole`), jailed in a test lane of the runner's own:

* JUnit 3 and 4 tests run in one JVM (``LoadingProbe.java``), each test class in a class loader of its own over the
  project's classes, which is asked after the run which wanted classes it loaded. A JVM killed for its time loses only
  the class at work: the rest run in the next one.
* Tests on the JUnit Platform (Jupiter) run one test class per JVM on its console launcher with ``-verbose:class``:
  a class loads once per JVM.

A class reached only through another class (a helper, a subclass, a factory) counts, as it does under Defects4J; a
class that merely names the type in a comment or a string does not.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.verdict import Verdict
from benchsmith.runners.java.jvm import fresh_folder
from benchsmith.runners.java.method_runner import InstanceRunner
from benchsmith.runners.java.toolchain import junit_classpath, platform_classpath, runner_classes
from benchsmith.runners.sandbox import jail as sandbox

_PROBE_LINE = re.compile(r"^BENCHSMITH-LOADS (\S+)\t(\S*)$", re.MULTILINE)
# Java 8 writes "[Loaded a.B from file:...]", Java 9 and later "[0.1s][info][class,load] a.B source: ...".
_LOADED = re.compile(r"^\[(?:Loaded |[^\n]*?\[class,load\] )([\w.$]+)", re.MULTILINE)
# The console launcher of Debian's junit5 package (its option parser shaded in). Not its reporting jar: that one is
# built for Java 11, and Defects4J's tests run on Java 8.
CONSOLE_JARS = (Path("/usr/share/java/junit-platform-console.jar"),)
SUMMARY_LINES = 6  # lines of a run's own output kept in the log


@dataclass(frozen=True)
class Loaders:
    """The test classes whose run loaded a wanted type, and those whose JVM was killed for its time (what it had
    loaded by then still counts where it can be told: on the Platform)."""

    classes: tuple[str, ...]
    timed_out: tuple[str, ...] = ()


def classes_loading(
    runner: InstanceRunner, code: str, types: tuple[str, ...], test_classes: list[str], name: str
) -> Loaders:
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
            raise BenchsmithError(
                f"{runner.label}: the version whose class loading is listed was not compiled: {compiled.reason}"
            )
        run = _on_platform if runner.platform else _on_junit4
        loaded, timed_out = run(runner, _Classes(*compiled, folder), types, test_classes, log_path)
        return Loaders(tuple(c for c in test_classes if loaded.get(c)), tuple(timed_out))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True)
class _Classes:
    main: Path
    tests: Path
    folder: Path


def _on_junit4(
    runner: InstanceRunner, classes: _Classes, types: tuple[str, ...], test_classes: list[str], log_path: Path
) -> tuple[dict[str, list[str]], list[str]]:
    loaded: dict[str, list[str]] = {}
    timed_out: list[str] = []
    remaining = list(test_classes)
    while remaining:
        project, system = _classpaths(runner, classes)
        argv = ["LoadingProbe", os.pathsep.join(map(str, project)), ",".join(types), *remaining]
        text, killed = _run(runner, classes, [str(runner_classes()), *map(str, system)], argv)
        done = {test: hits.split(",") if hits else [] for test, hits in _PROBE_LINE.findall(text)}
        loaded.update(done)
        with log_path.open("a") as out:
            out.writelines(
                f"{test}: {'loads ' + ', '.join(hits) if hits else 'loads none'}\n" for test, hits in done.items()
            )
        remaining = [c for c in remaining if c not in done]
        if remaining:  # the JVM was killed, or ended, with this class at work: the next one goes on after it
            timed_out.append(remaining.pop(0))
            with log_path.open("a") as out:
                out.write(f"{timed_out[-1]}: {'killed for its time' if killed else 'its JVM ended'}\n{_said(text)}")
    return loaded, timed_out


def _on_platform(
    runner: InstanceRunner, classes: _Classes, types: tuple[str, ...], test_classes: list[str], log_path: Path
) -> tuple[dict[str, list[str]], list[str]]:
    loaded: dict[str, list[str]] = {}
    timed_out: list[str] = []
    project, system = _classpaths(runner, classes)
    for test_class in test_classes:
        argv = ["-verbose:class", "org.junit.platform.console.ConsoleLauncher", "--select-class", test_class]
        text, killed = _run(runner, classes, [*map(str, project), *map(str, system), *map(str, CONSOLE_JARS)], argv)
        names = set(_LOADED.findall(text))
        loaded[test_class] = sorted(t for t in types if any(c == t or c.startswith(t + "$") for c in names))
        if killed:
            timed_out.append(test_class)
        with log_path.open("a") as out:
            out.write(
                f"{test_class}: {'loads ' + ', '.join(loaded[test_class]) if loaded[test_class] else 'loads none'}"
                f"{' (killed for its time)' if killed else ''}\n{_said(text)}"
            )
    return loaded, timed_out


def _classpaths(runner: InstanceRunner, classes: _Classes) -> tuple[list[Path], list[Path]]:
    """The project's class path (its classes, its tests, their resources) and the shared one (libraries, JUnit).
    Resource folders are on both: tests read them through ClassLoader.getSystemResource too (Csv's
    CSVFileParserTest)."""
    cwd = classes.folder / "tree"
    resources = [cwd / p.relative_to(runner.workspace.tree) for p in runner.workspace.resource_dirs()]
    engine = [*junit_classpath(), *(platform_classpath() if runner.platform else [])]
    system = [*resources, *map(Path, runner.workspace.junit_hamcrest), *map(Path, runner.workspace.libraries), *engine]
    return [classes.main, classes.tests, *resources], system


def _run(runner: InstanceRunner, classes: _Classes, classpath: list[str], arguments: list[str]) -> tuple[str, bool]:
    """Run ``java -cp classpath arguments`` jailed (the tree a private copy at the classes' folder's ``tree``, where
    tests read their files); its output, and whether it was killed for its time."""
    cwd = classes.folder / "tree"
    runtime = runner.runtime
    argv = [runtime.java, *runtime.options(), "-cp", os.pathsep.join(classpath), *arguments]
    read_only = [
        runtime.home,
        runner_classes(),
        classes.main,
        classes.tests,
        *map(Path, runner.workspace.libraries),
        *map(Path, runner.workspace.junit_hamcrest),
        *junit_classpath(),
        *([*platform_classpath(), *CONSOLE_JARS] if runner.platform else []),
    ]
    jail = sandbox.Jail(read_only=tuple(dict.fromkeys(read_only)), trees=((runner.test_tree, cwd),))
    output = classes.folder / "probe.log"
    output.unlink(missing_ok=True)
    try:
        with runner.test_jvms().lane() as lane:
            outcome = sandbox.run(argv, cwd, runner.slot, runner.limits, output, jail=jail, lane=lane)
        return (output.read_text(errors="replace") if output.is_file() else ""), outcome.timed_out
    finally:
        shutil.rmtree(cwd, ignore_errors=True)
        output.unlink(missing_ok=True)


def _said(text: str) -> str:
    """The last lines a run wrote besides the class-loading log (JUnit's summary), indented for the log."""
    said = [line for line in text.splitlines() if line.strip() and not _LOADED.match(line)][-SUMMARY_LINES:]
    return "".join(f"    {line[:300]}\n" for line in said)
