"""A run's PostgreSQL or MariaDB started from the harness's data template against one that makes its own, side by side.

    python bench/service_start.py [--kind postgresql|mysql] [--runs 5]

Each round runs the same client (a query through psql, or the mariadb client) in a fresh sandboxed run with the
server started inside it, once copying the template (benchsmith.runners.sandbox.services.data_template) and once
making its data folder itself (initdb, mariadb-install-db), in alternation; it prints each way's median seconds per
run and their ratio. Needs root and Debian's postgresql (with libnss-wrapper) or mariadb-server.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchsmith.core.schema import Service  # noqa: E402
from benchsmith.runners.python.pytest_run import run_reporting  # noqa: E402
from benchsmith.runners.sandbox import jail as sandbox  # noqa: E402
from benchsmith.runners.sandbox import services  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=("postgresql", "mysql"), default="postgresql")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    found = services.programs(args.kind)
    if found is None:
        sys.exit(f"needs Debian's {' '.join(services.PROGRAMS[args.kind][0])}")
    python = "/usr/bin/python3"
    if args.kind == "postgresql":
        psql = shutil.which("psql") or str(Path(found["server"]).with_name("psql"))
        query = [psql, "-h", "127.0.0.1", "-p", "5433", "-U", "app", "-d", "appdb", "-tAc", "select 41 + 1"]
    else:
        mariadb = shutil.which("mariadb") or shutil.which("mysql") or "mariadb"
        query = [
            mariadb,
            "-h",
            "127.0.0.1",
            "-P",
            "5433",
            "-u",
            "app",
            "-psecret",
            "appdb",
            "-N",
            "-e",
            "select 41 + 1",
        ]
    client = [python, "-c", f"import subprocess; subprocess.run({query!r}, check=True)"]
    wanted = (Service(args.kind, 5433, "bench", user="app", password="secret", database="appdb"),)
    made = services.data_template
    ways = {"template": made, "own": lambda kind, init: None}
    seconds: dict[str, list[float]] = {name: [] for name in ways}
    work = Path(tempfile.mkdtemp(prefix="service-start-"))
    work.chmod(0o755)
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    try:
        for round_ in range(args.runs):
            for name, template in ways.items():
                services.data_template = template
                folder = work / f"{name}-{round_}"
                folder.mkdir(mode=0o777)
                folder.chmod(0o777)
                started = time.monotonic()
                with sandbox.leased_slot() as slot:
                    outcome, _ = run_reporting(
                        client,
                        folder,
                        slot,
                        sandbox.Limits(wall_seconds=120),
                        folder / "log.txt",
                        {},
                        started_services=wanted,
                    )
                took = time.monotonic() - started
                log = (folder / "log.txt").read_text(errors="replace")
                if outcome.returncode != 0 or "42" not in log:
                    sys.exit(f"{name} run {round_} failed: {log[-500:]}")
                seconds[name].append(took)
                print(f"{name:9} run {round_}: {took:.2f} s")
    finally:
        services.data_template = made
        shutil.rmtree(work, ignore_errors=True)
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    print(
        f"median seconds per run: template {medians['template']:.2f}, its own {medians['own']:.2f}; "
        f"template/own {medians['template'] / medians['own']:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
