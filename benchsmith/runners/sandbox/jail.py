"""Run untrusted processes: own process group, time and resource limits, no network, no privileges.

Layers, each applied where the machine allows it (``isolation()`` says which,
``missing_layers()`` says in one line what is not):

* a new process group killed as a whole at the wall-clock limit;
* rlimits on CPU time, file size, address space and number of processes, and, where the kernel offers one, a
  cgroup of the run's own bounding the memory (tmpfs included) and processes of all its processes together
  (``benchsmith.runners.sandbox.cgroups``);
* a new network namespace: only its own loopback, reaching nothing outside;
* when benchsmith runs as root, an unprivileged uid of its own per sandbox
  slot, so the candidate can write only its scratch folder (chowned to that
  uid) and every process it leaves behind can be found and killed by uid;
* with a :class:`Jail`, when root and bubblewrap are there: a mount namespace
  holding only what the run needs (the system, the paths the caller names,
  copy-on-write trees whose writes go to a size-limited tmpfs that vanishes
  with the run), a private ``/tmp`` and ``/dev/shm``, and a PID namespace
  whose processes all die with it. Without one, the jail's trees are real
  copies made for the run and removed after it.
"""

from __future__ import annotations

import fcntl
import functools
import logging
import os
import resource
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchsmith.core.errors import BenchsmithError, Terminated
from benchsmith.runners.sandbox import cgroups

log = logging.getLogger(__name__)

SANDBOX_UID_BASE = 61000  # uids 61000.. are used for sandbox slots; they need no passwd entry
MAX_SLOTS = 256
# Each slot has a few uids ("lanes"), so that processes a slot runs side by side (a compiler and the JVM that runs a
# candidate, or the JVM of the next candidate starting while this one runs) cannot signal, trace or attach to each
# other even where no PID namespace separates them.
LANES = 4
# Slots are leased machine-wide: two benchsmith processes must never share a sandbox uid.
SLOT_LOCKS = Path(os.environ.get("BENCHSMITH_SLOT_LOCKS", "/tmp/benchsmith-sandbox-slots"))


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 120.0
    cpu_seconds: int = 300
    # Address space per process (a JVM with -Xmx512m reserves about 2 GiB), and, in a run's cgroup, the memory its
    # processes hold together, tmpfs and swap included.
    memory_bytes: int = 4 << 30
    file_bytes: int = 256 << 20
    # Threads count: a JVM starts a few dozen, and on a busy machine ended threads are released late: Mockito's
    # ThreadsShareGenerouslyStubbedMockTest (100 threads at a time, joined, 50 times) peaked at 835 in one JVM with two
    # workers on two cores. Per sandbox uid, so the lanes of two slots stay well below the kernel's 32768 pids; and
    # per run, in its cgroup.
    processes: int = 2048
    scratch_bytes: int = 512 << 20  # everything a jailed run writes into its trees, and again into /tmp and /dev/shm


@dataclass(frozen=True)
class ProcessExit:
    returncode: int | None
    timed_out: bool
    seconds: float
    reached: str = ""  # which of the run's cgroup bounds it reached (cgroups.Reached), "" for none

    @property
    def signal(self) -> int | None:
        """The signal that ended the process, also where the jail's launcher reported it as its own exit, 128 + it."""
        if self.returncode is None:
            return None
        if self.returncode < 0:
            return -self.returncode
        return self.returncode - 128 if self.returncode > 128 else None


@dataclass(frozen=True)
class Jail:
    """What a jailed process sees of the file system; everything not named here is absent.

    Paths keep their host names inside. *trees* are ``(lower, at)`` pairs: at
    *at* the process finds a private, writable copy of *lower* (an overlay
    whose writes land in the run's tmpfs), which nothing after the run sees.
    *at* must be a folder of the run's own (a fresh scratch folder), since
    where no jail can be built the copy is made there for real.
    """

    read_only: tuple[Path, ...] = ()
    writable: tuple[Path, ...] = ()  # folders the harness made for this run and reads back itself
    trees: tuple[tuple[Path, Path], ...] = ()
    placed: tuple[tuple[Path, Path], ...] = ()  # (file, at): *file*, read-only, at *at* inside one of the trees
    # Folders inside the read-only paths (or the system) that the jail shows empty: an interpreter's own site-packages
    # can hold another copy of the very package under test. Without a mount namespace their modes alone guard them.
    hidden: tuple[Path, ...] = ()


# A mount point for the jail's tmpfs. It is mounted over only inside each run's private mount namespace, so on the
# host, and for every other run, it stays an empty folder.
JAIL_MOUNTS = Path(tempfile.gettempdir()) / "benchsmith-jail"
_SYSTEM = ("/usr", "/etc")  # read-only in every jail: the JDK, interpreters, libraries, their configuration
# Host names that benchmark tests resolve, and only resolve (JacksonDatabind's testInetAddress reads back the name of
# google.com, ning.com and www.ning.com): Defects4J's machines had DNS, a jail has no network, so its hosts file
# answers them with documentation addresses (RFC 5737), which nothing can reach.
RESOLVED_NAMES = ("google.com", "www.google.com", "ning.com", "www.ning.com")
_OVERLAY_UNSAFE = (",", ":", "\\")  # cannot be spelled in overlayfs mount options


@functools.cache
def isolation() -> dict[str, bool]:
    """Which layers this machine allows; probed once."""
    network = (
        shutil.which("unshare") is not None
        and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0
    )
    drop = os.geteuid() == 0 and shutil.which("setpriv") is not None
    jail = drop and _jail_works()
    layers = {
        "network_namespace": network or jail,
        "unprivileged_uid": drop,
        "mount_namespace": jail,
        "pid_namespace": jail,
        "private_tmp": jail,
        "run_cgroup": cgroups.available(),
    }
    if not all(layers.values()):
        log.warning(missing_layers(layers))
    return layers


def missing_layers(layers: dict[str, bool] | None = None) -> str:
    """One line: which sandbox layers this machine lacks, and what still holds."""
    layers = layers if layers is not None else isolation()
    missing = [name.replace("_", " ") for name, present in layers.items() if not present]
    if not missing:
        return "sandbox: every layer is in place"
    why = []
    if not layers["unprivileged_uid"]:
        why.append("not root, so candidates run as this user and can read what it reads")
    elif not layers["mount_namespace"]:
        why.append(
            "no bubblewrap or no mount namespaces (apt-get install bubblewrap), so files are guarded by modes only"
        )
    if not layers.get("run_cgroup", True):
        why.append("no writable cgroup v1 memory and pids hierarchies, so memory and processes are bounded per process")
    return (
        f"sandbox layers missing: {', '.join(missing)} ({'; '.join(why) or 'unshare failed'}); still enforced: "
        "per-candidate copies, rlimits, sentinel and count checks on every verdict"
    )


def _jail_works() -> bool:
    if shutil.which("bwrap") is None or shutil.which("unshare") is None:
        return False
    probe = Path(tempfile.mkdtemp(prefix="benchsmith-jail-probe-"))
    try:
        (probe / "lower").mkdir()
        (probe / "lower" / "seen").write_text("x")
        probe.chmod(0o755)
        jail = Jail(trees=((probe / "lower", probe / "tree"),))
        completed = subprocess.run(
            _jailed(
                ["sh", "-c", "echo y > seen.new && test -s seen"],
                probe / "tree",
                None,
                jail,
                Limits(scratch_bytes=1 << 20),
            ),
            capture_output=True,
            timeout=30,
        )
        if completed.returncode != 0:
            log.debug("jail probe failed: %s", completed.stderr.decode(errors="replace").strip())
        return completed.returncode == 0 and not (probe / "lower" / "seen.new").exists()
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        shutil.rmtree(probe, ignore_errors=True)


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
                kill_leftovers(slot, range(LANES))  # whatever a crashed holder left behind
                yield slot
            finally:
                kill_leftovers(slot, range(LANES))
                cgroups.remove_slot(slot, range(LANES))
                handle.close()
            return
        time.sleep(0.5)


def sandbox_uid(slot: int, lane: int = 0) -> int | None:
    return SANDBOX_UID_BASE + slot * LANES + lane if isolation()["unprivileged_uid"] else None


def give_to_sandbox(path: Path, slot: int, lane: int = 0) -> None:
    """Make *path* (a scratch folder) writable by the sandbox of *slot* (and *lane*)."""
    uid = sandbox_uid(slot, lane)
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


def _limit(limits: Limits, nice: int = 0) -> None:
    if nice:
        os.nice(nice)
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _drop(argv: list[str], uid: int | None) -> list[str]:
    if uid is None:
        return list(argv)
    return [
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--no-new-privs",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
        *argv,
    ]


def wrap(
    argv: list[str],
    slot: int,
    cwd: Path | None = None,
    jail: Jail | None = None,
    limits: Limits | None = None,
    lane: int = 0,
) -> list[str]:
    """The command line that runs *argv* inside the isolation layers of *slot* (and *jail*, where one can be built)."""
    layers = isolation()
    uid = sandbox_uid(slot, lane)
    if jail is not None and layers["mount_namespace"]:
        return _jailed(argv, cwd or Path("/"), uid, jail, limits or Limits())
    wrapped = _drop(argv, uid)
    if layers["network_namespace"]:
        # A namespace of its own, with its loopback up: local servers that tests start work, nothing else is reachable.
        wrapped = ["unshare", "-n", "--", "sh", "-c", 'ip link set lo up 2>/dev/null; exec "$0" "$@"', *wrapped]
    return wrapped


def _jailed(argv: list[str], cwd: Path, uid: int | None, jail: Jail, limits: Limits) -> list[str]:
    """unshare gives a private mount namespace where the overlays are mounted (as root), then bubblewrap builds the
    jail's root from the named paths only and starts *argv* as the sandbox uid in new PID, IPC, network and UTS
    namespaces."""
    JAIL_MOUNTS.mkdir(mode=0o700, exist_ok=True)
    size = max(limits.scratch_bytes, 1 << 20)
    script = [f"mount -t tmpfs -o size={size},mode=0700 benchsmith {shlex.quote(str(JAIL_MOUNTS))}"]
    bwrap = [
        "--die-with-parent",
        "--new-session",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "sandbox",
    ]
    for path in _SYSTEM:
        bwrap += ["--ro-bind", path, path]
    # The jail's /etc/hosts is written into the run's own tmpfs, which vanishes with it: nothing is left on the host.
    hosts = JAIL_MOUNTS / "hosts"
    script += [
        f"printf %s {shlex.quote(_jail_hosts())} > {shlex.quote(str(hosts))}",
        f"chmod 0644 {shlex.quote(str(hosts))}",
    ]
    bwrap += ["--ro-bind", str(hosts), "/etc/hosts"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / name
        if host.is_symlink():
            bwrap += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            bwrap += ["--ro-bind", str(host), str(host)]
    bwrap += ["--proc", "/proc", "--dev", "/dev"]
    for private in ("/tmp", "/dev/shm"):
        bwrap += ["--perms", "1777", "--size", str(size), "--tmpfs", private]
    # bwrap would make the folders leading to a bind private to root: the sandbox uid must be able to walk them.
    parents: list[Path] = []
    for target in [*jail.read_only, *jail.writable, *(at for _, at in jail.trees), cwd]:
        parents += [p for p in reversed(Path(target).parents) if p not in parents and str(p) not in ("/", *_SYSTEM)]
    for parent in parents:
        bwrap += ["--perms", "0755", "--dir", str(parent)]
    for path in jail.read_only:
        bwrap += ["--ro-bind", str(path), str(path)]
    for path in jail.hidden:
        bwrap += ["--perms", "0755", "--tmpfs", str(path), "--remount-ro", str(path)]
    for path in jail.writable:
        bwrap += ["--bind", str(path), str(path)]
    owner = f"{uid}:{uid}" if uid is not None else f"{os.getuid()}:{os.getgid()}"
    for number, (lower, at) in enumerate(jail.trees):
        if any(c in str(lower) for c in _OVERLAY_UNSAFE):
            raise BenchsmithError(f"{lower}: a jail's tree may not contain ',', ':' or '\\' in its path")
        upper, work, merged = (shlex.quote(str(JAIL_MOUNTS / f"{kind}{number}")) for kind in ("upper", "work", "tree"))
        script += [
            f"mkdir {upper} {work} {merged}",
            f"chown {owner} {upper}",
            f"mount -t overlay overlay -o lowerdir={shlex.quote(str(lower))},upperdir={upper},workdir={work} {merged}",
        ]
        bwrap += ["--bind", str(JAIL_MOUNTS / f"tree{number}"), str(at)]
    for source, at in jail.placed:
        bwrap += ["--ro-bind", str(source), str(at)]
    # bubblewrap reads its options from a file (--args FD): a class path of hundreds of jars, each bound on its own,
    # takes more than the 128 KiB that the shell's one script argument can hold. The file is root's, opened and
    # removed before bubblewrap starts; the command stays on the command line ("$@"), as bubblewrap wants it.
    arguments = _arguments_file(bwrap)
    script.append(
        f'exec 3< {shlex.quote(str(arguments))}; rm -f {shlex.quote(str(arguments))}; exec bwrap --args 3 "$@"'
    )
    command = ["--chdir", str(cwd), "--", *_drop(argv, uid)]
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-ec", "; ".join(script), "sh", *command]


JAIL_ARGUMENTS = Path(tempfile.gettempdir()) / "benchsmith-jail-args"


def _arguments_file(arguments: list[str]) -> Path:
    """A root-only file holding *arguments* NUL-separated, as ``bwrap --args`` reads them."""
    if any("\0" in a for a in arguments):
        raise BenchsmithError("a jail's arguments may not contain a NUL character")
    JAIL_ARGUMENTS.mkdir(mode=0o700, exist_ok=True)
    if JAIL_ARGUMENTS.is_symlink() or JAIL_ARGUMENTS.stat().st_uid != os.getuid():
        raise BenchsmithError(f"{JAIL_ARGUMENTS}: not a folder of this user's; remove it")
    JAIL_ARGUMENTS.chmod(0o700)
    handle, name = tempfile.mkstemp(prefix="bwrap-", dir=JAIL_ARGUMENTS)
    with os.fdopen(handle, "wb") as out:
        out.write(b"".join(a.encode() + b"\0" for a in arguments))
    return Path(name)


@functools.cache
def _jail_hosts() -> str:
    """The text of the jail's /etc/hosts: the host's, and RESOLVED_NAMES at documentation addresses."""
    own = Path("/etc/hosts").read_text(errors="replace") if Path("/etc/hosts").is_file() else "127.0.0.1 localhost\n"
    lines = [own.rstrip("\n"), "# benchsmith: names tests resolve; a jail has no network"]
    lines += [f"192.0.2.{number} {name}" for number, name in enumerate(RESOLVED_NAMES, start=1)]
    return "\n".join(lines) + "\n"


class Sandboxed(subprocess.Popen):
    """A sandboxed process; ``stop`` also removes the copies its jail needed where no mount namespace was there, and
    reads which bounds of its lane's cgroup the run reached."""

    made: tuple[Path, ...] = ()
    lane: int = 0
    group: cgroups.RunGroup | None = None
    reached: cgroups.Reached = cgroups.Reached()
    peak_memory_bytes: int = 0


# The runs this process started and has not stopped (pid -> the process and its slot), and the scratch folders of runs
# still going, from every thread: what a harness asked to stop (SIGTERM, Ctrl-C) kills and removes before it exits, so
# that nothing of a run (a trusted run's servers, its services' data) outlives it.
_LIVE: dict[int, tuple[subprocess.Popen, int]] = {}
_FOLDERS: set[Path] = set()
_TERMINATING = threading.Event()


def terminating() -> bool:
    """Whether this harness was asked to stop: no run starts any more, and what a run killed by it gave is no
    outcome."""
    return _TERMINATING.is_set()


def check_not_terminating() -> None:
    """Raise :class:`Terminated` once the harness was asked to stop: a run it killed gave no outcome to record."""
    if _TERMINATING.is_set():
        raise Terminated("the harness is stopping")


def terminate_runs() -> None:
    """Kill the process group of every run still going, from any thread, and start no other: the threads that wait
    on them then stop them (their uids' leftovers, their cgroups, their folders) as after any run. Safe in a signal
    handler: it takes no lock (the registry's copy is one step under the GIL)."""
    _TERMINATING.set()
    for process, _ in list(_LIVE.values()):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def clean_up_runs() -> None:
    """After the harness unwound: stop every run still registered (a thread that did not get to it) and remove the
    run folders still there."""
    for process, slot in list(_LIVE.values()):
        stop(process, slot)
    for folder in list(_FOLDERS):
        shutil.rmtree(folder, ignore_errors=True)
        _FOLDERS.discard(folder)


@contextmanager
def run_folder(prefix: str) -> Iterator[Path]:
    """A scratch folder for one run, removed after it, and by :func:`clean_up_runs` if the harness is stopped
    before it gets there."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    _FOLDERS.add(folder)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        _FOLDERS.discard(folder)


def start(
    argv: list[str],
    cwd: Path,
    slot: int,
    limits: Limits,
    log_path: Path,
    env: dict[str, str] | None = None,
    jail: Jail | None = None,
    lane: int = 0,
    nice: int = 0,
    **popen,
) -> Sandboxed:
    """Start *argv* sandboxed, its output going to *log_path* unless *popen* redirects it.

    The environment is minimal (PATH, HOME and TMPDIR in its folder, a UTF-8 locale) plus *env*. With a *jail*,
    HOME and TMPDIR are the jail's private ``/tmp``. Once the harness was asked to stop, nothing starts
    (:class:`Terminated`).
    """
    check_not_terminating()
    log_path.parent.mkdir(parents=True, exist_ok=True)
    made = _materialise(jail, slot, lane) if jail is not None and not isolation()["mount_namespace"] else ()
    private = "/tmp" if jail is not None and not made else str(cwd)
    log_file = log_path.open("ab")
    popen.setdefault("stdout", log_file)
    popen.setdefault("stderr", log_file)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": private,
        "LANG": "C.UTF-8",
        "TMPDIR": private,
        **(env or {}),
    }
    # bwrap changes into *cwd* itself, inside the jail; the host may not have it yet.
    host_cwd = cwd if jail is None or made else "/"
    group = cgroups.enter(slot, lane, limits.memory_bytes, limits.processes)

    def enter() -> None:  # in the child, before exec: nothing of the run runs outside its group
        if group is not None:
            group.join()
        _limit(limits, nice)

    try:
        process = Sandboxed(
            wrap(argv, slot, cwd, jail, limits, lane),
            cwd=host_cwd,
            env=env,
            start_new_session=True,
            preexec_fn=enter,
            **popen,
        )
    except BaseException:
        _remove(made)
        raise
    finally:
        log_file.close()
    process.made, process.lane, process.group = made, lane, group
    _LIVE[process.pid] = (process, slot)
    if _TERMINATING.is_set():  # asked to stop while it started: the handler's kill may have missed it
        os.killpg(process.pid, signal.SIGKILL)
    return process


def _materialise(jail: Jail, slot: int, lane: int) -> tuple[Path, ...]:
    """Without a mount namespace, each tree of the jail is copied for real to its place, for the sandbox to own."""
    made = []
    for lower, at in jail.trees:
        if at.exists():
            raise BenchsmithError(f"{at}: a jail's tree must go where nothing is yet")
        shutil.copytree(lower, at, symlinks=True)
        made.append(at)
    for source, at in jail.placed:
        if at.is_symlink() or not any(at.is_relative_to(root) for root in made):
            raise BenchsmithError(f"{at}: a placed file must go inside one of the jail's trees")
        at.unlink(missing_ok=True)
        at.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, at)
    # What a jail's overlay shows: its top folder the sandbox uid's (the upper layer's owner), everything under it the
    # owners and modes of the tree copied. Handing the whole copy to the sandbox uid let a candidate rewrite a test file
    # pytest had not imported yet, its def lines where they were (red team round 8).
    uid = sandbox_uid(slot, lane)
    for at in made if uid is not None else ():
        os.chown(at, uid, uid)
    for source, at in jail.placed:  # read-only, as in a jail
        os.lchown(at, 0, 0)
        at.chmod(0o644)
    return tuple(made)


def _remove(paths: tuple[Path, ...]) -> None:
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)  # fd-based: it never follows a link the sandbox planted


def stop(process: subprocess.Popen, slot: int) -> None:
    """Kill the process group and, when sandboxed by uid, every process left under its uid."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
    group = getattr(process, "group", None)
    if group is not None:  # whatever left the process group (a new session) but not the run's cgroup
        group.kill_all()
    kill_leftovers(slot, [getattr(process, "lane", 0)])
    _remove(getattr(process, "made", ()))
    if group is not None:
        process.reached, process.peak_memory_bytes = group.reached(), group.peak_memory_bytes()
        if process.reached:
            log.info("sandbox slot %d: %s", slot, process.reached)
        process.group = None
    _LIVE.pop(process.pid, None)


def renice(slot: int, lane: int, value: int = 0) -> bool:
    """Give every thread of the lane's processes the niceness *value* (raising priority needs root); whether it could.

    One setpriority(PRIO_USER) call reaches every thread whose real uid is the lane's (only that lane's processes
    have it), where walking /proc took tens of milliseconds on a busy machine, on the candidate's critical path.
    """
    uid = sandbox_uid(slot, lane)
    if uid is None:
        return False
    try:
        os.setpriority(os.PRIO_USER, uid, value)
    except OSError:  # no process of the lane is alive (ESRCH)
        pass
    return True


def kill_leftovers(slot: int, lanes: Iterable[int] = (0,)) -> None:
    """Kill every living process of the slot's uids in *lanes*, until none is left (bounded)."""
    for lane in lanes:
        uid = sandbox_uid(slot, lane)
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
        if int(fields.get("Uid", "-1").split()[0]) == uid and not fields.get("State", "").strip().startswith(
            ("Z", "X")
        ):
            found.append(int(entry))
    return found


def run(
    argv: list[str],
    cwd: Path,
    slot: int,
    limits: Limits,
    log_path: Path,
    stdin_text: str = "",
    env: dict[str, str] | None = None,
    jail: Jail | None = None,
    lane: int = 0,
    **popen,
) -> ProcessExit:
    """Run *argv* to completion or to the wall-clock limit."""
    started = time.monotonic()
    process = start(argv, cwd, slot, limits, log_path, env=env, jail=jail, lane=lane, stdin=subprocess.PIPE, **popen)
    timed_out = False
    try:
        process.communicate(stdin_text.encode(), timeout=limits.wall_seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        stop(process, slot)
    seconds = time.monotonic() - started
    return ProcessExit(None if timed_out else process.returncode, timed_out, seconds, str(process.reached))
