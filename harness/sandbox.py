"""Run untrusted processes: own process group, time and resource limits, no network, no privileges.

Layers, each applied where the machine allows it (``isolation()`` says which):

* a new process group killed as a whole at the wall-clock limit;
* rlimits on CPU time, file size, address space and number of processes;
* a new network namespace (``unshare -n``): only its own loopback, reaching nothing outside;
* when benchsmith runs as root, an unprivileged uid of its own per sandbox
  slot, so the candidate can write only its scratch folder (chowned to that
  uid) and every process it leaves behind can be found and killed by uid.
"""

from __future__ import annotations

import fcntl
import functools
import logging
import os
import resource
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchsmith.errors import BenchsmithError

log = logging.getLogger(__name__)

SANDBOX_UID_BASE = 61000  # uids 61000.. are used for sandbox slots; they need no passwd entry
MAX_SLOTS = 256
# Slots are leased machine-wide: two benchsmith processes must never share a sandbox uid.
SLOT_LOCKS = Path(os.environ.get("BENCHSMITH_SLOT_LOCKS", "/tmp/benchsmith-sandbox-slots"))


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 120.0
    cpu_seconds: int = 300
    memory_bytes: int = 4 << 30  # address space; a JVM with -Xmx512m reserves about 2 GiB
    file_bytes: int = 256 << 20
    processes: int = 512  # threads count: a JVM starts a few dozen


@dataclass(frozen=True)
class Outcome:
    returncode: int | None
    timed_out: bool
    seconds: float


@functools.cache
def isolation() -> dict[str, bool]:
    """Which layers this machine allows; probed once."""
    network = shutil.which("unshare") is not None and subprocess.run(
        ["unshare", "-n", "true"], capture_output=True
    ).returncode == 0
    drop = os.geteuid() == 0 and shutil.which("setpriv") is not None
    if not network:
        log.warning("no network namespace here (unshare -n failed): candidates' sockets are refused only inside the JVM")
    if not drop:
        log.warning("not root: candidates run as the current user, limited by rlimits and the JVM's guard")
    return {"network_namespace": network, "unprivileged_uid": drop}


@contextmanager
def leased_slot() -> Iterator[int]:
    """Hold a sandbox slot that no other benchsmith process on this machine holds."""
    SLOT_LOCKS.mkdir(parents=True, exist_ok=True)
    while True:
        for slot in range(MAX_SLOTS):
            handle = (SLOT_LOCKS / f"slot-{slot}.lock").open("a")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            try:
                kill_leftovers(slot)  # whatever a crashed holder left behind
                yield slot
            finally:
                kill_leftovers(slot)
                handle.close()
            return
        time.sleep(0.5)


def sandbox_uid(slot: int) -> int | None:
    return SANDBOX_UID_BASE + slot if isolation()["unprivileged_uid"] else None


def give_to_sandbox(path: Path, slot: int) -> None:
    """Make *path* (a scratch folder) writable by the sandbox of *slot*."""
    uid = sandbox_uid(slot)
    if uid is None:
        return
    for root, dirs, files in os.walk(path):
        os.chown(root, uid, uid)
        for name in files:
            os.lchown(os.path.join(root, name), uid, uid)


def check_reachable(path: Path) -> None:
    """Fail clearly when the sandbox user could not reach *path* (a private parent folder)."""
    if not isolation()["unprivileged_uid"]:
        return
    for folder in [Path(path), *Path(path).parents]:
        if folder.exists() and not folder.stat().st_mode & 0o001:
            raise BenchsmithError(
                f"{folder}: not searchable by other users, so the sandbox user cannot reach {path}; "
                "put BENCHSMITH_CACHE somewhere else or run `chmod o+x` on it"
            )


def _limit(limits: Limits) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def wrap(argv: list[str], slot: int) -> list[str]:
    """The command line that runs *argv* inside the isolation layers of *slot*."""
    layers = isolation()
    wrapped = list(argv)
    uid = sandbox_uid(slot)
    if uid is not None:
        wrapped = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", *wrapped]
    if layers["network_namespace"]:
        # A namespace of its own, with its loopback up: local servers that tests start work, nothing else is reachable.
        wrapped = ["unshare", "-n", "--", "sh", "-c", 'ip link set lo up 2>/dev/null; exec "$0" "$@"', *wrapped]
    return wrapped


def start(argv: list[str], cwd: Path, slot: int, limits: Limits, log_path: Path, env: dict[str, str] | None = None,
          **popen) -> subprocess.Popen:  # fmt: skip
    """Start *argv* sandboxed, its output going to *log_path* unless *popen* redirects it.

    The environment is minimal (PATH, HOME and TMPDIR in its folder, a UTF-8 locale) plus *env*.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_file = log_path.open("ab")
    popen.setdefault("stdout", log_file)
    popen.setdefault("stderr", log_file)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cwd), "LANG": "C.UTF-8", "TMPDIR": str(cwd),
           **(env or {})}  # fmt: skip
    try:
        return subprocess.Popen(
            wrap(argv, slot), cwd=cwd, env=env, start_new_session=True, preexec_fn=lambda: _limit(limits), **popen
        )
    finally:
        log_file.close()


def stop(process: subprocess.Popen, slot: int) -> None:
    """Kill the process group and, when sandboxed by uid, every process left under that uid."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
    kill_leftovers(slot)


def kill_leftovers(slot: int) -> None:
    """Kill every living process of the slot's uid, until none is left (bounded)."""
    uid = sandbox_uid(slot)
    if uid is None:
        return
    deadline = time.monotonic() + 10
    while living_processes(uid) and time.monotonic() < deadline:
        for pid in living_processes(uid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    if living_processes(uid):
        log.error("processes of sandbox uid %d survived SIGKILL: %s", uid, living_processes(uid))


def living_processes(uid: int) -> list[int]:
    """Processes whose real uid is *uid* and that are not zombies."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields.get("Uid", "-1").split()[0]) == uid and not fields.get("State", "").strip().startswith(("Z", "X")):
            found.append(int(entry))
    return found


def run(argv: list[str], cwd: Path, slot: int, limits: Limits, log_path: Path, stdin_text: str = "",
        env: dict[str, str] | None = None) -> Outcome:  # fmt: skip
    """Run *argv* to completion or to the wall-clock limit."""
    started = time.monotonic()
    process = start(argv, cwd, slot, limits, log_path, env=env, stdin=subprocess.PIPE)
    timed_out = False
    try:
        process.communicate(stdin_text.encode(), timeout=limits.wall_seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        stop(process, slot)
    return Outcome(None if timed_out else process.returncode, timed_out, time.monotonic() - started)
