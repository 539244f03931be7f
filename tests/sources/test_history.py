"""The defects4j-command source, and agreement between both sources.

The real `defects4j` cannot be installed on these machines (its project
repositories come from a host they cannot reach), so a small stand-in on
PATH implements `checkout -p P -v <id>b|f -w DIR` from the fixture history
the way Defects4J does (fixed revision, plus the patch for `b`), `compile`
with javac, and `export -p` of the directory and class-path properties.
"""

from tests.conftest import FIXTURE_D4J
from tests.helpers.cli import install_stand_in, outcome_table, run_cli


def test_defects4j_command_source_gives_the_same_instances(tmp_path, fixture_repos):
    env = {**install_stand_in(tmp_path, fixture_repos), "BENCHSMITH_CACHE": str(tmp_path / "cache")}
    via_tool = tmp_path / "tool.parquet"
    completed = run_cli(
        "nl2fix",
        "build",
        "--defects4j",
        str(FIXTURE_D4J),
        "--projects",
        "Ledger",
        "--no-scrape",
        "--out",
        str(via_tool),
        env=env,
    )
    assert completed.returncode == 0, completed.stderr
    checkouts = tmp_path / "cache" / "defects4j-checkouts" / "Ledger"
    assert {p.name for p in checkouts.iterdir()} == {f"{i}{v}" for i in range(1, 11) for v in "bf"}

    via_git = tmp_path / "git.parquet"
    completed = run_cli(
        "nl2fix",
        "build",
        "--defects4j",
        str(FIXTURE_D4J),
        "--repos",
        str(fixture_repos),
        "--projects",
        "Ledger",
        "--no-scrape",
        "--out",
        str(via_git),
        env={"BENCHSMITH_CACHE": str(tmp_path / "cache2")},
    )
    assert completed.returncode == 0, completed.stderr
    assert outcome_table(via_tool) == outcome_table(via_git)
    assert "defects4j command" in (tmp_path / "tool.card.md").read_text()
