"""Services a run's tests expect on loopback (:class:`benchsmith.core.schema.Service`), started per run inside it.

A run that needs services starts as :mod:`benchsmith.runners.sandbox.service_launcher`, which starts each server,
waits until it accepts connections on 127.0.0.1, and then becomes the run's command. So the servers are processes
of the run: in its network namespace (whose loopback nothing else reaches, so two runs side by side both have their
Redis on 6379 and neither sees the other's), as its sandbox uid, under its limits, in its jail, killed with it by
the sandbox's stop (the process group, the uid's leftovers, the PID namespace). Each run's servers keep their data
in an empty folder of the run's own (a jail's private ``/tmp``, or a fresh folder the harness made and removes;
PostgreSQL's and MariaDB's a copy of a template the harness made, :func:`data_template`): nothing a candidate
writes into a server in one run is there in the next. They run with no more rights than the candidate: a candidate
can talk to them, stop them or fill them, in its own run only.

The programs are Debian's (``redis-server``, ``postgresql``, ``mariadb-server``, ``memcached``); :func:`prepare`
finds them and, when asked and root, installs the missing packages with apt-get.
"""

from __future__ import annotations

import glob
import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import Service

log = logging.getLogger(__name__)

LAUNCHER = Path(__file__).with_name("service_launcher.py")
# kind -> (Debian packages, {program: candidates, a path glob or a name on PATH}); the newest match is taken.
# PostgreSQL's programs refuse a uid without a passwd entry (a sandbox uid's): nss_wrapper gives it one.
PROGRAMS: dict[str, tuple[tuple[str, ...], dict[str, tuple[str, ...]]]] = {
    "redis": (("redis-server",), {"server": ("redis-server",)}),
    "memcached": (("memcached",), {"server": ("memcached",)}),
    "postgresql": (
        ("postgresql", "libnss-wrapper"),
        {
            "server": ("/usr/lib/postgresql/*/bin/postgres",),
            "initdb": ("/usr/lib/postgresql/*/bin/initdb",),
            "isready": ("/usr/lib/postgresql/*/bin/pg_isready",),
            "createdb": ("/usr/lib/postgresql/*/bin/createdb",),
            "nss_wrapper": ("/usr/lib/*/libnss_wrapper.so",),
        },
    ),
    "mysql": (
        ("mariadb-server",),
        {
            "server": ("/usr/sbin/mariadbd", "mariadbd", "/usr/sbin/mysqld", "mysqld"),
            "install_db": ("mariadb-install-db", "mysql_install_db"),
        },
    ),
}


def programs(kind: str) -> dict[str, str] | None:
    """The paths of the programs *kind* needs, or None when one is missing."""
    if kind not in PROGRAMS:
        raise BenchsmithError(f"service {kind!r}: not one of {', '.join(PROGRAMS)}")
    found = {}
    for program, candidates in PROGRAMS[kind][1].items():
        for candidate in candidates:
            matches = sorted(glob.glob(candidate), key=_version_key) if "/" in candidate else [shutil.which(candidate)]
            matches = [m for m in matches if m and os.access(m, os.R_OK if m.endswith(".so") else os.X_OK)]
            if matches:
                found[program] = matches[-1]
                break
        else:
            return None
    return found


def _version_key(path: str) -> list:
    return [int(part) if part.isdigit() else part for part in path.split("/")]


def prepare(services: Iterable[Service], install: bool = False) -> dict[str, str]:
    """kind -> why it cannot be started, for each of *services* whose programs are missing; with *install* (and
    root), their Debian packages are installed first."""
    return _missing({s.kind for s in services}, install, "or build with --services as root")


def _missing(kinds: Iterable[str], install: bool, otherwise: str) -> dict[str, str]:
    """kind -> why it cannot be started, for each of *kinds* whose programs are missing (after installing their
    Debian packages, with *install* and root); *otherwise* says what else would give them."""
    missing = sorted(kind for kind in set(kinds) if programs(kind) is None)
    if missing and install:
        if os.geteuid() != 0:
            return {kind: f"not root, so Debian's {_packages(kind)} cannot be installed" for kind in missing}
        packages = [package for kind in missing for package in PROGRAMS[kind][0]]
        log.info("installing %s from Debian's packages for the suite's services", ", ".join(packages))
        _apt_install(packages)
        missing = [kind for kind in missing if programs(kind) is None]
    return {kind: f"no {_packages(kind)} here (apt-get install {_packages(kind)}, {otherwise})" for kind in missing}


def _packages(kind: str) -> str:
    return " ".join(PROGRAMS[kind][0])


def _apt_install(packages: list[str]) -> None:
    environ = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    command = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages]
    done = subprocess.run(command, capture_output=True, text=True, env=environ)
    if done.returncode != 0:  # an index too old for the archive's current versions
        subprocess.run(["apt-get", "update", "-qq"], capture_output=True, env=environ)
        done = subprocess.run(command, capture_output=True, text=True, env=environ)
    if done.returncode != 0:
        log.warning("apt-get install %s failed: %s", " ".join(packages), done.stderr.strip()[-300:])


def launch(
    services: Iterable[Service], argv: list[str], launcher: Path
) -> tuple[list[str], dict[str, str], tuple[Path, ...]]:
    """*argv* started behind the launcher (its copy at *launcher*, readable inside the run), the environment that
    tells it which services to start, and the folders the run must read (the data templates it copies); *argv*
    itself when there are none."""
    specs, templates = [], []
    for service in services:
        found = programs(service.kind)
        if found is None:
            raise BenchsmithError(f"{service.kind} on port {service.port}: {prepare([service])[service.kind]}")
        spec = {
            "kind": service.kind,
            "port": service.port,
            "user": service.user,
            "password": service.password,
            "database": service.database,
            "name": service.name,
            "programs": found,
        }
        init = data_init(service.kind, found, service.user or "postgres")
        if init is not None:
            spec["init"], spec["server_options"] = init, MARIADB_SMALL if service.kind == "mysql" else []
            template = data_template(service.kind, init)
            if template is not None:
                spec["template"] = str(template)
                templates.append(template)
        specs.append(spec)
    if not specs:
        return argv, {}, ()
    return [argv[0], "-I", str(launcher), *argv], {"BENCHSMITH_SERVICES": json.dumps(specs)}, tuple(templates)


# What makes an empty data folder for a run's server ("{data}" stands for the folder): the harness runs it once for a
# template, and the service launcher, which is a file of its own in the run and imports nothing of benchsmith's, runs
# the spec's copy of it where no template could be made.
DATA = "{data}"
POSTGRESQL_INITDB = ["-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]
# MariaDB small enough for a run's memory limit; the launcher starts its server with the spec's copy of them too
MARIADB_SMALL = ["--innodb-buffer-pool-size=16M", "--innodb-log-file-size=8M", "--performance-schema=OFF"]
_NOBODY = 65534  # initdb refuses to run as root: the harness makes a template as nobody


def data_init(kind: str, found: dict[str, str], user: str) -> list[str] | None:
    """The command that makes an empty data folder at :data:`DATA` for *kind*'s server (None: it needs none);
    PostgreSQL's has *user* as its superuser."""
    if kind == "postgresql":
        return [found["initdb"], "-D", DATA, "-U", user, *POSTGRESQL_INITDB]
    if kind == "mysql":
        init = [found["install_db"], "--no-defaults", f"--datadir={DATA}", "--auth-root-authentication-method=normal"]
        return init + MARIADB_SMALL
    return None


def data_template(kind: str, init: list[str]) -> Path | None:
    """An empty data folder made once by *init* (:func:`data_init`), in benchsmith's cache, read-only: each run
    copies it instead of making its own (PostgreSQL's initdb took about 2 s of every run on a loaded machine, 0.4 s
    to copy). The harness makes it, never a run, so nothing a candidate does reaches the next run's server. None
    (each run makes its own, as before) where it cannot be made; why is logged."""
    program = init[0]
    made_by = "\0".join([os.path.realpath(program), str(os.stat(program).st_mtime_ns), *init[1:]])
    template = cache_dir("services") / f"{kind}-{hashlib.sha256(made_by.encode()).hexdigest()[:16]}"
    if template.is_dir():  # renamed into place whole, once made
        return template
    building = Path(tempfile.mkdtemp(prefix=f".{template.name}.", dir=template.parent))
    try:
        as_nobody = os.geteuid() == 0
        if as_nobody:
            os.chown(building, _NOBODY, _NOBODY)
        done = subprocess.run(
            [argument.replace(DATA, str(building / "data")) for argument in init],
            capture_output=True,
            text=True,
            cwd=building,
            user=_NOBODY if as_nobody else None,
            group=_NOBODY if as_nobody else None,
            extra_groups=[] if as_nobody else None,
        )
        if done.returncode != 0 or not (building / "data").is_dir():
            why = (done.stderr.strip() or done.stdout.strip())[-300:]
            log.warning("%s of a %s data template failed (%s); each run makes its own", init[0], kind, why)
            return None
        for root, dirs, files in os.walk(building / "data"):  # root's and read-only, readable by every sandbox uid
            for name in (root, *(os.path.join(root, f) for f in files)):
                if as_nobody:
                    os.lchown(name, 0, 0)
                os.chmod(name, 0o755 if os.path.isdir(name) else 0o644)
        try:
            os.rename(building / "data", template)
        except OSError:  # another worker made it first
            pass
        return template if template.is_dir() else None
    finally:
        shutil.rmtree(building, ignore_errors=True)


def describe(services: Iterable[Service]) -> list[str]:
    """One line per service, for a card: ``redis on 127.0.0.1:6379 (.github/workflows/ci.yml: ...)``."""
    return [f"{s.kind} on 127.0.0.1:{s.port} ({s.declared_in})" for s in services]


# make services (for make test): every server a run can start, installed where missing (tests/*/test_services.py)
if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    problems = _missing(PROGRAMS, install=True, otherwise="as root")
    for kind, problem in problems.items():
        print(f"benchsmith: {kind}: {problem}", file=sys.stderr)
    raise SystemExit(1 if problems else 0)
