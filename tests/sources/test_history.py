"""The defects4j-command source, and agreement between both sources.

The real `defects4j` cannot be installed on these machines (its project
repositories come from a host they cannot reach), so a small stand-in on
PATH implements `checkout -p P -v <id>b|f -w DIR` from the fixture history
the way Defects4J does (fixed revision, plus the patch for `b`), `compile`
with javac, and `export -p` of the directory and class-path properties.
"""

import os
import stat
from pathlib import Path

from tests.builders.test_nl2fix import outcome_table, run_cli
from tests.conftest import FIXTURE_D4J

STAND_IN = """#!/usr/bin/env bash
set -euo pipefail
cmd=$1; shift
while [ $# -gt 0 ]; do case "$1" in -p) p=$2;; -v) v=$2;; -w) w=$2;; esac; shift 2; done
junit=/usr/share/java/junit4.jar:/usr/share/java/hamcrest.jar
case "$cmd" in
  compile)
    mkdir -p "$w/target/classes" "$w/target/test-classes"
    javac -nowarn -d "$w/target/classes" $(find "$w/src/main/java" -name '*.java')
    javac -nowarn -cp "$w/target/classes:$junit" -d "$w/target/test-classes" $(find "$w/src/test/java" -name '*.java')
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


def test_defects4j_command_source_gives_the_same_instances(tmp_path, fixture_repos):
    env = {**install_stand_in(tmp_path, fixture_repos), "BENCHSMITH_CACHE": str(tmp_path / "cache")}
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
