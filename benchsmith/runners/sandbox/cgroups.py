"""A control group of its own for each sandboxed run: its memory and processes bounded as a whole.

rlimits bound each process: a candidate that forks three children filling 1.5 GiB each holds 4.5 GiB against a
4 GiB limit, and its tmpfs counts against nothing. A run's cgroup (the kernel's cgroup v1 ``memory`` and ``pids``
hierarchies, where they are mounted and writable) holds every process the run starts:

* ``memory``: resident memory, page cache and tmpfs pages (the jail's trees, ``/tmp``, ``/dev/shm``) of all of them
  together, swap included, at most :attr:`Limits.memory_bytes`; past it the kernel reclaims, then kills inside the
  group only, never another run's JVM or the harness;
* ``pids``: at most :attr:`Limits.processes` processes and threads for the whole run (RLIMIT_NPROC counts per uid);
* not ``cpu``: in a group of its own, a test JVM's threads compete for the CPU as one entity against the harness's
  group, where each thread competed on its own; that made the Java fast path's median 30% slower (0.079 s against
  0.061 s; 0.064 s with memory and pids groups alone, bench/fast_vs_plain.py). CPU stays bounded per process
  (RLIMIT_CPU), by the wall clock, and by niceness.

Each lane of a sandbox slot (one uid, one run at a time) has one group, made or bounded afresh before a run starts
and joined by its first process before ``exec``, so nothing of the run runs outside it; when the run is stopped,
everything in it is killed and what the run reached is read against the counters at its start. The group is kept for
the lane's next run and removed with the slot's lease: a memory group removed keeps a kernel id until the page cache
charged to it is reclaimed, and one group a run piled up hundreds of those an hour (red team round 5), toward the
kernel's 65,535. Where the kernel offers
no such hierarchy (cgroup v2 alone, with nothing delegated; a container without them), rlimits alone hold, and
``isolation()`` says so.
"""

from __future__ import annotations

import functools
import logging
import os
import signal
import time
from dataclasses import dataclass, replace
from pathlib import Path

log = logging.getLogger(__name__)

CONTROLLERS = ("memory", "pids")
_ROOT = Path("/sys/fs/cgroup")
_FOLDER = "benchsmith"  # under the harness's own group, in each hierarchy


@dataclass(frozen=True)
class Reached:
    """What the run's bounds held back; empty when it stayed inside them."""

    memory_kills: int = 0  # processes the kernel killed at the memory bound
    refused_forks: int = 0  # forks and threads refused at the process bound

    def __bool__(self) -> bool:
        return bool(self.memory_kills or self.refused_forks)

    def __str__(self) -> str:
        said = []
        if self.memory_kills:
            said.append(f"the run reached its memory bound: the kernel killed {self.memory_kills} of its processes")
        if self.refused_forks:
            said.append(f"the run reached its process bound: {self.refused_forks} forks refused")
        return "; ".join(said)


@dataclass(frozen=True)
class RunGroup:
    """One lane's group, one folder per controller; *kills* and *refused* are its counters when the run started."""

    folders: tuple[Path, ...]
    kills: int = 0
    refused: int = 0

    def join(self) -> None:
        """Move the calling process into the group. Called in the child between fork and exec: only writes."""
        pid = str(os.getpid()).encode()
        for folder in self.folders:
            fd = os.open(folder / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)

    def _folder(self, controller: str) -> Path | None:
        return next((folder for folder in self.folders if _controller_of(folder) == controller), None)

    def counters(self) -> tuple[int, int]:
        """Processes killed at the memory bound, forks refused at the process bound: since the group was made."""
        memory, pids = self._folder("memory"), self._folder("pids")
        kills = _field(memory / "memory.oom_control", "oom_kill") if memory else 0
        refused = _field(pids / "pids.events", "max") if pids else 0
        return kills, refused

    def reached(self) -> Reached:
        """What this run reached: the counters now against those at its start."""
        kills, refused = self.counters()
        return Reached(kills - self.kills, refused - self.refused)

    def peak_memory_bytes(self) -> int:
        """The most memory (and swap) the run's processes held at once, tmpfs included; 0 without a memory group."""
        memory = self._folder("memory")
        if memory is None:
            return 0
        for name in ("memory.memsw.max_usage_in_bytes", "memory.max_usage_in_bytes"):
            try:
                return int((memory / name).read_text())
            except (OSError, ValueError):
                continue
        return 0

    def kill_all(self) -> None:
        """SIGKILL every process in the group, until none is left (bounded): whatever uid it runs as."""
        deadline, pause = time.monotonic() + 10, 0.001
        while time.monotonic() < deadline:
            pids = self.processes()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(pause)  # a killed process leaves its group within a millisecond or two, mostly
            pause = min(pause * 2, 0.05)
        log.error("processes of %s survived SIGKILL: %s", self.folders[0], self.processes())

    def processes(self) -> list[int]:
        for folder in self.folders:
            try:
                return [int(line) for line in (folder / "cgroup.procs").read_text().split()]
            except OSError:
                continue
        return []

    def remove(self) -> None:
        """Remove the group's folders (the kernel refuses while a process is in them: those are killed first)."""
        self.kill_all()
        for folder in self.folders:
            for attempt in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # a process killed a moment ago is still leaving the group
                    time.sleep(0.02)
            else:
                log.error("%s: a run's cgroup could not be removed", folder)


def _controller_of(folder: Path) -> str:
    """Which of CONTROLLERS the hierarchy holding *folder* is for (a mount such as ``cpu,cpuacct`` holds two)."""
    mounted = folder.relative_to(_ROOT).parts[0].split(",")
    return next((name for name in CONTROLLERS if name in mounted), mounted[0])


def _field(path: Path, name: str) -> int:
    try:
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == name:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _own_group(controller: str) -> Path | None:
    """The folder of the harness's own group in the v1 hierarchy of *controller*, if mounted and writable."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            mount = _ROOT / names if (_ROOT / names).is_dir() else _ROOT / controller
            folder = mount / path.lstrip("/")
            return folder if folder.is_dir() and os.access(folder, os.W_OK) else None
    return None


@functools.cache
def parents() -> tuple[Path, ...] | None:
    """The folders run groups are made in, one per controller; None where the kernel offers no such groups."""
    if os.environ.get("BENCHSMITH_NO_CGROUPS"):
        return None
    folders = []
    for controller in CONTROLLERS:
        own = _own_group(controller)
        if own is None:
            return None
        parent = own / _FOLDER
        try:
            parent.mkdir(exist_ok=True)
        except OSError:
            return None
        folders.append(parent)
    _sweep(tuple(folders))
    return tuple(folders)


def _sweep(folders: tuple[Path, ...]) -> None:
    """Remove the groups a harness that died left behind (named for its pid), killing what is still in them."""
    for parent in folders:
        for group in parent.iterdir():
            if not group.is_dir():
                continue
            owner = group.name.split("-", 1)[0]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                RunGroup((group,)).remove()


def available() -> bool:
    return parents() is not None


def _name(slot: int, lane: int) -> str:
    return f"{os.getpid()}-slot{slot}-lane{lane}"


def _bound_memory(folder: Path, memory_bytes: int) -> None:
    """Memory and swap together at *memory_bytes* (else swap is the way around the bound); swap's limit may never be
    below memory's, so which goes first depends on whether the bound rises or falls."""
    limit, swap = folder / "memory.limit_in_bytes", folder / "memory.memsw.limit_in_bytes"
    if not swap.exists():
        order = [limit]
    elif int(limit.read_text()) < memory_bytes:
        order = [swap, limit]
    else:
        order = [limit, swap]
    for path in order:
        path.write_text(str(memory_bytes))
    for peak in ("memory.max_usage_in_bytes", "memory.memsw.max_usage_in_bytes"):
        if (folder / peak).exists():
            (folder / peak).write_text("0")  # the run's peak, not the lane's


def enter(slot: int, lane: int, memory_bytes: int, processes: int) -> RunGroup | None:
    """The lane's group, bounded for the run about to start; None where the kernel offers none (rlimits alone hold
    then)."""
    roots = parents()
    if roots is None:
        return None
    folders = tuple(parent / _name(slot, lane) for parent in roots)
    try:
        for folder in folders:
            folder.mkdir(exist_ok=True)
            controller = _controller_of(folder)
            if controller == "memory":
                _bound_memory(folder, memory_bytes)
            elif controller == "pids":
                (folder / "pids.max").write_text(str(processes))
        group = RunGroup(folders)
        group.kill_all()  # a run of the lane before, had one escaped its stop
        kills, refused = group.counters()
    except OSError as exc:
        log.warning("a run's cgroup could not be made or bounded (%s): rlimits alone bound this run", exc)
        return None
    return replace(group, kills=kills, refused=refused)  # what the run reaches is counted from here


def lane_group(slot: int, lane: int) -> RunGroup | None:
    """The lane's group if it has one now."""
    roots = parents()
    if roots is None:
        return None
    folders = tuple(parent / _name(slot, lane) for parent in roots)
    return RunGroup(folders) if all(folder.is_dir() for folder in folders) else None


def remove_slot(slot: int, lanes: range) -> None:
    """Remove the slot's lane groups, killing what is left in them: its lease ends."""
    roots = parents()
    if roots is None:
        return
    for lane in lanes:
        RunGroup(tuple(parent / _name(slot, lane) for parent in roots)).remove()
