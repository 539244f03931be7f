"""The JVMs a Java runner drives: a warm compiler that runs no candidate code, and one fresh test JVM per candidate.

Both speak ``benchsmith/runners/java/BenchsmithRunner.java``'s line protocol. A test JVM
is started ahead of its candidate (while the previous one is judged), warms
JUnit up on a test of its own, runs exactly one request and halts, so nothing
a candidate leaves behind (threads, finalizers, patched statics, processes)
meets another candidate. Each runs in a jail of its own under a uid of its
own (a *lane*), so neither can reach the other even without namespaces.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import logging
import os
import queue
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from benchsmith.core.bounds import encodable
from benchsmith.core.config import cache_dir
from benchsmith.runners.java.toolchain import (
    JAVA_RELEASE,
    JavaRuntime,
    default_runtime,
    jdk_for,
    platform_classpath,
    publish,
    runner_classes,
    runner_classpath,
)
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.runners.sandbox import streams
from benchsmith.runners.sandbox.retries import Killed

log = logging.getLogger(__name__)

COMPILER_LANE = 0
TEST_LANES = (1, 2, 3)  # a JVM at work, the next one starting, and a plain path's: never two in one uid
_SEPARATOR = "\x1f"  # between source files in a compile request
AHEAD_NICENESS = 10
REPORT_LINE_LIMIT = (
    16 << 20
)  # a test JVM's output line longer than this is no report (benchsmith.runners.sandbox.streams)
COMPILER_READY_SECONDS = 60.0  # what the warm compiler is given to start, at its first attempt
READY_SECONDS = 1.5  # what a test JVM started ahead takes to boot, warm JUnit up and prepare its class loaders
Announce = Callable[["TestJvm"], "list[Path]"]  # a JVM → the class path its request will name


def fresh_folder(parent: Path, owner_lane: int | None, slot: int) -> Path:
    """A new folder with an unguessable name under *parent*, owned by root or by the sandbox uid of *owner_lane*."""
    folder = parent / secrets.token_hex(8)
    folder.mkdir(mode=0o755)
    if owner_lane is not None:
        sandbox.give_to_sandbox(folder, slot, owner_lane)
    return folder


@functools.cache
def release_api() -> Path | None:
    """The Java ``JAVA_RELEASE`` API that ``javac --release`` reads from the JDK's ``lib/ct.sym``, as plain class files
    in
    a folder (cached by the ct.sym's hash); None where the JDK has no ct.sym.

    javac 17 opens ct.sym afresh (a zip of 15,000 entries) for every ``--release`` compile, which was 40% of a warm
    compile. The warm compiler reads the same classes from this folder instead (``-source -target
    -bootclasspath``); both ways give byte-identical classes and diagnostics on the Defects4J projects. Made here by
    trusted code, read-only to the compiler's jail.
    """
    java_home = jdk_for(JAVA_RELEASE).home
    ct_sym = java_home / "lib" / "ct.sym"
    if not ct_sym.is_file() or not (JAVA_RELEASE.isdigit() and len(JAVA_RELEASE) == 1):  # 10 and on are letters there
        return None
    digest = hashlib.sha256(ct_sym.read_bytes()).hexdigest()[:16]
    target = cache_dir("runner") / f"release-{JAVA_RELEASE}-{digest}"
    if (target / ".complete").is_file():
        return target
    building = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    with zipfile.ZipFile(ct_sym) as archive:
        for entry in archive.infolist():
            # "<versions>/<module>/<package path>/<Class>.sig": a section serves every release named in <versions>.
            section, _, rest = entry.filename.partition("/")
            module_path = rest.partition("/")[2]
            if JAVA_RELEASE not in section or not module_path.endswith(".sig") or entry.is_dir():
                continue
            path = building / (module_path.removesuffix(".sig") + ".class")
            if ".." in path.relative_to(building).parts or path.exists():
                raise OSError(f"{ct_sym}: unexpected entry {entry.filename}")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(archive.read(entry))
    (building / ".complete").write_text(str(ct_sym))
    publish(building, target)
    return target


class Compiler:
    """A warm javac (``BenchsmithRunner compile``) in a jail: reads sources, writes classes, executes nothing of
    theirs."""

    def __init__(
        self,
        slot: int,
        box: Path,
        read_only: list[Path],
        log_path: Path,
        limits: sandbox.Limits,
        release: str = JAVA_RELEASE,
        ready_seconds: float = COMPILER_READY_SECONDS,
    ):
        self.slot = slot
        self.release = release
        self.platform = release_api() if release == JAVA_RELEASE else None
        extra = [self.platform] if self.platform is not None else []
        jail = sandbox.Jail(read_only=tuple(dict.fromkeys([runner_classes(), *extra, *read_only])), writable=(box,))
        # the JVM of the JDK that compiles for *release*: the warm compiler is its jdk.compiler
        java = jdk_for(release).java
        argv = [java, "-Xmx1g", "-XX:+UseSerialGC", "-cp", runner_classpath(), "BenchsmithRunner", "compile"]
        server_limits = dataclasses.replace(
            limits, cpu_seconds=limits.cpu_seconds * 100
        )  # it lives for every candidate
        self.process = sandbox.start(
            argv,
            box,
            slot,
            server_limits,
            log_path,
            jail=jail,
            lane=COMPILER_LANE,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._lines: queue.Queue = queue.Queue()
        threading.Thread(target=_pump, args=(self.process.stdout, self._lines), daemon=True).start()
        self._ids = 0
        self._lock = threading.Lock()  # one request at a time: the runner's warm-up thread beside its own compiles
        first = self._next(ready_seconds)
        if first != "BENCHSMITH ready":
            alive = self.alive()
            self.close()
            if alive and first is None:  # still booting: late, not broken
                raise Killed("the warm compiler's start", ready_seconds)
            raise OSError(f"the warm compiler did not start (exit {self.process.returncode}: see {log_path})")

    def _next(self, timeout: float) -> str | None:
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def alive(self) -> bool:
        return self.process.poll() is None

    def compile(self, sources: list[Path], output: Path, classpath: list[Path], timeout: float) -> dict:
        """``{"compiled": bool, "diagnostics": str, "compile_ms": int}``; OSError when the compiler is gone, Killed
        (and the compiler closed) when it gave no answer in *timeout* seconds."""
        with self._lock:
            return self._compile(sources, output, classpath, timeout)

    def _compile(self, sources: list[Path], output: Path, classpath: list[Path], timeout: float) -> dict:
        self._ids += 1
        request = f"c{self._ids}"
        line = "\t".join(
            [
                request,
                _SEPARATOR.join(map(str, sources)),
                str(output),
                os.pathsep.join(map(str, classpath)),
                str(self.platform or ""),
                self.release,
            ]
        )
        try:
            self.process.stdin.write((line + "\n").encode())
            self.process.stdin.flush()
        except (OSError, ValueError) as exc:
            raise OSError(f"the warm compiler is gone: {exc}") from exc
        deadline = time.monotonic() + timeout
        while (answer := self._next(max(0.1, deadline - time.monotonic()))) is not None:
            prefix = f"BENCHSMITH {request} "
            if answer.startswith(prefix):
                return encodable(json.loads(answer[len(prefix) :]))
            if time.monotonic() > deadline:
                break
        self.close()
        raise Killed("javac in the warm compiler", timeout)

    def close(self) -> None:
        try:
            self.process.stdin.close()
        except OSError:
            pass
        sandbox.stop(self.process, self.slot)


class TestJvm:
    """One ``BenchsmithRunner test`` JVM for one candidate: started ahead, used once, then killed with its jail."""

    def __init__(
        self,
        slot: int,
        lane: int,
        box: Path,
        tree: Path,
        read_only: list[Path],
        system_classpath: list[Path],
        limits: sandbox.Limits,
        jvm_options: list[str],
        announce: Announce | None = None,
        platform: bool = False,
        runtime: JavaRuntime | None = None,
        merged: Path | None = None,
        runner_jars: tuple[Path, ...] = (),
    ):
        self.slot = slot
        runtime = runtime or default_runtime()
        self.lane = lane
        self.limits = limits
        self.folder = fresh_folder(box, None, slot)
        self.folder.chmod(0o711)
        self.output = fresh_folder(self.folder, COMPILER_LANE, slot)  # the compiler writes the candidate's classes here
        self.log_path = self.folder / "jvm.log"
        self.cwd = self.folder / "tree"
        # *platform*: tests run on the JUnit Platform (Jupiter, and JUnit 3 and 4 through vintage), else on JUnit 4.
        engine = platform_classpath() if platform else []
        jail = sandbox.Jail(
            read_only=tuple(
                dict.fromkeys([runtime.home, runner_classes(platform), *engine, *runner_jars, *read_only, self.output])
            ),
            trees=((tree, self.cwd),),
        )
        # Relative entries lie in the candidate's tree as this JVM sees it (resource folders, see TestJvms).
        # *runner_jars* go ahead of the runner's own JUnit: a project's Hamcrest 1.3, which JUnit then runs with too.
        # The runner's classes go first, ahead of any JUnit jar: its EachTestNotifier replaces JUnit's.
        system = os.pathsep.join(
            dict.fromkeys(
                [
                    str(runner_classes(platform)),
                    *map(str, runner_jars),
                    *runner_classpath(platform).split(os.pathsep),
                    *(str(self.cwd / p) for p in system_classpath),
                ]
            )
        )
        # *merged*: the project's class folder, which the runner mirrors into a folder of its own at once, for the
        # candidate's classes to join (main_classes).
        # *announce*: the class path this JVM's request will name; the runner makes its class loaders on it while it
        # waits for its candidate, and defines in them every class of its public folders (BenchsmithRunner.prepare).
        self.merged = None if platform else merged
        announced = os.pathsep.join(map(str, announce(self))) if announce is not None and not platform else ""
        main = ["PlatformRunner"] if platform else ["BenchsmithRunner", "test", announced, str(self.merged or "")]
        argv = [runtime.java, *runtime.options(), *jvm_options, "-cp", system, *main]
        self.started = time.monotonic()
        # It boots at a low priority, beside the candidate at work, and gets the normal one when its own arrives.
        self.niced = sandbox.sandbox_uid(slot, lane) is not None
        self.process = sandbox.start(
            argv,
            self.cwd,
            slot,
            limits,
            self.log_path,
            jail=jail,
            lane=lane,
            nice=AHEAD_NICENESS if self.niced else 0,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._report: dict | None = None  # the first report line it wrote
        self._read = threading.Event()  # set at that line, or at the end of its output
        self._reader = threading.Thread(target=self._read_report, daemon=True)
        self._reader.start()

    def _read_report(self) -> None:
        """Read the JVM's output up to its first report line. Nothing after that line is read: the JVM is killed."""
        fd, pending = self.process.stdout.fileno(), bytearray()
        try:
            while chunk := os.read(fd, 1 << 16):
                pending += chunk
                if b"\n" not in chunk:
                    if len(pending) > REPORT_LINE_LIMIT:  # no report is this long: a flood, dropped to its line's end
                        pending = bytearray(b"-")
                    continue
                *lines, rest = bytes(pending).split(b"\n")
                pending = bytearray(rest)
                for line in lines:
                    try:  # a line that is not a report is a JVM message, or something the candidate wrote
                        text = line.decode("utf-8", errors="replace")
                        value = encodable(json.loads(text)) if line.startswith(b"{") else None
                    except (ValueError, RecursionError):  # JSON nested deeper than the parser recurses
                        continue
                    if isinstance(value, dict) and "tests" in value:
                        self._report = value
                        return
        except OSError:  # closed under it: the JVM was killed
            pass
        finally:
            self._read.set()

    def run(
        self,
        classpath: list[Path],
        run_all: bool,
        excluded: tuple[str, ...],
        phase1: list[str],
        phase2: list[str],
        candidate: tuple[str, ...] = (),
        rights: str = "",
        seconds: float | None = None,
    ) -> tuple[dict | None, str]:
        """The first report line the JVM wrote, or None when it wrote none in time (*seconds*, default the limits'
        wall clock); and why not, when None.

        *candidate*: the top-level types of the candidate's file (binary names), confined with their nested classes
        to the rights *rights* (comma-separated, ``audit`` for the ground truth's run: see Confinement.java)."""
        request = "\t".join(
            [
                os.pathsep.join(map(str, classpath)),
                "all" if run_all else "stop",
                ",".join(excluded),
                ",".join(phase1),
                ",".join(phase2),
                ",".join(candidate),
                rights,
            ]
        )
        if self.niced:
            sandbox.renice(self.slot, self.lane, 0)
        try:
            self.process.stdin.write((request + "\n").encode())
            self.process.stdin.close()
        except (OSError, ValueError):
            pass  # it died already; what it wrote (nothing) says so
        # The first report line is the one judged, and the JVM's halt is not waited for (that waits for the JIT's
        # compiler threads, 10 to 30 ms). What the candidate writes before the runner's report is read too: a forged
        # report there is the one judged, as when the candidate halts the JVM after writing it, and must pass the
        # checks of benchsmith.runners.sandbox.outcomes, which its tests' sentinels keep out of its reach. What comes
        # after the
        # runner's report cannot change the verdict.
        seconds = self.limits.wall_seconds if seconds is None else seconds
        if not self._read.wait(seconds):
            self.close()
            return None, f"killed after {seconds:.0f}s"
        if self._report is None:
            return None, f"the test JVM ended without a report (exit {self.process.wait()})"
        return self._report, ""

    def main_classes(self, project_classes: Path) -> list[Path]:
        """The class path entries of the candidate's classes (compiled into ``output``) and *project_classes*: one
        folder holding both where this JVM mirrored *project_classes*, as a build would have them."""
        if self.merged == project_classes:
            return [Path(f"@merged={self.output}")]
        return [self.output, project_classes]

    def log_text(self) -> str:
        try:
            return streams.read_tail(self.log_path, 20000)
        except OSError:
            return ""

    def close(self) -> None:
        sandbox.stop(self.process, self.slot)
        shutil.rmtree(self.folder, ignore_errors=True)


def _pump(stream, lines: queue.Queue) -> None:
    for raw in stream:
        lines.put(raw.decode("utf-8", errors="replace").rstrip("\n"))
    lines.put(None)


class TestJvms:
    """The test JVMs of one runner: the next one started ahead, used ones killed off the critical path.

    The next JVM starts when the candidate at work has its verdict: booting beside it (JIT compilers, class loading,
    the starter thread's share of the harness's GIL) made its compile and tests a third slower on two cores. Where
    candidates come faster than a JVM boots and prepares, the next one starts at once instead, beside the candidate:
    waiting for a JVM that has just begun to boot costs more than sharing the machine with it.

    Every JVM starts on one long-lived thread of this object's (bubblewrap dies with the thread that started it),
    in a lane no living JVM of this runner holds: stopping a JVM kills its whole lane.
    """

    def __init__(
        self,
        slot: int,
        box: Path,
        tree: Path,
        read_only: list[Path],
        limits: sandbox.Limits,
        jvm_options: list[str],
        system_resources: list[str] = (),
        platform: bool = False,
        runtime: JavaRuntime | None = None,
        merged: Path | None = None,
        runner_jars: tuple[Path, ...] = (),
        announce: Announce | None = None,
    ):
        self.slot, self.box, self.tree, self.read_only = slot, box, tree, read_only
        self.announce = announce  # the class path of a JVM's request, announced to the JVMs started ahead (TestJvm)
        self.runner_jars = runner_jars  # on every JVM's own class path, ahead of the runner's (TestJvm)
        self.merged = merged  # mirrored by the JVMs that see the runner's own *read_only* (TestJvm.main_classes)
        self.platform, self.runtime = platform, runtime
        # Folders of *tree* (relative) on the system class path: tests that read a resource through
        # ClassLoader.getSystemResource (Csv's CSVFileParserTest) find it there, as under Maven or Ant.
        self.system_resources = [Path(p) for p in system_resources]
        self.limits, self.jvm_options = limits, jvm_options
        self._starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="benchsmith-jvm-starter")
        self._lock = threading.Lock()
        self._live: dict[int, TestJvm] = {}  # lane → a JVM started and not yet closed
        self._lane_freed = threading.Condition(self._lock)
        self._next: Future | None = None
        self._ahead = False  # JVMs are taken (take), so one is kept started ahead
        self._closed = False

    def take(self) -> TestJvm:
        """The JVM started ahead (or a new one). The next starts when this one is retired, or at once when this one
        had not had the time to boot and prepare."""
        self._ahead = True
        ahead, self._next = self._next, None
        jvm = ahead.result() if ahead is not None else None
        if jvm is None or jvm.process.poll() is not None:
            if jvm is not None:
                self.retire(jvm)
            jvm = self.fresh()
        if time.monotonic() - jvm.started < READY_SECONDS:  # candidates come back to back
            self._start_next()
        return jvm

    def start_ahead(self) -> None:
        """Start the JVM that the next take() will hand out, now (the runner's first, while the compiler warms up)."""
        self._ahead = True
        self._start_next()

    def _start_next(self) -> None:
        if self._next is None and not self._closed:
            self._next = self._starter.submit(self._start, self.read_only, True)

    def fresh(self, read_only: list[Path] | None = None) -> TestJvm:
        """A JVM started now, seeing *read_only* (default: the runner's) besides its tree."""
        return self._starter.submit(self._start, read_only or self.read_only).result()

    def _start(self, read_only: list[Path], ahead: bool = False) -> TestJvm:
        with self._lock:
            while not (free := [lane for lane in TEST_LANES if lane not in self._live]):
                self._lane_freed.wait()
            lane = free[0]
            self._live[lane] = None  # type: ignore[assignment]  # held while it starts
        try:
            # Only a JVM started ahead prepares: the plain path's starts when its candidate is there.
            merged = self.merged if read_only is self.read_only else None  # the plain path compiles its own
            jvm = TestJvm(
                self.slot,
                lane,
                self.box,
                self.tree,
                read_only,
                self.system_resources,
                self.limits,
                self.jvm_options,
                self.announce if ahead else None,
                self.platform,
                self.runtime,
                merged,
                self.runner_jars,
            )
        except BaseException:
            self._free(lane)
            raise
        with self._lock:
            self._live[lane] = jvm
        return jvm

    @contextlib.contextmanager
    def lane(self) -> Iterator[int]:
        """A test lane no JVM of this runner holds, for a run of the harness's own beside them
        (:mod:`benchsmith.runners.java.class_loading`); stopping that run kills only its lane."""
        with self._lock:
            while not (free := [lane for lane in TEST_LANES if lane not in self._live]):
                self._lane_freed.wait()
            lane = free[-1]
            self._live[lane] = None  # type: ignore[assignment]
        try:
            yield lane
        finally:
            self._free(lane)

    def retire(self, jvm: TestJvm) -> None:
        """Kill *jvm* and remove its folder in the background; its lane is free once that is done."""

        def close() -> None:
            try:
                jvm.close()
            finally:
                self._free(jvm.lane)

        threading.Thread(target=close, daemon=True).start()
        if self._ahead:  # a runner that only starts fresh JVMs (the plain path) keeps none ahead
            self._start_next()  # unless started already

    def _free(self, lane: int) -> None:
        with self._lock:
            self._live.pop(lane, None)
            self._lane_freed.notify_all()

    def close(self) -> None:
        self._closed = True
        if self._next is not None:
            try:
                self.retire(self._next.result())
            except Exception:  # it never started; nothing to stop
                pass
            self._next = None
        with self._lock:
            while self._live:
                self._lane_freed.wait()
        self._starter.shutdown(wait=True)
