"""Run one NL2Fix instance's candidates, each in a JVM and a jail of its own.

Fast path: a warm compiler (which executes nothing of a candidate's)
compiles only the changed file against the public view's classes; a test JVM
started ahead of the candidate (warmed up on JUnit, its class loaders made and
the public classes defined in them) runs its tests once and is killed. Plain
path: javac of every source and test in a jail, then a fresh test JVM. Neither
sees the ground truth: the public view (``benchsmith.runners.java.defects4j_workspace.java_public_view``)
lacks the fixed file and its classes.

No secret signs a report: the first report line the test JVM writes is held
against what was asked (``benchsmith.runners.sandbox.outcomes``): every test once, and planted
sentinel tests with the outcomes they must have. The names a class-level
request must report come from one trusted run of the ground truth (the
*reference*).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import random
import re
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import NL2FixInstance
from benchsmith.core.verdict import Verdict
from benchsmith.runners.java.defects4j_workspace import PublicView, Workspace, java_public_view
from benchsmith.runners.java.insertion import add_imports, is_single_method, split_host
from benchsmith.runners.java.jvm import COMPILER_LANE, COMPILER_READY_SECONDS, Compiler, TestJvm, TestJvms, fresh_folder
from benchsmith.runners.java.jvm_modules import limit_modules, modules_named
from benchsmith.runners.java.sentinels import JavaSentinels
from benchsmith.runners.java.toolchain import (
    JAVA_RELEASE,
    JavaRuntime,
    default_runtime,
    defects4j_runtime,
    jdk_for,
    junit_classpath,
    platform_classpath,
)
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.runners.sandbox.outcomes import Expected, Sentinel, check_report, placed_among
from benchsmith.runners.sandbox.retries import (
    ATTEMPTS,
    START_PAUSE,
    Died,
    Killed,
    OutOfTime,
    retried,
    seconds_text,
    timeout_verdict,
)
from benchsmith.sources.java.class_file import java_unit

log = logging.getLogger(__name__)

# The warm compiler's JIT settles after some 40 compiles (Codec's Base64.java: 295 ms for the first, 30 ms for the
# fourth, 12 ms for the thirty-second); a runner pays up to this once, before its first candidate.
WARM_UP_COMPILES = (4, 40)  # at least, at most
WARM_UP_SECONDS = 1.5
# The test JVM checks no bytecode from class files: javac made them from source, and whatever a candidate defines at
# run time can only harm the one JVM it has, which is killed after its report.
TEST_JVM_OPTIONS = ["-XX:+UnlockDiagnosticVMOptions", "-XX:-BytecodeVerificationRemote"]


@dataclass(frozen=True)
class Tests:
    trigger: list[str]
    relevant: list[str]
    stop_early: bool = True  # skip the relevant classes after a trigger test fails
    excluded: tuple[str, ...] = ()  # Class::method left out of the relevant classes (known broken or flaky)

    @classmethod
    def for_instance(cls, instance: NL2FixInstance, excluded: Iterable[str] = (), stop_early: bool = True) -> Tests:
        """``Class::*`` among *excluded* leaves the whole relevant class out (JUnit refuses a class filtered empty)."""
        excluded = tuple(excluded)
        whole = {e.removesuffix("::*") for e in excluded if e.endswith("::*")}
        relevant = [c for c in instance.relevant_tests if c not in whole]
        return cls(
            list(instance.trigger_tests), relevant, stop_early, tuple(e for e in excluded if not e.endswith("::*"))
        )

    @property
    def key(self) -> tuple:
        return tuple(self.trigger), tuple(self.relevant), self.excluded


class InstanceRunner:
    """Runs candidates of one instance in one sandbox slot."""

    def __init__(
        self,
        instance: NL2FixInstance,
        workspace: Workspace,
        slot: int,
        limits: sandbox.Limits,
        logs: Path,
        excluded: Iterable[str] = (),
    ):
        self.instance = instance
        self.excluded = tuple(excluded)
        host = (workspace.tree / instance.file_path).read_bytes().decode(workspace.encoding, errors="surrogateescape")
        self.prefix, self.suffix = split_host(add_imports(host, workspace.buggy_only_imports), instance)
        self._open(
            instance.instance_id,
            instance.file_path,
            instance.fixed_method,
            Tests.for_instance(instance, excluded),
            workspace,
            slot,
            limits,
            logs,
            workspace.platform,
            workspace.release,
            defects4j_runtime(),
        )

    def _open(
        self,
        label: str,
        file_path: str,
        reference_code: str,
        default_tests: Tests,
        workspace: Workspace,
        slot: int,
        limits: sandbox.Limits,
        logs: Path,
        platform: bool = False,
        release: str = JAVA_RELEASE,
        runtime: JavaRuntime | None = None,
    ) -> None:
        """What every Java runner holds: the workspace's public view without *file_path*, the scratch box, the
        sentinels; *reference_code* is the ground truth's candidate (trusted, run once for the expected test names),
        *platform* runs the tests on the JUnit Platform, *release* is the Java release compiled for."""
        self.label, self.file_path, self.reference_code = label, file_path, reference_code
        self.default_tests = default_tests
        self.platform, self.release = platform, release
        self.runtime = runtime or default_runtime()  # the JVM that runs the tests
        self.workspace = workspace
        self.slot = slot
        self.limits = limits
        self.logs = logs
        self.view: PublicView = java_public_view(workspace, file_path)
        host = (workspace.tree / file_path).read_bytes().decode(workspace.encoding, errors="surrogateescape")
        # The candidate's classes: the types its file declares, and their nested classes (Confinement.java).
        unit = java_unit(host, file_path)
        self.candidate_types = tuple(f"{unit.package}.{t.name}" if unit.package else t.name for t in unit.types)
        self.rights: str | None = None  # what the candidate's classes hold: what the ground truth's run used
        self.confined = True  # False: the layer a JVM without a security manager lacks (the red team's tests)
        self.modules_left_out: list[
            str
        ] = []  # JDK modules the test JVMs start without (benchsmith.runners.java.jvm_modules)
        scratch = cache_dir("scratch")
        scratch.chmod(0o711)
        self.box = fresh_folder(scratch, None, slot)  # root's; its subfolders are handed out one by one
        self.box.chmod(0o711)
        self._sentinels = JavaSentinels(self)
        self._expected: dict[tuple, dict[str, list[str]]] = {}
        self._reported: dict[tuple, dict[str, list[str]]] = {}  # spec → every name the reference run reported for it
        self._placements: dict[tuple, list[str]] = {}  # tests' key → phase 2 as the reference run ran it (_placed)
        self._compiler: Compiler | None = None
        self._warming: threading.Thread | None = None  # the start's warm-up compiles (_begin)
        self._jvms: TestJvms | None = None  # made once the sentinels exist: the JVMs' tree holds them

    def source_with(self, code: str) -> str:
        # A line break after the candidate, unless the host has one there: a candidate ending in a // comment must
        # not swallow the rest of the host's line.
        joint = "" if self.suffix.startswith(("\n", "\r")) else "\n"
        return self.prefix + code + joint + self.suffix

    # What every JVM of this instance may read, besides its own folders.
    def _libraries(self) -> list[Path]:
        return [
            *map(Path, self.workspace.libraries),
            *junit_classpath(),
            *(platform_classpath() if self.platform else []),
        ]

    def _compile_classpath(self) -> list[Path]:
        """What the fast path compiles a candidate against."""
        return [self.view.classes, *self._libraries()]

    def check(self, code: str) -> tuple[bool, str]:
        """Whether *code* has the candidate's shape (one method here), with the reason when not."""
        return is_single_method(code)

    def candidate_sources(self, folder: Path, code: str) -> list[Path]:
        """The sources the fast path compiles for a candidate: its file (written under *folder*), and any file of the
        view whose classes must be compiled again with it."""
        return [self._write_source(folder, code)]

    def _resource_dirs(self, tree: Path) -> list[Path]:
        return [tree / p.relative_to(self.workspace.tree) for p in self.workspace.resource_dirs()]

    def evaluate(self, code: str, name: str, fast: bool = True, tests: Tests | None = None) -> Verdict:
        """The verdict on one candidate method, logged to ``logs/<name>.log``.

        *tests* defaults to the instance's trigger tests (stopping at the first
        failure) and relevant test classes.
        """
        started = time.monotonic()
        tests = tests or self.default_tests
        ok, reason = self.check(code)
        if not ok:
            verdict = Verdict("uncompilable", reason=reason)
        else:
            verdict = self._fast(code, name, tests) if fast else None
            if verdict is None:
                verdict = self.plain(code, name, tests)
        verdict.seconds = time.monotonic() - started
        return verdict

    # -- the fast path -------------------------------------------------------------------------------------------

    def _compiler_ready(self, warm: bool = True) -> Compiler:
        """The warm compiler, started (and, with *warm*, warmed up) if it is not running."""
        if self._compiler is None or not self._compiler.alive():

            def start(seconds: float) -> Compiler:
                compiler = Compiler(
                    self.slot,
                    self.box,
                    [self.view.tree, self.view.test_classes, *self._compile_classpath()],
                    self.logs / "compiler.log",
                    self.limits,
                    self.release,
                    ready_seconds=seconds,
                )
                try:  # warming up is part of its start, and has its time: a warm-up the clock ends starts it again
                    if warm:
                        self._warm_up(compiler, seconds)
                except BaseException:
                    compiler.close()
                    raise
                return compiler

            self._compiler = started_with_backoff(start, f"{self.label}: the warm compiler")
        return self._compiler

    def _begin(self) -> None:
        """The runner's start, its steps overlapped where they can be. One after the other they were the first
        candidate's 4 to 7 s (Cli-5, Codec-9, Gson-16, JacksonCore-5): the compiler's start and 1.5 s of warm-up
        compiles, the sentinel tests' compile, then the boot of the reference run's test JVM and its run of every
        test. Now the sentinels are compiled first, on the cold compiler (their compiles warm javac up too, and
        count in the warm-up's time), then the reference run's JVM boots and runs while the warm-up compiles go on,
        on a thread of their own, taking turns with the reference run's compile of the ground truth
        (Compiler.compile serves one request at a time); the reference run waits for them before it ends. Nothing is
        shared that was not: the same processes, in the same jails and lanes, and no candidate is judged until the
        start is over."""
        if self._compiler is not None or self._sentinels.planted:
            return
        compiler = self._compiler_ready(warm=False)
        since = time.monotonic()
        self._sentinels_ready()
        self._test_jvms().start_ahead()

        def warm() -> None:
            try:
                self._warm_up(compiler, COMPILER_READY_SECONDS, since)
            except (OSError, Killed) as exc:  # the compiler is gone or closed: the next compile starts it, warm
                log.warning("%s: the warm compiler's warm-up failed (%s)", self.label, exc)

        self._warming = threading.Thread(target=warm, name=f"benchsmith-warm-up-{self.slot}", daemon=True)
        self._warming.start()

    def _warmed_up(self) -> None:
        """Wait for the start's warm-up compiles (_begin), if any are still going."""
        warming, self._warming = self._warming, None
        if warming is not None:
            warming.join()

    def _warm_compile(self, sources: list[Path], output: Path) -> dict:
        """*sources* compiled into *output* by the warm compiler (started again if it is gone); a compile the wall
        clock ends is tried again with more time (``benchsmith.runners.sandbox.retries``), then OutOfTime."""
        return retried(
            lambda seconds: self._compiler_ready().compile(sources, output, self._compile_classpath(), seconds),
            f"{self.label}: javac in the warm compiler",
            self.limits.wall_seconds,
        )

    def _sentinels_ready(self) -> None:
        """The sentinel tests written and compiled (once per runner), by the warm compiler. Once they are, the plain
        path needs no warm compiler (its javac, in the compiler's lane, ends the one there)."""
        if self._sentinels.planted:
            return
        retried(
            lambda seconds: self._sentinels.ensure(self._compiler_ready(), seconds),
            f"{self.label}: javac of the sentinel tests in the warm compiler",
            self.limits.wall_seconds,
        )

    def _warm_up(self, compiler: Compiler, seconds: float, since: float | None = None) -> None:
        """A few compiles of the ground truth's file before the first candidate's, each given *seconds*: javac is slow
        until the JIT knows it. *since*: when the compiler's work began (compiles before these warmed it too)."""
        folder = fresh_folder(self.box, None, self.slot)
        try:
            sources = self.candidate_sources(folder, self.reference_code)
            output = fresh_folder(folder, COMPILER_LANE, self.slot)
            started = time.monotonic() if since is None else since
            for number in range(WARM_UP_COMPILES[1]):
                if number >= WARM_UP_COMPILES[0] and time.monotonic() - started > WARM_UP_SECONDS:
                    break
                compiler.compile(sources, output, self._compile_classpath(), seconds)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    @property
    def test_tree(self) -> Path:
        """The tree the test JVMs see: the public view, the sentinel tests planted in it."""
        self._sentinels_ready()
        return self._sentinels.tree

    def test_jvms(self) -> TestJvms:
        """The runner's test JVMs (started at first use)."""
        return self._test_jvms()

    def _test_jvms(self) -> TestJvms:
        if self._jvms is None:
            self._sentinels_ready()
            resources = [str(p.relative_to(self.workspace.tree)) for p in self.workspace.resource_dirs()]
            used = (
                modules_named([self.view.classes, self.view.test_classes, *map(Path, self.workspace.libraries)])
                if self.runtime.version >= 11
                else set()
            )
            modules, self.modules_left_out = limit_modules(self.runtime, used)
            self._jvms = TestJvms(
                self.slot,
                self.box,
                self._sentinels.tree,
                [self.view.classes, self._sentinels.test_classes, *self._libraries()],
                self.limits,
                [*TEST_JVM_OPTIONS, *modules],
                resources,
                self.platform,
                self.runtime,
                merged=self.view.classes,
                runner_jars=tuple(map(Path, self.workspace.junit_hamcrest)),
                announce=self._fast_classpath,
            )
        return self._jvms

    def _fast(self, code: str, name: str, tests: Tests) -> Verdict | None:
        try:
            self._begin()
            self._compiler_ready()
            expected = self._expected_names(tests)
            jvms = self._test_jvms()
            jvm = jvms.take()
        except OutOfTime as exc:  # the harness's own steps for the instance, which the plain path needs as well
            return Verdict("error", reason=f"harness: {exc}", path="fast")
        except OSError as exc:
            log.warning("%s: the fast path failed (%s); using the plain path", self.label, exc)
            return None
        try:
            sources = self.candidate_sources(jvm.folder, code)
            answer = self._warm_compile(sources, jvm.output)
            if not answer.get("compiled"):
                diagnostics = answer.get("diagnostics", "").strip()
                self._log(name, "fast", diagnostics or "does not compile")
                first = diagnostics.splitlines()[0].split(": ", 1)[-1] if diagnostics else "does not compile"
                return Verdict("uncompilable", reason=first, path="fast", messages={"compiler": diagnostics[:4000]})
            verdict, report = self._judge(jvm, self._fast_classpath(jvm), tests, expected, "fast")
            self._log(name, "fast", report + jvm.log_text())
            return verdict
        except OutOfTime as exc:  # the plain path's javac of every source would take longer still
            self._log(name, "fast", str(exc))
            return timeout_verdict(exc, "fast")
        except OSError as exc:
            log.warning("%s: the fast path failed (%s); using the plain path", self.label, exc)
            return None
        finally:
            jvms.retire(jvm)

    def _write_source(self, folder: Path, code: str) -> Path:
        source = folder / "src" / self.file_path
        source.parent.mkdir(parents=True)
        source.write_bytes(self.source_with(code).encode("utf-8", errors="surrogateescape"))
        return source

    def _runtime_classpath(self, main: list[Path], test_classes: Path, tree: Path) -> list[Path]:
        return [*main, test_classes, *self._resource_dirs(tree), *map(Path, self.workspace.libraries)]

    def _fast_classpath(self, jvm: TestJvm) -> list[Path]:
        """The class path of the fast path's requests to *jvm* (and of the reference run's), the one announced to
        it when it started: its class loaders, made ahead, serve only a request naming the same."""
        return self._runtime_classpath(jvm.main_classes(self.view.classes), self._sentinels.test_classes, jvm.cwd)

    def _judge(
        self, jvm: TestJvm, classpath: list[Path], tests: Tests, expected: dict[str, list[str]], path: str
    ) -> tuple[Verdict, str]:
        """Send the request to *jvm* (naming *classpath*) and hold its report against what was asked; the verdict
        and, for the log, the outcomes of the real tests."""
        sentinels = self._sentinels.for_request()
        phase1 = list(tests.trigger)
        phase2 = self._placed(tests, sentinels.specs)
        report, why = jvm.run(
            classpath,
            not tests.stop_early,
            tests.excluded,
            phase1,
            phase2,
            self.candidate_types,
            (self.rights or "") if self.confined else "off",
        )
        if report is None:
            return Verdict(
                "timeout" if why.startswith("killed") else "wrong", compiled=True, reason=why, path=path
            ), why + "\n"
        names = {**expected, **sentinels.names}
        wanted = Expected(
            [
                [tuple(f"{number}|{n}" for n in names[spec]) for spec in phase]
                for number, phase in ((1, phase1), (2, phase2))
            ],
            [Sentinel(f"{phase}|{s.name}", s.passes, twin_of=s.twin_of) for phase, s in sentinels.tests],
            run_all=not tests.stop_early,
            strict_names=True,
            also_allowed=frozenset(
                f"{number}|{name}"
                for number, phase in ((1, phase1), (2, phase2))
                for spec in phase
                for name in (spec, *self._reported.get(tests.key, {}).get(spec, ()))
            ),
        )
        entries = report["tests"]
        reported = [(f"{t.get('phase')}|{t.get('name')}", t.get("outcome", "")) for t in entries]
        checked = check_report(reported, wanted)
        if checked.forged:
            return _forged(checked.forged, path)
        failing = [name.split("|", 1)[1] for name in checked.failing]
        messages = {f"{t.get('phase')}|{t.get('name')}": t.get("message", "") for t in entries}
        verdict = Verdict(
            "wrong" if failing or not checked.outcomes else "plausible",
            compiled=True,
            tests_passed=len(checked.outcomes) - len(failing),
            tests_failed=len(failing),
            failing_tests=list(dict.fromkeys(failing)),
            path=path,
        )
        verdict.messages = {name.split("|", 1)[1]: messages.get(name, "") for name in checked.failing}
        trigger_failed = any(name.startswith("1|") for name in checked.failing)
        regression = {n: o for n, o in checked.outcomes.items() if n.startswith("2|") and n[2:] not in tests.trigger}
        if regression and (not trigger_failed or not tests.stop_early):
            verdict.regression_passed = all(o == "passed" for o in regression.values())
        if failing:
            first = checked.failing[0]
            what = checked.outcomes[first]
            detail = messages.get(first) or ("did not report" if what == "missing" else what)
            verdict.reason = (
                f"{'trigger' if first.startswith('1|') else 'relevant'} test fails: {failing[0]}: {detail[:200]}"
            )
        elif not checked.outcomes:
            verdict.reason = "no test ran"
        lines = [
            f"{outcome:10} {name.split('|', 1)[1]} {messages.get(name, '')[:500]}".rstrip()
            for name, outcome in checked.outcomes.items()
        ]
        confined = report.get("confinement", {})
        lines.append(
            f"confinement: the candidate's classes {', '.join(confined.get('candidate', [])) or '(none)'} "
            f"held {', '.join(confined.get('rights', [])) or 'none of the rights withheld from them'}"
        )
        return verdict, "\n".join(lines) + "\n"

    def _expected_names(self, tests: Tests) -> dict[str, list[str]]:
        """Spec → the test names it must report: from one run of the ground truth, every phase, trusted."""
        if tests.key in self._expected:
            return self._expected[tests.key]
        self._begin()
        jvms = self._test_jvms()

        def reference_run(seconds: float) -> dict:
            jvm = jvms.take()
            try:
                sources = self.candidate_sources(jvm.folder, self.reference_code)
                answer = self._warm_compile(sources, jvm.output)
                if not answer.get("compiled"):
                    raise BenchsmithError(
                        f"{self.label}: the ground truth does not compile: {answer.get('diagnostics', '')[:300]}"
                    )
                # The control tests, checked on the ground truth once, where every request will run them.
                controls = self._sentinels.unverified_specs() or self._sentinels.for_request().specs
                try:
                    report, why = jvm.run(
                        self._fast_classpath(jvm),
                        True,
                        tests.excluded,
                        list(tests.trigger),
                        self._placed(tests, controls),
                        self.candidate_types,
                        "audit",
                        seconds=seconds,
                    )
                finally:
                    self._warmed_up()
                if report is None and why.startswith("killed"):
                    raise Killed("the ground truth's reference run", seconds)
                if report is None:
                    tail = " | ".join(jvm.log_text().strip().splitlines()[-5:])
                    raise BenchsmithError(
                        f"{self.label}: the ground truth's reference run failed: {why}; the JVM's last words: {tail}"
                    )
                return report
            finally:
                jvms.retire(jvm)

        report = retried(reference_run, f"{self.label}: the ground truth's reference run", self.limits.wall_seconds)
        if self.rights is None:
            self.rights = ",".join(report.get("confinement", {}).get("rights", []))
            log.info(
                "%s: the candidate's classes (%s) hold %s; the test JVMs leave out %s",
                self.label,
                ", ".join(self.candidate_types),
                f"what the ground truth used: {self.rights}"
                if self.rights
                else "none of the rights withheld from them",
                ", ".join(self.modules_left_out) or "no module",
            )
        self._sentinels.verify([e for e in report["tests"] if e.get("phase") == 2 or e.get("spec") in tests.trigger])
        names: dict[str, list[str]] = {spec: [] for spec in [*tests.trigger, *tests.relevant]}
        # What the ground truth skips here is not asked of anyone, as under Defects4J, whose runs count skips as
        # passes: an @Ignore'd test or class, and a test whose assumption fails (Mockito's NoJUnitDependenciesTest
        # runs one variant per mock maker). A relevant class that skips everything asks for nothing.
        skipped = ("ignored", "assumption")
        for entry in report["tests"]:
            if entry.get("outcome") not in skipped and entry.get("spec") in names:
                names[entry["spec"]].append(entry["name"])
        reported = {entry.get("spec") for entry in report["tests"]}  # a spec reported but left empty skipped all
        for spec, found in names.items():
            if not found:  # a class whose tests are all excluded reports nothing; a method that cannot run, itself
                names[spec] = (
                    []
                    if "::" not in spec and (spec in reported or any(e.startswith(spec + "::") for e in tests.excluded))
                    else [spec]
                )
        self._expected[tests.key] = names
        self._reported[tests.key] = {}
        for entry in report["tests"]:
            self._reported[tests.key].setdefault(entry.get("spec", ""), []).append(entry.get("name", ""))
        return names

    def _placed(self, tests: Tests, specs: list[str]) -> list[str]:
        """*tests*' relevant classes with the control tests *specs* among them, where the reference run placed them.

        One secret placement per runner and test set, drawn at the reference run: a control test runs after the same
        tests in every request as in the run that checked it on the ground truth. Drawn afresh per request, a twin
        whose outcome depends on what ran before it (Cli-8's copy of BugsTest::test13666, which compares help text
        for options built by Cli's static OptionBuilder) failed in some places and passed in others, and a failing
        copy fails its original, and the verdict: one program (four of RepairLlama's ten candidates for the bug)
        came out wrong in 5 of 20 fast-path runs, plausible in the others."""
        order = self._placements.get(tests.key)
        if order is None:
            rng = random.Random(secrets.randbits(64))
            order = list(tests.relevant)
            for spec in specs:
                order = placed_among(order, spec, rng)
            self._placements[tests.key] = order
        wanted, relevant = set(specs), set(tests.relevant)
        placed = [spec for spec in order if spec in relevant or spec in wanted]
        rng = random.Random(secrets.randbits(64))
        for spec in (s for s in specs if s not in order):  # none placed at the reference run: anywhere, as before
            placed = placed_among(placed, spec, rng)
        return placed

    # -- the plain path ------------------------------------------------------------------------------------------

    def plain(self, code: str, name: str, tests: Tests | None = None) -> Verdict:
        """javac of every source and test in a jail, then a fresh test JVM."""
        tests = tests or self.default_tests
        try:
            expected = self._expected_names(tests)
        except OSError as exc:
            return Verdict("error", reason=f"harness: {exc}", path="plain")
        folder = fresh_folder(self.box, None, self.slot)
        try:
            return self._plain(code, name, tests, expected, folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _plain(self, code: str, name: str, tests: Tests, expected: dict[str, list[str]], folder: Path) -> Verdict:
        log_path = self.logs / f"{name}.log"
        self.logs.mkdir(parents=True, exist_ok=True)
        log_path.write_text("[plain path]\n")
        compiled = self.compile_whole(code, folder, log_path)
        if isinstance(compiled, Verdict):
            return compiled
        classes, test_classes = compiled
        libraries = self._libraries()
        jvms = self._test_jvms()
        jvm = jvms.fresh([classes, test_classes, *libraries])
        try:
            classpath = self._runtime_classpath([classes], test_classes, jvm.cwd)
            verdict, report = self._judge(jvm, classpath, tests, expected, "plain")
            with log_path.open("a") as out:
                out.write(report + jvm.log_text())
            return verdict
        finally:
            jvms.retire(jvm)

    def compile_whole(self, code: str, folder: Path, log_path: Path) -> tuple[Path, Path] | Verdict:
        """javac, in a jail, of every main source (the candidate's file holding *code*) and then of every test of the
        tree the test JVMs see: the main and the test class folders (made under *folder*), or the verdict
        "uncompilable" when javac rejects them, "timeout" when the wall clock ended javac at every try, "error" when
        javac died at every try without a word about the code; javac's output appended to *log_path*."""
        self._sentinels_ready()
        source = self._write_source(folder, code)
        tree = self._sentinels.tree
        main_roots = (self.workspace.source_dir, *self.workspace.more_source_dirs)
        main_sources = [p for folder in main_roots for p in sorted((tree / folder).rglob("*.java"))]
        excluded = set(self.workspace.excluded_tests)
        test_sources = [
            p
            for test_root in (tree / d for d in (self.workspace.test_dir, *self.workspace.more_test_dirs))
            for p in sorted(test_root.rglob("*.java"))
            if ".".join(p.relative_to(test_root).with_suffix("").parts) not in excluded
        ]
        classes = fresh_folder(folder, COMPILER_LANE, self.slot)
        test_classes = fresh_folder(folder, COMPILER_LANE, self.slot)
        libraries = self._libraries()
        # the tests at the release the workspace compiled them for (Mockito's, 7: Java 8's inference rejects them)
        test_release = self.workspace.test_release or self.release
        steps = (
            ("the main sources", [*main_sources, source], classes, libraries, self.workspace.encoding, self.release),
            (
                "the test sources",
                test_sources,
                test_classes,
                [classes, *libraries],
                self.workspace.test_encoding,
                test_release,
            ),
        )
        for what, sources, output, classpath, encoding, release in steps:
            try:
                compiled = retried(
                    lambda seconds: self._sandboxed_javac(
                        sources, output, classpath, folder, tree, log_path, encoding, seconds, release
                    ),
                    f"{self.label}: javac of {what}",
                    self.limits.wall_seconds,
                    retry_on=(Killed, Died),
                )
            except OutOfTime as exc:  # the machine's load or a compile the candidate makes slow: no error of its code
                return timeout_verdict(exc, "plain")
            except Died as exc:
                reason = f"harness: {self.label}: javac of {what} {exc.how}, at each of {ATTEMPTS} tries"
                return Verdict("error", reason=reason, path="plain")
            if not compiled:
                errors = "\n".join(
                    line for line in log_path.read_text(errors="replace").splitlines()[1:] if line.strip()
                )
                return Verdict(
                    "uncompilable", reason=_first_error(log_path), path="plain", messages={"compiler": errors[:4000]}
                )
        return classes, test_classes

    def _sandboxed_javac(
        self,
        sources: list[Path],
        output: Path,
        classpath: list[Path],
        folder: Path,
        tree: Path,
        log_path: Path,
        encoding: str,
        seconds: float,
        release: str | None = None,
    ) -> bool:
        """Whether javac compiled *sources* (for *release*, else the runner's), False only when it rejected their
        code; Killed when the wall clock (*seconds*) ended it first, Died when it ended without a word about the code
        (a javac killed under load said nothing, and was once counted the candidate's compile error)."""
        argfile = folder / f"{output.name}.args"
        argfile.write_text("\n".join(f'"{s}"' for s in sources))
        argv = [
            jdk_for(release or self.release).javac,
            "-J-Xmx1g",
            "-nowarn",
            "-proc:none",
            "-g",
            "-encoding",
            encoding,
            "--release",
            release or self.release,
            "-cp",
            os.pathsep.join(map(str, classpath)),
            "-d",
            str(output),
            f"@{argfile}",
        ]
        jail = sandbox.Jail(read_only=(tree, folder / "src", argfile, *classpath), writable=(output,))
        limits = dataclasses.replace(self.limits, wall_seconds=seconds)
        said_before = log_path.stat().st_size
        outcome = sandbox.run(argv, output, self.slot, limits, log_path, jail=jail, lane=COMPILER_LANE)
        if outcome.timed_out:
            with log_path.open("a") as out:
                out.write(f"[javac killed by the wall clock after {seconds_text(seconds)}]\n")
            raise Killed("javac", seconds)
        if outcome.returncode == 0:
            return True
        with log_path.open("rb") as log:
            log.seek(said_before)
            said = log.read().decode(errors="replace")
        if _JAVAC_ON_THE_CODE.search(said) and not outcome.reached:
            return False
        if outcome.signal:
            how = f"was killed by signal {outcome.signal}"
        else:
            how = f"ended with exit {outcome.returncode}"
        how += f" ({outcome.reached})" if outcome.reached else ", saying nothing of the code"
        with log_path.open("a") as out:
            out.write(f"[javac {how}]\n")
        raise Died("javac", how)

    def _log(self, name: str, path: str, text: str) -> None:
        self.logs.mkdir(parents=True, exist_ok=True)
        (self.logs / f"{name}.log").write_text(f"[{path} path]\n{text}\n")

    def close(self) -> None:
        self._warmed_up()
        for process in (self._jvms, self._compiler):
            if process is not None:
                process.close()
        self._jvms = self._compiler = None
        shutil.rmtree(self.box, ignore_errors=True)


def _forged(reason: str, path: str) -> tuple[Verdict, str]:
    return Verdict("wrong", compiled=True, reason=reason, path=path), reason + "\n"


# What javac says when it rejects the code it was given: an error at a line of a file (exit 1), or its own crash on
# that code (exit 4). Anything else (a signal, "The system is out of resources", a command-line error) is the machine's.
_JAVAC_ON_THE_CODE = re.compile(r"\.java:\d+: error:|^An exception has occurred in the compiler", re.MULTILINE)


def _first_error(log_path: Path) -> str:
    for line in log_path.read_text(errors="replace").splitlines():
        if ": error:" in line:
            return line.split(": error:", 1)[1].strip()
    return "does not compile"


T = TypeVar("T")


def started_with_backoff(start: Callable[[float], T], what: str) -> T:
    """*start*'s process (given 60 s, then 120 s and 240 s to be ready), tried again after 5 s, then 10 s, whatever
    made it fail: what the harness fails to start for itself is the machine's state, never a candidate's doing, so
    it is not let through to a verdict while a retry may do."""
    return retried(start, what, COMPILER_READY_SECONDS, pause=START_PAUSE, retry_on=(OSError,))
