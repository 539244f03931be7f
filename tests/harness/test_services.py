"""Services started inside a run (benchsmith/runners/sandbox/services.py): real servers, real clients, sandboxed runs.

Redis is what `make test` installs; PostgreSQL and memcached run where Debian's packages are there.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from pathlib import Path

import pytest

from benchsmith.core.schema import Service
from benchsmith.runners.python.pytest_run import run_reporting
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.runners.sandbox import services

PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").is_file() else sys.executable  # the sandbox uid runs it
RESP = """
import socket, sys, time
def command(sock, *args):
    sock.sendall(b"*%d\\r\\n" % len(args) + b"".join(b"$%d\\r\\n%s\\r\\n" % (len(a), a) for a in args))
    return sock.recv(1024)
sock = socket.create_connection(("127.0.0.1", 6379))
mine = sys.argv[1].encode()
assert command(sock, b"SETNX", b"owner", mine) == b":1\\r\\n", "a server another run wrote into"
time.sleep(1.5)
assert command(sock, b"GET", b"owner") == b"$%d\\r\\n%s\\r\\n" % (len(mine), mine)
print("own server", sys.argv[1])
"""


def _run(tmp_path: Path, name: str, argv: list[str], wanted: tuple[Service, ...]) -> tuple[int | None, str]:
    folder = tmp_path / name
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    with sandbox.leased_slot() as slot:
        outcome, _ = run_reporting(
            argv, folder, slot, sandbox.Limits(wall_seconds=90), folder / "log.txt", {}, started_services=wanted
        )
    return outcome.returncode, (folder / "log.txt").read_text(errors="replace")


@pytest.mark.skipif(services.programs("redis") is None, reason="needs Debian's redis-server (make services)")
def test_two_runs_side_by_side_each_have_their_own_redis_on_6379(tmp_path):
    tmp_path.chmod(0o755)
    redis = (Service("redis", 6379, "test"),)
    results = {}

    def one(name: str) -> None:
        results[name] = _run(tmp_path, name, [PYTHON, "-c", RESP, name], redis)

    threads = [threading.Thread(target=one, args=(name,)) for name in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results["first"][0] == 0 and "own server first" in results["first"][1], results["first"][1]
    assert results["second"][0] == 0 and "own server second" in results["second"][1], results["second"][1]
    # and a third, after them, finds no owner either; nothing of theirs is left running
    assert _run(tmp_path, "third", [PYTHON, "-c", RESP, "third"], redis)[0] == 0
    assert not list(Path("/tmp").glob("benchsmith-services-*/0-redis/dump.rdb"))


def test_without_a_server_the_run_says_which(tmp_path, monkeypatch):
    tmp_path.chmod(0o755)
    monkeypatch.setattr(services, "programs", lambda kind: {"server": "/bin/false"})
    code, log = _run(tmp_path, "broken", [PYTHON, "-c", "print('ran')"], (Service("redis", 6390, "test"),))
    assert code == 125 and "ran" not in log
    assert "benchsmith: redis on 127.0.0.1:6390 did not start" in log


@pytest.mark.skipif(
    services.programs("postgresql") is None, reason="needs Debian's postgresql and libnss-wrapper (make services)"
)
@pytest.mark.parametrize("data", ["a copy of the template", "the run's own initdb"])
def test_postgresql_with_the_role_and_database_the_ci_names(tmp_path, monkeypatch, data):
    """Where the harness cannot make a template (its initdb failed), the run's launcher runs initdb itself, with the
    options the spec hands it."""
    tmp_path.chmod(0o755)
    if data == "the run's own initdb":
        monkeypatch.setattr(services, "data_template", lambda kind, init: None)
    psql = str(Path(services.programs("postgresql")["server"]).with_name("psql"))
    if not Path(psql).is_file():
        psql = shutil.which("psql") or psql
    wanted = (Service("postgresql", 5433, "test", user="app", password="secret", database="appdb"),)
    query = "create table t (x int); insert into t values (41); select x + 1 from t"
    client = [
        PYTHON,
        "-c",
        f"import subprocess; subprocess.run([{psql!r}, '-h', '127.0.0.1', '-p', '5433', '-U', 'app', "
        f"'-d', 'appdb', '-tAc', {query!r}], check=True)",
    ]
    code, log = _run(tmp_path, "pg", client, wanted)
    assert code == 0 and "42" in log, log
    # Each run copies one data folder the harness made with initdb, and writes only into its copy: the same table
    # is made again in the next run's server.
    if data == "a copy of the template":
        template = services.data_template(
            "postgresql", services.data_init("postgresql", services.programs("postgresql"), "app")
        )
        assert template is not None and (template / "PG_VERSION").is_file()
        assert all(not (Path(root).stat().st_mode & 0o022) for root, _, _ in os.walk(template))
    code, log = _run(tmp_path, "pg-again", client, wanted)
    assert code == 0 and "42" in log, log


@pytest.mark.skipif(services.programs("memcached") is None, reason="needs Debian's memcached (make services)")
def test_memcached(tmp_path):
    tmp_path.chmod(0o755)
    script = (
        "import socket\ns = socket.create_connection(('127.0.0.1', 11211))\n"
        "s.sendall(b'set k 0 0 2\\r\\nhi\\r\\nget k\\r\\n')\nimport time; time.sleep(0.2)\nprint(s.recv(100))\n"
    )
    code, log = _run(tmp_path, "mc", [PYTHON, "-c", script], (Service("memcached", 11211, "test"),))
    assert code == 0 and "VALUE k 0 2" in log, log


@pytest.mark.skipif(services.programs("redis") is None, reason="needs Debian's redis-server (make services)")
def test_a_suite_bringing_its_compose_services_up_finds_those_started_for_it(tmp_path):
    """Fixtures that run `docker compose up -d NAME` (litestar's, pytest-docker's) get the server this run started
    under that compose name; anything else Docker would do fails as on a machine without it."""
    tmp_path.chmod(0o755)
    script = (
        "import subprocess\n"
        "def status(*args):\n"
        "    return subprocess.run(args, capture_output=True).returncode\n"
        "print('up', status('docker', 'compose', '--file=tests/docker-compose.yml', '--project-name=p', 'up', '-d', "
        "'cache'))\n"
        "print('other', status('docker', 'compose', 'up', '-d', 'postgres'))\n"
        "print('run', status('docker', 'run', 'redis'))\n"
        "print('down', status('docker-compose', 'down', '-t', '5'))\n"
    )
    code, log = _run(tmp_path, "compose", [PYTHON, "-c", script], (Service("redis", 6397, "test", name="cache"),))
    assert code == 0, log
    assert [line for line in log.splitlines() if line[:2] in ("up", "ot", "ru", "do")] == [
        "up 0",
        "other 1",
        "run 1",
        "down 0",
    ]


@pytest.mark.skipif(services.programs("mysql") is None, reason="needs Debian's mariadb-server (make services)")
@pytest.mark.parametrize("data", ["a copy of the template", "the run's own mariadb-install-db"])
def test_mariadb_with_the_password_and_database_the_ci_names(tmp_path, monkeypatch, data):
    tmp_path.chmod(0o755)
    if data != "a copy of the template":
        monkeypatch.setattr(services, "data_template", lambda kind, init: None)
    client = shutil.which("mariadb") or shutil.which("mysql")
    wanted = (Service("mysql", 3307, "test", password="root", database="shop"),)
    query = "create table t (x int); insert into t values (41); select x + 1 from t"
    argv = [client, "--no-defaults", "-h", "127.0.0.1", "-P", "3307", "-uroot", "-proot", "shop", "-N", "-e", query]
    client_run = [PYTHON, "-c", f"import subprocess; subprocess.run({argv!r}, check=True)"]
    code, log = _run(tmp_path, "maria", client_run, wanted)
    assert code == 0 and "42" in log, log
    if data == "a copy of the template":  # root's, read-only, and each run writes only into its copy
        template = services.data_template("mysql", services.data_init("mysql", services.programs("mysql"), "root"))
        assert template is not None and (template / "mysql").is_dir()
        assert all(not (Path(root).stat().st_mode & 0o022) for root, _, _ in os.walk(template))
        code, log = _run(tmp_path, "maria-again", client_run, wanted)
        assert code == 0 and "42" in log, log
