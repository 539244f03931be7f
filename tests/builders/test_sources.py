"""The defects4j-command source, and agreement between both sources.

The real `defects4j` cannot be installed on these machines (its project
repositories come from a host they cannot reach), so a small stand-in on
PATH implements `defects4j checkout -p P -v <id>b|f -w DIR` from the fixture
history the way Defects4J does: fixed revision, plus the patch for `b`.
"""

import os
import stat
from pathlib import Path

from tests.builders.test_nl2fix import outcome_table, run_cli
from tests.conftest import FIXTURE_D4J

STAND_IN = """#!/usr/bin/env bash
set -euo pipefail
[ "$1" = checkout ] || { echo "unsupported: $1" >&2; exit 1; }
shift
while [ $# -gt 0 ]; do case "$1" in -p) p=$2;; -v) v=$2;; -w) w=$2;; esac; shift 2; done
id=${v%[bf]}; kind=${v: -1}
meta=__D4J__/framework/projects/$p
fixed=$(awk -F, -v id="$id" '$1 == id {print $3}' "$meta/active-bugs.csv")
[ -n "$fixed" ] || { echo "Error: unknown bug $v" >&2; exit 1; }
git clone -q __REPOS__/$p "$w"
git -C "$w" checkout -q "$fixed"
if [ "$kind" = b ]; then git -C "$w" apply "$meta/patches/$id.src.patch"; fi
echo "$v" > "$w/.defects4j.config"
"""


def test_defects4j_command_source_gives_the_same_instances(tmp_path, fixture_repos):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "defects4j"
    tool.write_text(STAND_IN.replace("__D4J__", str(FIXTURE_D4J)).replace("__REPOS__", str(fixture_repos)))
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "BENCHSMITH_CACHE": str(tmp_path / "cache")}
    via_tool = tmp_path / "tool.parquet"
    completed = run_cli("nl2fix", "build", "--defects4j", str(FIXTURE_D4J), "--projects", "Ledger",
                        "--no-scrape", "--out", str(via_tool), env=env)  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    checkouts = tmp_path / "cache" / "defects4j-checkouts" / "Ledger"
    assert {p.name for p in checkouts.iterdir()} == {f"{i}{v}" for i in range(1, 11) for v in "bf"}

    via_git = tmp_path / "git.parquet"
    completed = run_cli("nl2fix", "build", "--defects4j", str(FIXTURE_D4J), "--repos", str(fixture_repos),
                        "--projects", "Ledger", "--no-scrape", "--out", str(via_git),
                        env={"BENCHSMITH_CACHE": str(tmp_path / "cache2")})  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert outcome_table(via_tool) == outcome_table(via_git)
    assert "defects4j command" in (tmp_path / "tool.card.md").read_text()
