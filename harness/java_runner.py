"""Run one NL2Fix instance's candidates: a warm JVM first, the plain path when it cannot be trusted.

Fast path: one ``BenchsmithRunner serve`` JVM per instance and sandbox slot. It
compiles only the changed file with javax.tools against the prepared classes
and runs the tests in a fresh class loader per candidate.

Plain path: a fresh copy of the workspace's sources, javac of all sources and
tests, and a fresh JVM running the trigger tests, then the relevant ones.

Both report through JSON signed with a per-JVM HMAC key, so what a candidate
prints or writes never becomes a verdict.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import queue
import secrets
import shutil
import subprocess
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.config import cache_dir
from benchsmith.schema import NL2FixInstance
from harness import sandbox
from harness.insertion import add_imports, is_single_method, split_host
from harness.javatools import JAVA_RELEASE, JVM_OPTIONS, junit_classpath, runner_classpath, tool
from harness.workspace import Workspace

log = logging.getLogger(__name__)


@dataclass
class Verdict:
    status: str  # plausible | wrong | uncompilable | timeout | error
    compiled: bool = False
    tests_passed: int = 0
    tests_failed: int = 0
    failing_tests: list[str] = field(default_factory=list)
    reason: str = ""
    path: str = ""  # "fast" or "plain"
    seconds: float = 0.0
    regression_passed: bool | None = None  # the relevant tests other than the trigger tests; None: not run


@dataclass(frozen=True)
class Tests:
    trigger: list[str]
    relevant: list[str]
    stop_early: bool = True  # skip the relevant classes after a trigger test fails
    excluded: tuple[str, ...] = ()  # Class::method left out of the relevant classes (known broken or flaky)

    @classmethod
    def for_instance(cls, instance: NL2FixInstance, excluded: Iterable[str] = (), stop_early: bool = True) -> Tests:
        return cls(list(instance.trigger_tests), list(instance.relevant_tests), stop_early, tuple(excluded))


def verdict_from_report(report: dict, path: str, tests: Tests) -> Verdict:
    """Map the runner's signed report to a verdict."""
    if not report.get("compiled"):
        diagnostics = report.get("diagnostics", "").strip().splitlines()
        return Verdict("uncompilable", reason=diagnostics[0] if diagnostics else "does not compile", path=path)
    if report.get("timeout"):
        return Verdict("timeout", compiled=True, reason="the tests did not finish in time", path=path)
    if "harness_error" in report:
        return Verdict("error", compiled=True, reason=f"runner: {report['harness_error']}", path=path)
    results = report.get("tests", [])
    failing = [t["name"] for t in results if not t["passed"]]
    verdict = Verdict(
        "wrong" if failing or not results else "plausible",
        compiled=True,
        tests_passed=report.get("passed", 0),
        tests_failed=report.get("failed", 0),
        failing_tests=failing,
        path=path,
    )
    relevant_classes = set(tests.relevant)
    regression = [t for t in results if t["name"].split("::")[0] in relevant_classes and t["name"] not in tests.trigger]
    if regression and (not report.get("trigger_failed") or not tests.stop_early):
        verdict.regression_passed = all(t["passed"] for t in regression)
    if failing:
        first = next(t for t in results if not t["passed"])
        verdict.reason = f"{'trigger' if report.get('trigger_failed') else 'relevant'} test fails: {first['name']}: {first['message'][:200]}"
    elif not results:
        verdict.reason = "no test ran"
    return verdict


def _signed(text: str, key: str) -> str:
    return hmac.new(key.encode(), text.encode("utf-8", errors="surrogateescape"), "sha256").hexdigest()


class InstanceRunner:
    """Runs candidates of one instance in one sandbox slot."""

    def __init__(self, instance: NL2FixInstance, workspace: Workspace, slot: int, limits: sandbox.Limits, logs: Path,
                 excluded: Iterable[str] = ()):  # fmt: skip
        self.instance = instance
        self.excluded = tuple(excluded)
        self.workspace = workspace
        self.slot = slot
        self.limits = limits
        self.logs = logs
        host = (workspace.tree / instance.file_path).read_bytes().decode(workspace.encoding, errors="surrogateescape")
        self.prefix, self.suffix = split_host(add_imports(host, workspace.buggy_only_imports), instance)
        self.scratch = cache_dir("scratch") / f"slot-{slot}"
        sandbox.check_reachable(workspace.root)
        sandbox.check_reachable(self.scratch)
        self._server: _WarmServer | None = None
        self._count = 0

    def source_with(self, code: str) -> str:
        return self.prefix + code + self.suffix

    def evaluate(self, code: str, name: str, fast: bool = True, tests: Tests | None = None) -> Verdict:
        """The verdict on one candidate method, logged to ``logs/<name>.log``.

        *tests* defaults to the instance's trigger tests (stopping at the first
        failure) and relevant test classes.
        """
        started = time.monotonic()
        tests = tests or Tests.for_instance(self.instance, self.excluded)
        ok, reason = is_single_method(code)
        if not ok:
            verdict = Verdict("uncompilable", reason=reason)
        else:
            verdict = self._fast(code, name, tests) if fast else None
            if verdict is None:
                verdict = self.plain(code, name, tests)
        verdict.seconds = time.monotonic() - started
        return verdict

    def _fast(self, code: str, name: str, tests: Tests) -> Verdict | None:
        try:
            if self._server is None or not self._server.alive():
                self._server = _WarmServer(self.workspace, self.slot, self.limits, self.scratch / "server", self.logs / "server.log")
            self._count += 1
            folder = self.scratch / "fast" / str(self._count)
            shutil.rmtree(folder, ignore_errors=True)
            source = folder / "src" / self.instance.file_path
            source.parent.mkdir(parents=True)
            source.write_text(self.source_with(code), encoding="utf-8", errors="surrogateescape")
            (folder / "classes").mkdir()
            sandbox.give_to_sandbox(folder, self.slot)
            report = self._server.request(source, folder / "classes", tests)
            self._log(name, "fast", json.dumps(report, indent=1) if report else "warm JVM gave no trustworthy answer")
            shutil.rmtree(folder, ignore_errors=True)
        except OSError as exc:
            log.warning("%s: warm JVM failed (%s); using the plain path", self.instance.instance_id, exc)
            report = None
        if report is None or report.get("timeout") or report.get("tainted"):
            if self._server is not None:
                self._server.close()
                self._server = None
            return None  # cannot be trusted: the plain path decides
        return verdict_from_report(report, "fast", tests)

    def plain(self, code: str, name: str, tests: Tests | None = None) -> Verdict:
        """Fresh copy, javac of everything, fresh JVM."""
        tests = tests or Tests.for_instance(self.instance, self.excluded)
        folder = self.scratch / "plain"
        shutil.rmtree(folder, ignore_errors=True)
        tree = folder / "tree"
        shutil.copytree(self.workspace.tree, tree, symlinks=True)
        (tree / self.instance.file_path).write_bytes(_java_bytes(self.source_with(code), self.workspace.encoding))
        sandbox.give_to_sandbox(folder, self.slot)
        log_path = self.logs / f"{name}.log"
        libraries = [*map(Path, self.workspace.libraries), *junit_classpath()]
        main_sources = sorted((tree / self.workspace.source_dir).rglob("*.java"))
        excluded = set(self.workspace.excluded_tests)
        test_root = tree / self.workspace.test_dir
        test_sources = [p for p in sorted(test_root.rglob("*.java")) if ".".join(p.relative_to(test_root).with_suffix("").parts) not in excluded]
        for sources, output, classpath, encoding in (
            (main_sources, folder / "classes", libraries, self.workspace.encoding),
            (test_sources, folder / "test-classes", [folder / "classes", *libraries], self.workspace.test_encoding),
        ):
            if not self._sandboxed_javac(sources, output, classpath, folder, log_path, encoding):
                return Verdict("uncompilable", reason=_first_error(log_path), path="plain")
        key = secrets.token_hex(32)
        results = folder / "results.json"
        # As in the warm JVM: the project in a class loader of its own (old jars may define classes in packages
        # that JDK modules own, as xerces does in org.w3c.dom.ls), resources on the system class path as well.
        runtime = [folder / "classes", folder / "test-classes", *self.workspace.runtime_classpath()[2:]]
        system = os.pathsep.join([runner_classpath(), *map(str, self.workspace.resource_dirs())])
        argv = [tool("java"), *JVM_OPTIONS, "-cp", system, "BenchsmithRunner", "run",
                "--classpath", os.pathsep.join(map(str, runtime)), "--results", str(results),
                "--trigger", ",".join(tests.trigger), "--relevant", ",".join(tests.relevant)]  # fmt: skip
        if not tests.stop_early:
            argv.append("--all")
        if tests.excluded:
            argv += ["--exclude", ",".join(tests.excluded)]
        outcome = sandbox.run(argv, tree, self.slot, self.limits, log_path, stdin_text=key + "\n")
        if outcome.timed_out:
            return Verdict("timeout", compiled=True, reason=f"killed after {self.limits.wall_seconds:.0f}s", path="plain")
        report = _read_signed_results(results, key)
        shutil.rmtree(folder, ignore_errors=True)
        if isinstance(report, str):
            return Verdict("wrong", compiled=True, reason=f"{report} (JVM exit {outcome.returncode})", path="plain")
        return verdict_from_report(report, "plain", tests)

    def _sandboxed_javac(self, sources: list[Path], output: Path, classpath: list[Path], folder: Path, log_path: Path,
                         encoding: str) -> bool:  # fmt: skip
        output.mkdir(parents=True, exist_ok=True)
        sandbox.give_to_sandbox(output, self.slot)
        argfile = folder / f"{output.name}.args"
        argfile.write_text("\n".join(f'"{s}"' for s in sources))
        argv = [tool("javac"), "-J-Xmx1g", "-nowarn", "-proc:none", "-g", "-encoding", encoding,
                "--release", JAVA_RELEASE, "-cp", os.pathsep.join(map(str, classpath)), "-d", str(output), f"@{argfile}"]  # fmt: skip
        outcome = sandbox.run(argv, folder, self.slot, self.limits, log_path)
        return outcome.returncode == 0

    def _log(self, name: str, path: str, text: str) -> None:
        self.logs.mkdir(parents=True, exist_ok=True)
        (self.logs / f"{name}.log").write_text(f"[{path} path]\n{text}\n")

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None


def _java_bytes(text: str, encoding: str) -> bytes:
    """*text* in the workspace's encoding; characters it cannot hold become Java unicode escapes."""
    if encoding.upper() == "UTF-8":
        return text.encode("utf-8", errors="surrogateescape")
    return "".join(c if ord(c) < 256 else f"\\u{ord(c):04x}" for c in text).encode(encoding, errors="surrogateescape")


def _first_error(log_path: Path) -> str:
    for line in log_path.read_text(errors="replace").splitlines():
        if ": error:" in line:
            return line.split(": error:", 1)[1].strip()
    return "does not compile"


def _read_signed_results(results: Path, key: str) -> dict | str:
    """The runner's report, or a string saying why there is none to trust."""
    try:
        body, mac = results.read_text(encoding="utf-8").rstrip("\n").rsplit("\n", 1)
    except (FileNotFoundError, ValueError):
        return "the test JVM ended without a verdict"
    if not hmac.compare_digest(mac, _signed(body, key)):
        return "the verdict file failed its integrity check"
    return json.loads(body)


class _WarmServer:
    """A ``BenchsmithRunner serve`` JVM in a sandbox, working in its own copy of the workspace's tree."""

    READY_SECONDS = 60

    def __init__(self, workspace: Workspace, slot: int, limits: sandbox.Limits, folder: Path, log_path: Path):
        self.slot = slot
        self.limits = limits
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(workspace.tree, folder / "tree", symlinks=True)
        sandbox.give_to_sandbox(folder, slot)
        self.key = secrets.token_hex(32)
        self._ids = 0
        # Classes load per candidate from --classpath; resources are on the system class path too, where
        # tests may look them up (they hold no classes, so nothing there outlives a candidate).
        system = os.pathsep.join([runner_classpath(), *map(str, workspace.resource_dirs())])
        argv = [tool("java"), *JVM_OPTIONS, "-XX:MaxMetaspaceSize=512m", "-cp", system, "BenchsmithRunner",
                "serve", "--classpath", os.pathsep.join(map(str, workspace.runtime_classpath()))]  # fmt: skip
        server_limits = sandbox.Limits(
            wall_seconds=limits.wall_seconds, cpu_seconds=limits.cpu_seconds * 100, memory_bytes=limits.memory_bytes,
            file_bytes=limits.file_bytes, processes=limits.processes,
        )  # fmt: skip
        self.process = sandbox.start(argv, folder / "tree", slot, server_limits, log_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.process.stdin.write((self.key + "\n").encode())
        self.process.stdin.flush()
        if self._next_line(self.READY_SECONDS) != "BENCHSMITH ready":
            self.close()
            raise OSError("the warm JVM did not start")

    def _pump(self) -> None:
        for raw in self.process.stdout:
            self._lines.put(raw.decode("utf-8", errors="replace").rstrip("\n"))
        self._lines.put(None)

    def _next_line(self, timeout: float) -> str | None:
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def alive(self) -> bool:
        return self.process.poll() is None

    def request(self, source: Path, classes: Path, tests: Tests) -> dict | None:
        """The signed report for one candidate, or None when the answer cannot be trusted."""
        self._ids += 1
        request_id = f"r{self._ids}"
        timeout_ms = int(self.limits.wall_seconds * 1000)
        mode = "stop" if tests.stop_early else "all"
        fields = [request_id, str(source), str(classes), str(timeout_ms), ",".join(tests.trigger), ",".join(tests.relevant),
                  mode, ",".join(tests.excluded)]  # fmt: skip
        line = "\t".join(fields)
        try:
            self.process.stdin.write((line + "\n").encode())
            self.process.stdin.flush()
        except OSError:
            return None
        deadline = time.monotonic() + self.limits.wall_seconds + 10
        while time.monotonic() < deadline:
            answer = self._next_line(max(0.1, deadline - time.monotonic()))
            if answer is None:
                return None
            parts = answer.split(" ")
            if len(parts) < 4 or parts[0] != "BENCHSMITH" or parts[1] != request_id:
                log.debug("ignored a line on the warm JVM's stdout: %.80s", answer)
                continue  # something the candidate wrote to the real stdout
            body, mac = " ".join(parts[2:-1]), parts[-1]
            if not hmac.compare_digest(mac, _signed(f"{request_id} {body}", self.key)):
                return None
            return json.loads(body)
        return None

    def close(self) -> None:
        try:
            self.process.stdin.close()
        except OSError:
            pass
        sandbox.stop(self.process, self.slot)
