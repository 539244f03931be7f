"""The ``benchsmith`` command in a process of its own, and the runs of it that several test modules share."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchsmith.core.schema import NL2FixInstance, read_records
from tests.conftest import FIXTURE_D4J, ROOT

EXTRACTED = (
    "file_path",
    "method_name",
    "method_signature",
    "method_start_line",
    "method_end_line",
    "fixed_method_start_line",
    "fixed_method_end_line",
    "hunks",
    "buggy_method",
    "buggy_method_no_comments",
    "fixed_method",
    "trigger_tests",
    "relevant_tests",
    "report_id",
    "report_url",
    "revision_buggy",
    "revision_fixed",
)


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "benchsmith.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=ROOT,
    )


def build_ledger(out: Path, repos: Path, *extra: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_cli(
        "nl2fix",
        "build",
        "--defects4j",
        str(FIXTURE_D4J),
        "--repos",
        str(repos),
        "--projects",
        "Ledger",
        "--no-scrape",
        "--out",
        str(out),
        *extra,
        env=env,
    )


def outcome_table(out: Path) -> dict:
    card = json.loads(out.with_suffix(".card.json").read_text())
    table = {r["bug"]: {"verdict": r["reason"], "detail": r["detail"]} for r in card["rejections"]}
    for instance in read_records(out, NL2FixInstance):
        table[instance.instance_id] = {
            "verdict": "selected",
            **{k: getattr(instance, k) for k in EXTRACTED},
            "extra_changes": [dataclasses.asdict(e) for e in instance.extra_changes],
        }
    return dict(sorted(table.items(), key=lambda item: int(item[0].split("-")[1])))


def eval_cli(dataset, candidates, out, repos, *extra):
    return run_cli(
        "eval",
        "--dataset",
        str(dataset),
        "--candidates",
        str(candidates),
        "--defects4j",
        str(FIXTURE_D4J),
        "--repos",
        str(repos),
        "--out",
        str(out),
        "--timeout",
        "30",
        *extra,
    )


# A stand-in for the `defects4j` command (the real one needs hosts these machines cannot reach):
# `checkout`, `compile` and `export` from the fixture history, as tests/sources/test_history.py explains.
STAND_IN = """#!/usr/bin/env bash
set -euo pipefail
cmd=$1; shift
while [ $# -gt 0 ]; do case "$1" in -p) p=$2;; -v) v=$2;; -w) w=$2;; esac; shift 2; done
junit=/usr/share/java/junit4.jar:/usr/share/java/hamcrest.jar
case "$cmd" in
  compile)
    mkdir -p "$w/target/classes" "$w/target/test-classes"
    javac -nowarn --release 8 -d "$w/target/classes" $(find "$w/src/main/java" -name '*.java')
    javac -nowarn --release 8 -cp "$w/target/classes:$junit" -d "$w/target/test-classes" $(find "$w/src/test/java" -name '*.java')
    exit 0;;
  export)
    case "$p" in
      dir.src.classes) printf src/main/java;; dir.src.tests) printf src/test/java;;
      dir.bin.classes) printf target/classes;; dir.bin.tests) printf target/test-classes;;
      cp.test) printf "%s" "$w/target/classes:$w/target/test-classes:$junit";;
      *) echo "unknown property $p" >&2; exit 1;;
    esac
    exit 0;;
  checkout) ;;
  *) echo "unsupported: $cmd" >&2; exit 1;;
esac
id=${v%[bf]}; kind=${v: -1}
meta=__D4J__/framework/projects/$p
fixed=$(awk -F, -v id="$id" '$1 == id {print $3}' "$meta/active-bugs.csv")
[ -n "$fixed" ] || { echo "Error: unknown bug $v" >&2; exit 1; }
git clone -q __REPOS__/$p "$w"
git -C "$w" checkout -q "$fixed"
if [ "$kind" = b ]; then git -C "$w" apply "$meta/patches/$id.src.patch"; fi
echo "$v" > "$w/.defects4j.config"
"""


def install_stand_in(folder: Path, fixture_repos: Path) -> dict:
    """Put the stand-in `defects4j` on PATH; the environment to run under."""
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "defects4j"
    tool.write_text(STAND_IN.replace("__D4J__", str(FIXTURE_D4J)).replace("__REPOS__", str(fixture_repos)))
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC | stat.S_IXOTH | stat.S_IROTH)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


@contextmanager
def reaped(harness: subprocess.Popen) -> Iterator[subprocess.Popen]:
    """*harness*, killed and waited for on the way out if the test did not see it end (a failed wait, a timeout)."""
    try:
        yield harness
    finally:
        if harness.poll() is None:
            harness.kill()
            harness.communicate()
