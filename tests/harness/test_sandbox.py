"""Each OS-level layer of the sandbox on its own, with plain processes (no JVM guard involved)."""

import os
import sys
from pathlib import Path

import pytest

from benchsmith.runners.sandbox import cgroups
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.runners.sandbox.jail import Limits

PY = sys.executable
SLOT = -1


@pytest.fixture(scope="module", autouse=True)
def slot():
    global SLOT
    with sandbox.leased_slot() as SLOT:
        yield SLOT


def run(code: str, folder: Path, limits: Limits = Limits(wall_seconds=20)) -> tuple[sandbox.ProcessExit, str]:
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    sandbox.give_to_sandbox(folder, slot=SLOT)
    log = folder.parent / f"{folder.name}.log"
    outcome = sandbox.run([PY, "-I", "-c", code], folder, SLOT, limits, log)
    return outcome, log.read_text()


@pytest.fixture
def scratch(tmp_path) -> Path:
    base = Path(os.environ["BENCHSMITH_CACHE"]) / "sandbox-test" / tmp_path.name
    base.mkdir(parents=True)
    return base


def test_wall_clock_limit_kills_the_whole_process_group(scratch):
    outcome, _ = run(
        "import subprocess, time; subprocess.Popen(['sleep', '300']); time.sleep(300)",
        scratch / "w",
        Limits(wall_seconds=2),
    )
    assert outcome.timed_out and outcome.seconds < 10
    uid = sandbox.sandbox_uid(SLOT)
    if uid is not None:
        assert sandbox.living_processes(uid) == []


@pytest.mark.skipif(not sandbox.isolation()["network_namespace"], reason="no network namespace on this machine")
def test_no_network(scratch):
    outcome, log = run(
        "import socket\n"
        "server = socket.socket(); server.bind(('127.0.0.1', 0)); server.listen()\n"
        "client = socket.create_connection(server.getsockname(), timeout=2); print('loopback ok')\n"
        "print('interfaces', socket.if_nameindex())",
        scratch / "n",
    )
    assert outcome.returncode == 0, log
    assert "loopback ok" in log  # tests may run local servers
    assert "interfaces [(1, 'lo')]" in log  # and there is no other interface: nothing outside is reachable


@pytest.mark.skipif(not sandbox.isolation()["unprivileged_uid"], reason="needs root to drop to a sandbox uid")
def test_cannot_write_outside_its_folder(scratch, tmp_path):
    outside = Path(os.environ["BENCHSMITH_CACHE"]) / "precious.txt"
    outside.write_text("keep")
    outcome, log = run(
        f"import os\ntry:\n    os.remove({str(outside)!r}); print('deleted')\nexcept OSError as e: print('refused', "
        f"e.errno)\n"
        "open('mine.txt', 'w').write('ok'); print('own folder ok')",
        scratch / "f",
    )
    assert "refused" in log and "own folder ok" in log
    assert outside.read_text() == "keep"


@pytest.mark.skipif(not sandbox.isolation()["unprivileged_uid"], reason="RLIMIT_NPROC does not bind root")
def test_process_limit_stops_a_fork_bomb(scratch):
    code = (
        "import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(60); "
        "os._exit(0)\n"
        "        n += 1\nexcept OSError as e:\n    print('stopped after', n, 'errno', e.errno)\n"
    )
    outcome, log = run(code, scratch / "p", Limits(wall_seconds=20, processes=64))
    assert "stopped after" in log
    assert int(log.split("stopped after ")[1].split()[0]) < 64
    assert sandbox.living_processes(sandbox.sandbox_uid(SLOT)) == []


def test_file_size_limit(scratch):
    outcome, log = run(
        "open('big', 'wb').write(b'x' * (64 << 20))", scratch / "s", Limits(wall_seconds=20, file_bytes=1 << 20)
    )
    assert outcome.returncode != 0
    assert (scratch / "s" / "big").stat().st_size <= 1 << 20


def test_memory_limit(scratch):
    outcome, log = run("x = bytearray(2 << 30)", scratch / "m", Limits(wall_seconds=20, memory_bytes=1 << 30))
    assert outcome.returncode != 0 and "MemoryError" in log


@pytest.mark.skipif(
    not sandbox.isolation()["mount_namespace"], reason="no mount namespace: the jail keeps the host's /etc"
)
def test_a_jail_resolves_the_names_tests_resolve_and_reaches_nothing(scratch):
    """JacksonDatabind's testInetAddress reads back the name of google.com: the jail's hosts file answers it with a
    documentation address, and the network stays absent."""
    folder = scratch / "h"
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    sandbox.give_to_sandbox(folder, slot=SLOT)
    log = scratch / "h.log"
    code = (
        "import socket\nprint('resolved', socket.gethostbyname('google.com'), socket.gethostbyname('www.ning.com'))\n"
        "try:\n    socket.create_connection(('google.com', 80), timeout=2)\nexcept OSError as exc:\n"
        "    print('unreachable', type(exc).__name__)\n"
    )
    jail = sandbox.Jail(writable=(folder,))  # the system's Python, under /usr, which every jail holds
    outcome = sandbox.run(["/usr/bin/python3", "-I", "-c", code], folder, SLOT, Limits(wall_seconds=20), log, jail=jail)
    text = log.read_text()
    assert outcome.returncode == 0, text
    assert "resolved 192.0.2.1 192.0.2.4" in text and "unreachable" in text


@pytest.mark.skipif(not sandbox.isolation()["mount_namespace"], reason="no mount namespace: no jail to bind into")
def test_a_jail_binds_only_the_jars_named_of_a_shared_repository_past_the_command_lines_limit(scratch, monkeypatch):
    """A Maven local repository holds the jars of every project benchsmith resolved: a jail sees the ones on its
    task's class path, each bound alone, and not the published jar of the project under test beside them, though
    the repository is readable by all. Six hundred binds (about 150 KiB of arguments) pass through bwrap's --args."""
    repository = scratch / "maven" / "repository"
    deep = "/".join(["org", "example", "a-rather-long-group-name-for-the-arguments"] * 3)
    listed = []
    for number in range(600):
        jar = repository / deep / f"lib{number}" / "1.0" / f"lib{number}-1.0.jar"
        jar.parent.mkdir(parents=True)
        jar.write_text(f"jar {number}")
        listed.append(jar)
    published = repository / "org" / "example" / "under-test" / "2.0" / "under-test-2.0.jar"
    published.parent.mkdir(parents=True)
    published.write_text("the class under test")
    for folder in [scratch, *scratch.parents]:
        if folder.stat().st_mode & 0o005 != 0o005:
            pytest.skip(f"{folder} is not readable by the sandbox user")
    assert sum(len(str(j)) * 2 for j in listed) > 128 << 10
    folder = scratch / "run"
    folder.mkdir()
    folder.chmod(0o755)
    sandbox.give_to_sandbox(folder, slot=SLOT)
    log = scratch / "run.log"
    # An arguments' folder of this test's own: the machine's is written meanwhile by every other process that jails.
    monkeypatch.setattr(sandbox, "JAIL_ARGUMENTS", scratch / "jail-args")
    script = (
        'for jar in "$@"; do cat "$jar" >/dev/null || exit 3; done; echo read "$#"; '
        f"if cat {published} 2>/dev/null; then echo LEAKED; fi; "
        f"ls {repository}/org/example 2>&1 | tr '\\n' ' '; echo; "
        "test -e /proc/self/fd/3 && echo FD3-OPEN; true"
    )
    jail = sandbox.Jail(read_only=tuple(listed), writable=(folder,))
    outcome = sandbox.run(
        ["sh", "-c", script, "sh", *map(str, listed)], folder, SLOT, Limits(wall_seconds=60), log, jail=jail
    )
    text = log.read_text()
    assert outcome.returncode == 0, text[-2000:]
    assert "read 600" in text and "LEAKED" not in text and "FD3-OPEN" not in text
    assert "under-test" not in text  # not even its folder
    assert published.read_text() == "the class under test"  # on the host, where it was
    assert list(sandbox.JAIL_ARGUMENTS.iterdir()) == []  # its arguments' file removed once read
    assert sandbox.JAIL_ARGUMENTS.stat().st_mode & 0o077 == 0  # the arguments' folder is root's alone


needs_cgroup = pytest.mark.skipif(
    not sandbox.isolation()["run_cgroup"], reason="the kernel offers no cgroup hierarchy a run can have of its own"
)


@needs_cgroup
def test_every_process_of_a_run_is_in_its_lanes_group_which_goes_with_the_slot(scratch):
    """Each run of a lane is in the lane's group (one uid, one run at a time), killed whole when the run stops; the
    groups are removed when the slot's lease ends, not one per run (a removed memory group keeps a kernel id while
    page cache is charged to it: one per run piled up, red team round 5)."""
    code = (
        "import os, subprocess\nsubprocess.run(['cat', '/proc/self/cgroup'])\n"
        "if os.fork() == 0:\n    print(open('/proc/self/cgroup').read(), flush=True)\n    os._exit(0)\nos.wait()\n"
    )

    def own_groups() -> dict[Path, set[Path]]:
        # This process's groups only (named for its pid): other processes on the machine (a second pytest-xdist
        # worker, another checkout's tests) lease slots and make and remove groups of their own meanwhile.
        return {parent: set(parent.glob(f"{os.getpid()}-*")) for parent in cgroups.parents()}

    before = own_groups()
    folder = scratch / "g"
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    with sandbox.leased_slot() as slot:
        sandbox.give_to_sandbox(folder, slot=slot)
        for number in range(3):
            log = scratch / f"g{number}.log"
            outcome = sandbox.run([PY, "-I", "-c", code], folder, slot, Limits(wall_seconds=20), log)
            text = log.read_text()
            assert outcome.returncode == 0, text
            for controller in cgroups.CONTROLLERS:
                lines = [
                    line
                    for line in text.splitlines()
                    if line.count(":") >= 2 and controller in line.split(":")[1].split(",")
                ]
                assert len(lines) == 2 and all(f"/benchsmith/{os.getpid()}-slot{slot}-lane0" in x for x in lines), text
            group = cgroups.lane_group(slot, 0)
            assert group is not None and group.processes() == []  # everything of the run was killed with it
        during = {parent: groups - before[parent] for parent, groups in own_groups().items()}
        assert all(len(added) == 1 for added in during.values()), during  # three runs, one group
    assert own_groups() == before  # gone with the lease


@needs_cgroup
@pytest.mark.skipif(not sandbox.isolation()["mount_namespace"], reason="no jail: no tmpfs of the run's own")
def test_fork_and_fill_is_bounded_for_the_whole_run_its_tmpfs_included(scratch):
    """Three children that each fill 160 MiB, and 100 MiB written to the jail's /tmp: 580 MiB, each process well inside
    its address space limit, against a run bound of 384 MiB. The kernel kills inside the run only, the bound reached
    is said, and the run's peak (measured from outside, by its group) never passed it."""
    folder = scratch / "f"
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    sandbox.give_to_sandbox(folder, slot=SLOT)
    code = (
        # each child holds its fill until the parent has written its own (a pipe, not a sleep: under load, children
        # that slept and left one after another never held 480 MiB at once)
        "import os\nheld_end, release_end = os.pipe()\nkids = []\nfor _ in range(3):\n    pid = os.fork()\n"
        "    if pid == 0:\n        os.close(release_end)\n        held = b'x' * (160 << 20)\n"
        "        os.read(held_end, 1)\n        os._exit(0)\n    kids.append(pid)\n"
        "open('/tmp/fill', 'wb').write(b'y' * (100 << 20))\nos.write(release_end, b'123')\n"
        "print('children', [os.waitpid(pid, 0)[1] for pid in kids], flush=True)\n"
    )
    limit = 384 << 20
    limits = Limits(wall_seconds=30, memory_bytes=limit, scratch_bytes=256 << 20)
    process = sandbox.start(
        ["/usr/bin/python3", "-I", "-c", code],
        folder,
        SLOT,
        limits,
        scratch / "f.log",
        jail=sandbox.Jail(writable=(folder,)),
    )
    process.wait(timeout=30)
    sandbox.stop(process, SLOT)
    text = (scratch / "f.log").read_text()
    assert process.reached.memory_kills >= 1, text
    assert "memory bound" in str(process.reached)
    assert 0 < process.peak_memory_bytes <= limit
    assert sandbox.living_processes(sandbox.sandbox_uid(SLOT)) == []


def test_without_cgroups_rlimits_alone_hold_and_the_layers_say_so(scratch, monkeypatch):
    monkeypatch.setattr(cgroups, "enter", lambda *args: None)
    outcome, log = run("print('ran')", scratch / "n", Limits(wall_seconds=20))
    assert outcome.returncode == 0 and "ran" in log and outcome.reached == ""
    layers = dict(sandbox.isolation(), run_cgroup=False)
    assert "run cgroup" in sandbox.missing_layers(layers)
