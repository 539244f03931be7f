"""Where per-instance work runs: threads on this machine, or a Ray cluster.

Both executors take the same two functions. ``prepare(item)`` runs on the
driver each time an item is (re)started and returns what the work needs, so a
restarted item sees every output the driver has recorded since. ``work(payload,
slot, emit)`` runs where the executor puts it, holding a sandbox slot leased on
that machine, and hands each output to ``emit``. On the driver, ``emit`` is
called once per output as it arrives, from several threads (the caller locks),
together with the name of the node that produced it.

The instance is the unit of scheduling: a worker keeps one runner (its warm JVM,
its prepared workspace) for all candidates of an instance. With Ray, outputs
stream back as they are produced; an instance whose worker or node is lost is
started again elsewhere, after ``prepare`` has seen what did arrive, so what was
recorded is neither judged nor recorded again.

Ray's start is a step of the harness's own, which a loaded machine makes late (Ray waits 30 s for its node, a time it
offers no option for): it is tried three times, 5 s and then 10 s apart. A node of this machine's own that still does
not start leaves the run to the local executor, with a warning; a named cluster that cannot be joined ends the command
with one line naming Ray and what failed, before anything is judged or written.
"""

from __future__ import annotations

import logging
import os
import queue
import signal
import socket
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from benchsmith.core.config import cache_root
from benchsmith.core.errors import BenchsmithError
from benchsmith.runners.sandbox.jail import (
    check_not_terminating,
    clean_up_runs,
    isolation,
    leased_slot,
    terminate_runs,
)
from benchsmith.runners.sandbox.retries import START_PAUSE, retried

log = logging.getLogger(__name__)

T = TypeVar("T")
P = TypeVar("P")
Emit = Callable[[Any], None]
Prepare = Callable[[T], P]
Work = Callable[[P, int, Emit], None]
OnOutput = Callable[[Any, str], None]  # an output and the node that produced it

EXECUTORS = ("local", "ray")
RAY_INSTALL = "pip install 'benchsmith[ray]'"
RESTARTS = 3  # times an instance is started again after its worker or node was lost
CANCEL_GRACE = 60.0  # seconds a cancelled instance's worker waits for its runs to be stopped and removed
CANCEL_POLL = 0.2  # seconds between the checks a Ray task makes for its cancellation while its work runs
# The driver's main thread wakes this often while it waits for the runs: a SIGTERM sent to the process may be delivered
# to any of its threads that does not block it (Ray's C++ threads do not), and then CPython only marks it pending,
# leaving a main thread asleep in a lock's wait until that lock is released; it runs the harness's handler on waking.
SIGNAL_POLL = 0.5
RAY_ATTEMPTS = 3  # times ray.init is tried, START_PAUSE and then twice that apart


def local_node() -> str:
    return socket.gethostname()


def missing_layers() -> list[str]:
    """The sandbox's isolation layers this machine cannot apply (empty when it applies them all)."""
    return sorted(name for name, present in isolation().items() if not present)


class LocalExecutor:
    """Threads on this machine: the work happens in sandboxed processes, so threads suffice."""

    name = "local"

    def __init__(self, workers: int, instead_of: str = ""):
        self.workers = max(1, workers)
        self.instead_of = instead_of  # why another executor asked for is not the one running, or ""

    def run(self, items: Iterable[T], prepare: Prepare, work: Work, on_output: OnOutput) -> None:
        node = local_node()

        def one(item: T) -> None:
            payload = prepare(item)

            def emit(output: Any) -> None:
                check_not_terminating()  # what a run the harness's stop killed gave is no verdict to record
                on_output(output, node)

            with leased_slot() as slot:
                work(payload, slot, emit)

        _all_done(list(items), one, self.workers)


class RayNotStarted(BenchsmithError):
    """ray.init failed at every attempt."""


class RayExecutor:
    """A Ray cluster: ``address`` None starts one on this machine, in a folder of this user's own (``RAY_ADDRESS`` is
    honoured: a cluster started apart is joined by its address)."""

    name = "ray"
    instead_of = ""

    def __init__(self, address: str | None = None, pause: float = START_PAUSE):
        try:
            import ray
        except ImportError:
            raise BenchsmithError(f"--executor ray needs Ray, which is not installed: {RAY_INSTALL}") from None
        self.ray = ray
        if not ray.is_initialized():
            # Workers read the same cache (prepared workspaces, environments) and settings as the driver.
            env = {key: value for key, value in os.environ.items() if key.startswith("BENCHSMITH_")}
            env["BENCHSMITH_CACHE"] = str(cache_root())
            what = (
                f"joining the Ray cluster at {address or os.environ['RAY_ADDRESS']}"
                if joins(address)
                else "starting Ray on this machine"
            )

            def start(_seconds: float) -> None:
                children = _children()
                try:
                    with _signal_handlers_kept():
                        ray.init(
                            address=address,
                            runtime_env={"env_vars": env},
                            log_to_driver=False,
                            configure_logging=False,
                            **({} if joins(address) else {"_temp_dir": _private_ray_folder()}),
                        )
                except Exception as exc:  # Ray raises bare Exceptions, RuntimeError, ConnectionError, OSError...
                    _stop_failed_start(ray, children)
                    raise RayNotStarted(f"{type(exc).__name__}: {str(exc).strip()[:300]}") from exc

            try:
                retried(start, what, 0.0, RAY_ATTEMPTS, pause=pause, retry_on=(RayNotStarted,))
            except RayNotStarted as exc:
                raise RayNotStarted(f"--executor ray: {what} failed {RAY_ATTEMPTS} times; the last: {exc}") from None
        self._remote = ray.remote(num_cpus=1, max_retries=0, num_returns="streaming")(_remote_instance)
        self._warned: set[str] = set()
        self._lock = threading.Lock()
        self._streams: set[Any] = set()  # the instances going on the cluster, cancelled if the run stops
        self._stopping = threading.Event()

    def slots(self) -> int:
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    def run(self, items: Iterable[T], prepare: Prepare, work: Work, on_output: OnOutput) -> None:
        from ray.exceptions import RayError, RayTaskError

        def one(item: T) -> None:
            for attempt in range(RESTARTS + 1):
                check_not_terminating()
                if self._stopping.is_set():  # another instance failed: the run ends
                    return
                stream = self._remote.remote(work, prepare(item))
                with self._lock:
                    self._streams.add(stream)
                try:
                    node = ""
                    for ref in stream:
                        kind, value = self.ray.get(ref)
                        if kind == "node":
                            node = value["node"]
                            self._note_layers(node, value["missing"])
                        else:
                            check_not_terminating()
                            on_output(value, node)
                    return
                except RayTaskError as exc:  # the work itself failed: as it would have here
                    check_not_terminating()  # or was cancelled because the driver stops
                    raise exc.as_instanceof_cause() from None
                except RayError as exc:  # a worker or node was lost
                    check_not_terminating()
                    if self._stopping.is_set():  # cancelled: the run ends on another instance's failure
                        return
                    if attempt == RESTARTS:
                        raise BenchsmithError(
                            f"an instance was lost {RESTARTS + 1} times on the cluster: {exc}"
                        ) from exc
                    log.warning("a worker was lost (%s); the instance starts again elsewhere", type(exc).__name__)
                finally:
                    with self._lock:
                        self._streams.discard(stream)

        self._stopping.clear()
        _all_done(list(items), one, self.slots(), self._cancel_all)

    def _cancel_all(self) -> None:
        """The driver stops (SIGTERM, Ctrl-C, an error): the runs on the cluster are no children of its, so each
        instance still going is cancelled, and its worker stops its runs as a stopped harness does."""
        self._stopping.set()
        with self._lock:
            streams = list(self._streams)
        for stream in streams:
            try:
                self.ray.cancel(stream)
            except Exception:  # already finished, or its node is gone: nothing left to stop there
                log.debug("cancelling an instance on the cluster", exc_info=True)

    def _note_layers(self, node: str, missing: list[str]) -> None:
        with self._lock:
            if node in self._warned:
                return
            self._warned.add(node)
        if missing:
            log.warning(
                "node %s cannot apply the sandbox's %s layers; candidates it judges are less isolated",
                node,
                ", ".join(missing),
            )


def _remote_instance(work: Work, payload: Any):
    """The Ray task: announce the node, then stream the work's outputs as it emits them."""
    import ray

    _interruptible_by_cancel()
    context = ray.get_runtime_context()
    yield "node", {"node": f"{ray.util.get_node_ip_address()}/{context.get_node_id()[:8]}", "missing": missing_layers()}
    outputs: queue.Queue = queue.Queue()
    finished = object()
    failure: list[BaseException] = []

    def run() -> None:
        try:
            with leased_slot() as slot:
                work(payload, slot, outputs.put)
        except BaseException as exc:  # re-raised below, in the task, so the driver sees it
            failure.append(exc)
        finally:
            outputs.put(finished)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    try:
        while True:
            try:  # awake now and then: ray.cancel's KeyboardInterrupt reaches a thread only when it runs bytecode
                output = outputs.get(timeout=CANCEL_POLL)
            except queue.Empty:
                continue
            if output is finished:
                break
            yield "output", output
    except BaseException:
        # ray.cancel (a KeyboardInterrupt, wherever it lands), Ray's SIGTERM of the worker (SystemExit): the driver
        # stops. Stop the runs as a stopped harness does (each waiting thread then stops its run's processes and
        # removes its folders), wait for that, and end this worker, whose sandbox now refuses new runs. Nothing is
        # yielded after this: what was cut short gives no output.
        terminate_runs()
        worker.join(timeout=CANCEL_GRACE)
        clean_up_runs()
        os._exit(1)
    if failure:
        raise failure[0]


def _interruptible_by_cancel() -> None:
    """ray.cancel stops a running task with ``_thread.interrupt_main()``, which does nothing in a process that ignores
    SIGINT, and a worker inherits that from whatever started its node (a cluster started from a shell's background
    job, as CI scripts and nohup'd ``ray start`` do): the cancelled run then went on to its timeout and the driver,
    stopped by SIGTERM, waited for it. The worker's main thread, which runs the task, takes SIGINT as Python does by
    default again."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _all_done(items: list[T], one: Callable[[T], None], workers: int, stop: Callable[[], None] = lambda: None) -> None:
    """Run *one* over *items* on *workers* threads; the first failure (or a stop of the harness) cancels what has
    not started and calls *stop* for what has, before waiting for those threads."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(one, item) for item in items}
        try:
            while futures:
                done, futures = wait(futures, timeout=SIGNAL_POLL, return_when=FIRST_COMPLETED)
                for future in done:
                    future.result()
        except BaseException:
            for future in futures:
                future.cancel()
            stop()
            raise


@contextmanager
def _signal_handlers_kept() -> Iterator[None]:
    """ray.init installs its own handler for SIGTERM in the driver (it logs and aborts: the harness died with
    SIGABRT and its runs went on); the harness's handlers, which stop the runs and unwind, are put back after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for number, handler in kept.items():
            if handler is not None:
                signal.signal(number, handler)


def joins(address: str | None) -> bool:
    """Whether ray.init(address=*address*) joins a cluster named to it rather than starting Ray on this machine."""
    return bool(address or os.environ.get("RAY_ADDRESS"))


def _children() -> set[int]:
    """The processes this one started and that are still there."""
    found: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        try:
            found.update(int(pid) for pid in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def _private_ray_folder() -> str:
    """Where a Ray node started here keeps its sockets, ports and logs: a folder in one only this user can enter
    (mkdtemp: 0700), under ``RAY_TMPDIR`` where it is set. Ray makes every folder of its own world-writable without the
    sticky bit (/tmp/ray, its sessions' sockets and logs) and finds the local cluster to join through a file in one
    (/tmp/ray/ray_current_cluster): a candidate that shares the node's /tmp (no mount namespace) could unlink the
    raylet's socket, which stops the run, or name the cluster the next run joins (red team round 8). A cluster started
    apart is joined by its address (``RAY_ADDRESS``). The names are short: Ray's socket paths must fit in 107 bytes."""
    return str(Path(tempfile.mkdtemp(prefix="bs-", dir=os.environ.get("RAY_TMPDIR") or None)) / "r")


def _stop_failed_start(ray: Any, before: set[int]) -> None:
    """Leave nothing of a failed ray.init behind: its state in this process, and the processes it started (Ray's
    GCS and raylet, which share this process's fate only when it exits), before the next attempt."""
    try:
        ray.shutdown()
    except Exception:  # nothing was initialised
        log.debug("ray.shutdown after a failed start", exc_info=True)
    for pid in _children() - before:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def executor(name: str, workers: int, ray_address: str | None = None) -> LocalExecutor | RayExecutor:
    """The executor *name*; ``ray`` that cannot start a node of this machine's own is the local executor with
    *workers* threads, said in a warning and in the executor's ``instead_of``."""
    if name == "local":
        return LocalExecutor(workers)
    if name == "ray":
        try:
            return RayExecutor(ray_address)
        except RayNotStarted as exc:
            if joins(ray_address):  # a cluster named on purpose: judging here instead would not be what was asked
                raise
            log.warning("%s; judging on the local executor instead, %d workers", exc, max(1, workers))
            return LocalExecutor(workers, instead_of=f"ray: {exc}")
    raise BenchsmithError(f"--executor {name}: unknown (known: {', '.join(EXECUTORS)})")
