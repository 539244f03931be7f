"""One run whose candidate forks and fills, measured from outside against its memory limit, with and without its cgroup.

The candidate (red team round 4): three children that each fill 1.5 GiB and hold it, and 250 MiB written into the
jail's /tmp (a tmpfs), under the default limits (4 GiB of address space per process; with a run cgroup, 4 GiB for
the whole run). The harness polls, every 20 ms, the resident memory of every process of the run's sandbox uid and
the shared memory (tmpfs) of the machine above what it was before; with a cgroup, the group's own peak is read too.
Both phases run side by side in one invocation; the second has the cgroup turned off (BENCHSMITH_NO_CGROUPS=1), as
on a machine that offers none.

    python bench/fork_and_fill.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CANDIDATE = """
import os, select, time
read_end, write_end = os.pipe()
children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        held = b'x' * (1536 << 20)
        os.write(write_end, b'1')
        time.sleep(4)
        os._exit(0)
    children.append(pid)
try:
    open('/tmp/fill', 'wb').write(b'y' * (250 << 20))
except OSError as exc:
    print('tmpfs:', exc)
filled, deadline = b'', time.monotonic() + 30
while len(filled) < 3 and time.monotonic() < deadline:
    if select.select([read_end], [], [], 1)[0]:
        filled += os.read(read_end, 3)
print('children that filled:', len(filled), 'exit statuses:', [os.waitpid(pid, 0)[1] for pid in children], flush=True)
"""


def shmem_bytes() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Shmem:"):
            return int(line.split()[1]) * 1024
    return 0


def resident_of(uid: int) -> int:
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = dict(line.split(":", 1) for line in Path(f"/proc/{entry}/status").read_text().splitlines())
        except (OSError, ValueError):
            continue
        if int(fields.get("Uid", "-1").split()[0]) == uid and "VmRSS" in fields:
            total += int(fields["VmRSS"].split()[0]) * 1024
    return total


def one_run() -> dict:
    """In a child process: the run, polled from outside."""
    from benchsmith.runners.sandbox import jail as sandbox

    with sandbox.leased_slot() as slot:
        folder = Path(os.environ.get("BENCHSMITH_CACHE", "/var/tmp")) / f"fork-and-fill-{os.getpid()}"
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(0o755)
        sandbox.give_to_sandbox(folder, slot)
        limits = sandbox.Limits(wall_seconds=60)
        uid = sandbox.sandbox_uid(slot)
        base_shmem = shmem_bytes()
        peak = {"resident": 0, "held": 0}
        done = threading.Event()

        def poll() -> None:
            while not done.is_set():
                resident = resident_of(uid)
                held = resident + max(0, shmem_bytes() - base_shmem)
                peak["resident"], peak["held"] = max(peak["resident"], resident), max(peak["held"], held)
                time.sleep(0.02)

        poller = threading.Thread(target=poll)
        poller.start()
        started = time.monotonic()
        process = sandbox.start(
            ["/usr/bin/python3", "-I", "-c", CANDIDATE],
            folder,
            slot,
            limits,
            folder / "run.log",
            jail=sandbox.Jail(writable=(folder,)),
        )
        process.wait(timeout=90)
        sandbox.stop(process, slot)
        done.set()
        poller.join()
        return {
            "cgroup": sandbox.isolation()["run_cgroup"],
            "limit": limits.memory_bytes,
            "seconds": time.monotonic() - started,
            "outside_resident_peak": peak["resident"],
            "outside_held_peak": peak["held"],
            "group_peak": process.peak_memory_bytes,
            "reached": str(process.reached),
            "said": (folder / "run.log").read_text().strip()[-300:],
        }


def main() -> int:
    if "--one" in sys.argv:
        print(json.dumps(one_run()))
        return 0
    gib = 1 << 30
    ok = True
    for label, extra in (("with a run cgroup", {}), ("rlimits alone", {"BENCHSMITH_NO_CGROUPS": "1"})):
        completed = subprocess.run(
            [sys.executable, __file__, "--one"], env={**os.environ, **extra}, capture_output=True, text=True
        )
        if completed.returncode != 0:
            print(completed.stderr[-2000:])
            return 1
        run = json.loads(completed.stdout.strip().splitlines()[-1])
        held, resident, group = run["outside_held_peak"], run["outside_resident_peak"], run["group_peak"]
        print(
            f"{label}: limit {run['limit'] / gib:.2f} GiB; peak from outside: resident {resident / gib:.2f} GiB, "
            f"resident + tmpfs {held / gib:.2f} GiB; the group's own peak {group / gib:.2f} GiB; {run['seconds']:.1f} s"
        )
        print(f"    bound reached: {run['reached'] or '(none said)'}; the run said: {run['said']!r}")
        if run["cgroup"]:
            ok &= run["group_peak"] <= run["limit"] and run["outside_held_peak"] <= run["limit"] * 1.02
    print("OK" if ok else "FAILED: the run held more than its limit")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
