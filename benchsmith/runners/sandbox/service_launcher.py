"""Start a run's services, then become its command: ``python service_launcher.py COMMAND...``.

Run inside the run's own sandbox (its network namespace, uid, jail), as the first process of the run: the services
it starts are the run's processes, as its tests are, listen on the run's own loopback and die with the run. Each
gets an empty data folder of its own under ``BENCHSMITH_SERVICES_ROOT`` (the harness's fresh folder for the run) or
``TMPDIR`` (a jail's private ``/tmp``), so nothing written in one run is there in the next. The services to start
are ``BENCHSMITH_SERVICES``: JSON, a list of ``{"kind", "port", "user", "password", "database", "programs"}`` where
*programs* maps each program the kind needs to its path (found by the harness). Once every one accepts connections
on 127.0.0.1, COMMAND replaces this process; a service that does not start ends the run with status 125 and its
log's last lines on stderr.

Standard library only: it runs in the repository's environment, inside the sandbox.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time

FAILED = 125
START_SECONDS = 60.0
_SERVERS: list[subprocess.Popen] = []  # started, to be running until the run ends


def main(argv: list[str]) -> int:
    services = json.loads(os.environ.pop("BENCHSMITH_SERVICES", "[]"))
    base = os.environ.pop("BENCHSMITH_SERVICES_ROOT", "") or None
    root = tempfile.mkdtemp(prefix="benchsmith-services-", dir=base)
    for number, service in enumerate(services):
        folder = os.path.join(root, f"{number}-{service['kind']}")
        os.mkdir(folder, 0o700)
        problem = START[service["kind"]](service, folder)
        if problem is None:
            problem = _wait(service["port"], folder)
        if problem is not None:
            sys.stderr.write(f"benchsmith: {service['kind']} on 127.0.0.1:{service['port']} did not start: {problem}\n")
            sys.stderr.write(_tail(os.path.join(folder, "server.log")))
            return FAILED
    _compose_answers(root, [s["name"] for s in services if s.get("name")])
    sys.stderr.flush()
    os.execv(argv[0], argv)
    return FAILED  # not reached


# `docker` and `docker-compose` first on the run's PATH: suites whose fixtures bring their compose file's services up
# (`docker compose -f tests/docker-compose.yml up -d redis`, pytest-docker's `up --build -d`) find those already up,
# started by this launcher, and their `down`, `stop`, `rm` and `pull` have nothing to do. Anything else, and a
# service this run did not start, fails as a machine without Docker would.
_COMPOSE = """#!/bin/sh
started=" %s "
refuse() { echo "benchsmith: $1 (no Docker in this run)" >&2; exit 1; }
if [ "$(basename "$0")" = docker ]; then
    [ "$1" = compose ] || refuse "docker $1 is not available"
    shift
fi
verb=""
for arg in "$@"; do
    case "$arg" in
        -*) ;;
        up|down|stop|rm|kill|pull|start|restart|ps|build|config) [ -z "$verb" ] && verb=$arg ;;
        *) case "$verb" in
               up|start|restart)
                   case "$started" in *" $arg "*) ;; *) refuse "compose service $arg was not started for it" ;; esac ;;
           esac ;;
    esac
done
case "$verb" in
    up|down|stop|rm|kill|pull|start|restart|ps|build) exit 0 ;;
    *) refuse "docker compose $verb is not available" ;;
esac
"""


def _compose_answers(root: str, names: list[str]) -> None:
    """Put the compose stand-in first on PATH when some service was started under its compose name."""
    if not names:
        return
    folder = os.path.join(root, "bin")
    os.mkdir(folder, 0o755)
    for program in ("docker", "docker-compose"):
        path = os.path.join(folder, program)
        with open(path, "w", encoding="utf-8") as out:
            out.write(_COMPOSE % " ".join(names))
        os.chmod(path, 0o755)
    os.environ["PATH"] = folder + os.pathsep + os.environ.get("PATH", "")


def _spawn(
    argv: list[str], folder: str, name: str = "server.log", wait: bool = False, env: dict | None = None
) -> str | None:
    """Start *argv* in the run's process group, its output to *folder*/*name*, holding none of the run's other
    descriptors (the harness's report pipe stays the tests' alone); with *wait*, run it to its end."""
    with open(os.path.join(folder, name), "ab") as out:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            cwd=folder,
            close_fds=True,
            env={**(env or os.environ), "TMPDIR": folder},  # its temporary files in its own folder too
        )
    if not wait:
        _SERVERS.append(process)
    else:
        try:
            code = process.wait(timeout=START_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            return f"{os.path.basename(argv[0])} did not finish in {START_SECONDS:.0f} s"
        if code != 0:
            sys.stderr.write(_tail(os.path.join(folder, name)))
            return f"{os.path.basename(argv[0])} exited with status {code}"
    return None


def _redis(service: dict, folder: str) -> str | None:
    argv = [service["programs"]["server"], "--port", str(service["port"]), "--bind", "127.0.0.1"]
    argv += ["--dir", folder, "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "no"]
    if service.get("password"):
        argv += ["--requirepass", service["password"]]
    return _spawn(argv, folder)


def _memcached(service: dict, folder: str) -> str | None:
    argv = [service["programs"]["server"], "-l", "127.0.0.1", "-p", str(service["port"]), "-U", "0", "-m", "64"]
    if os.geteuid() == 0:  # memcached refuses to run as root unless told which user it is
        argv += ["-u", pwd.getpwuid(0).pw_name]
    return _spawn(argv, folder)


def _named_user(programs: dict, folder: str) -> dict | None:
    """The environment under which PostgreSQL's programs find a name for this uid: a sandbox uid has no passwd
    entry, and they refuse to run without one (``could not look up effective user ID``). nss_wrapper answers from
    a passwd file in the service's own folder; None where the uid has an entry."""
    try:
        pwd.getpwuid(os.getuid())
        return None
    except KeyError:
        pass
    passwd, group = os.path.join(folder, "passwd"), os.path.join(folder, "group")
    with open(passwd, "w", encoding="utf-8") as out:
        out.write(f"postgres:x:{os.getuid()}:{os.getgid()}:PostgreSQL:{folder}:/bin/sh\n")
    with open(group, "w", encoding="utf-8") as out:
        out.write(f"postgres:x:{os.getgid()}:\n")
    return {
        **os.environ,
        "LD_PRELOAD": programs["nss_wrapper"],
        "NSS_WRAPPER_PASSWD": passwd,
        "NSS_WRAPPER_GROUP": group,
    }


def _postgresql(service: dict, folder: str) -> str | None:
    programs, data = service["programs"], os.path.join(folder, "data")
    user = service.get("user") or "postgres"
    env = _named_user(programs, folder)
    problem = _data(service, data, folder, "initdb.log", env)
    if problem:
        return problem
    settings = ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
    argv = [programs["server"], "-D", data, "-h", "127.0.0.1", "-p", str(service["port"]), "-k", folder, *settings]
    problem = _spawn(argv, folder, env=env) or _wait(service["port"], folder)
    address = ["-h", "127.0.0.1", "-p", str(service["port"]), "-U", user]
    deadline = time.monotonic() + START_SECONDS
    while problem is None:
        if subprocess.run([programs["isready"], *address], capture_output=True, env=env).returncode == 0:
            break
        if time.monotonic() > deadline:  # the port is open while the server still starts up
            problem = f"not ready in {START_SECONDS:.0f} s"
        time.sleep(0.02)
    database = service.get("database")
    if problem is None and database and database != user:
        problem = _spawn([programs["createdb"], *address, database], folder, "createdb.log", wait=True, env=env)
    return problem


# Sized for a run's address space (a candidate's is 4 GiB): with its default buffers and performance schema, MariaDB's
# bootstrap does not finish under that limit.
def _data(service: dict, data: str, folder: str, log_name: str, env: dict | None = None) -> str | None:
    """The server's empty data folder at *data*: a copy of the harness's template (made once, services.py), or,
    where it could make none, made here by the spec's command; why not, or None."""
    template = service.get("template")
    if template and os.path.isdir(template):
        shutil.copytree(template, data, symlinks=True)
        os.chmod(data, 0o700)  # PostgreSQL starts only on a data folder its user alone can enter
        return None
    init = [argument.replace("{data}", data) for argument in service["init"]]
    return _spawn(init, folder, log_name, wait=True, env=env)


def _mysql(service: dict, folder: str) -> str | None:
    programs, data = service["programs"], os.path.join(folder, "data")
    problem = _data(service, data, folder, "install-db.log")
    if problem:
        return problem
    password = service.get("password", "").replace("\\", "\\\\").replace("'", "\\'")
    # Every account the tests may log in as, from every loopback name, with the password the CI names: an account
    # of a more specific host (root@127.0.0.1, the anonymous ''@localhost) would otherwise answer first.
    statements = ["DROP USER IF EXISTS ''@'localhost'", f"DROP USER IF EXISTS ''@'{socket.gethostname()}'"]
    for user in dict.fromkeys(["root", service.get("user") or "root"]):
        for host in ("localhost", "127.0.0.1", "::1", "%"):
            statements += [
                f"CREATE USER IF NOT EXISTS '{user}'@'{host}' IDENTIFIED BY '{password}'",
                f"ALTER USER '{user}'@'{host}' IDENTIFIED BY '{password}'",
                f"GRANT ALL ON *.* TO '{user}'@'{host}' WITH GRANT OPTION",
            ]
    if service.get("database"):
        statements += [f"CREATE DATABASE IF NOT EXISTS `{service['database']}`"]
    init = os.path.join(folder, "init.sql")
    with open(init, "w", encoding="utf-8") as out:
        out.write(";\n".join(statements) + ";\n")
    argv = [programs["server"], "--no-defaults", f"--datadir={data}", f"--socket={folder}/mysqld.sock"]
    argv += [f"--port={service['port']}", "--bind-address=127.0.0.1", "--skip-name-resolve", f"--tmpdir={folder}"]
    argv += [f"--pid-file={folder}/mysqld.pid", f"--init-file={init}", "--innodb-flush-log-at-trx-commit=0"]
    argv += service["server_options"]
    if os.geteuid() == 0:
        argv.append("--user=root")
    return _spawn(argv, folder)


START = {"redis": _redis, "memcached": _memcached, "postgresql": _postgresql, "mysql": _mysql}


def _wait(port: int, folder: str) -> str | None:
    """None once 127.0.0.1:*port* accepts a connection; why not after START_SECONDS."""
    deadline = time.monotonic() + START_SECONDS
    pause = 0.005
    while time.monotonic() < deadline:
        ended = next((p for p in _SERVERS if p.poll() is not None), None)
        if ended is not None:
            return f"{os.path.basename(ended.args[0])} exited with status {ended.returncode}"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return None
        except OSError:
            time.sleep(pause)
            pause = min(pause * 2, 0.2)
    return f"nothing accepted connections on the port in {START_SECONDS:.0f} s"


def _tail(path: str, lines: int = 20) -> str:
    """The log's lines that say error, then its last *lines*."""
    try:
        with open(path, encoding="utf-8", errors="replace") as log:
            text = log.readlines()
    except OSError:
        return ""
    errors = [line for line in text[:-lines] if "error" in line.lower()][:10]
    return "".join(errors + text[-lines:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
