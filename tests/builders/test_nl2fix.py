"""The NL2Fix builder end to end on the bundled Ledger fixture (real git history, real patches)."""

import json
import os
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_D4J
from tests.helpers.cli import build_ledger, outcome_table, run_cli

GOLDEN = Path(__file__).parent.parent / "golden" / "nl2fix" / "Ledger.json"


@pytest.fixture(scope="module")
def built(tmp_path_factory, fixture_repos):
    out = tmp_path_factory.mktemp("out") / "nl2fix.parquet"
    completed = build_ledger(out, fixture_repos)
    assert completed.returncode == 0, completed.stderr
    return out


def test_every_fixture_bug_matches_its_golden_verdict_and_extraction(built):
    table = outcome_table(built)
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(table, indent=2) + "\n")
    assert table == json.loads(GOLDEN.read_text())


STRICT_VERDICTS = {
    "Ledger-1": "selected",
    "Ledger-2": "selected",
    "Ledger-3": "selected",
    "Ledger-4": "multi-method",
    "Ledger-5": "multi-file",
    "Ledger-6": "outside any method",
    "Ledger-7": "method added or removed",
    "Ledger-8": "selected",
    "Ledger-9": "selected",
    "Ledger-10": "selected",
}


def test_the_default_lenient_rule_keeps_the_fix_that_adds_a_helper(built):
    table = outcome_table(built)
    assert {bug: row["verdict"] for bug, row in table.items()} == {**STRICT_VERDICTS, "Ledger-7": "selected"}
    assert table["Ledger-7"]["method_signature"] == "Ledger.balance(String)"
    (extra,) = table["Ledger-7"]["extra_changes"]
    assert extra["kind"] == "method added" and extra["name"] == "Ledger.sameAccount(String, String)"
    assert extra["buggy_lines"] == [] and len(extra["fixed_lines"]) >= 3  # the helper's lines in the fixed file
    assert all(row["extra_changes"] == [] for bug, row in table.items() if bug != "Ledger-7" and "extra_changes" in row)


def test_the_strict_rule_keeps_only_fixes_inside_one_method(tmp_path, fixture_repos, built):
    out = tmp_path / "strict.parquet"
    completed = build_ledger(out, fixture_repos, "--selection", "strict")
    assert completed.returncode == 0, completed.stderr
    assert {bug: row["verdict"] for bug, row in outcome_table(out).items()} == STRICT_VERDICTS
    card = json.loads(out.with_suffix(".card.json").read_text())
    assert card["selection"] == "strict" and card["near_misses"] == 0 and card["near_miss_bugs"] == []
    assert "`strict` rule" in out.with_suffix(".card.md").read_text()
    lenient = {k: v for k, v in outcome_table(built).items() if k != "Ledger-7"}
    assert {k: v for k, v in outcome_table(out).items() if k != "Ledger-7"} == lenient  # the rest is the same


def test_card_counts_projects_and_reasons(built):
    card = json.loads(built.with_suffix(".card.json").read_text())
    assert card["projects"] == {
        "Ledger": {
            "bugs": 10,
            "selected": 7,
            "near_misses": 1,
            "rejected": {"multi-method": 1, "multi-file": 1, "outside any method": 1},
        }
    }
    assert card["selection"] == "lenient" and card["bug_list"] is None
    assert card["near_miss_bugs"] == [
        {
            "bug": "Ledger-7",
            "strict_reason": "method added or removed",
            "extra_changes": outcome_table(built)["Ledger-7"]["extra_changes"],
        }
    ]
    assert card["issue_text"] == {"requested": False}
    assert card["tool"].startswith("benchsmith ")
    markdown = built.with_suffix(".card.md").read_text()
    assert "| Ledger | 10 | 7 | 1 |" in markdown and "`lenient` rule" in markdown
    assert "| Ledger-7 | method added or removed | method added Ledger.sameAccount(String, String) |" in markdown


def test_a_bug_list_builds_exactly_its_bugs_and_reports_the_rejected(tmp_path, fixture_repos):
    bugs = tmp_path / "bugs.txt"
    bugs.write_text("# a published list\nLedger-7\n\nLedger-4  # two methods\nLedger-7\n")
    for selection, selected in (("lenient", ["Ledger-7"]), ("strict", [])):
        out = tmp_path / f"{selection}.parquet"
        completed = run_cli(
            "nl2fix",
            "build",
            "--defects4j",
            str(FIXTURE_D4J),
            "--repos",
            str(fixture_repos),
            "--bugs",
            str(bugs),
            "--selection",
            selection,
            "--no-scrape",
            "--out",
            str(out),
        )
        assert completed.returncode == 0, completed.stderr
        table = outcome_table(out)
        assert list(table) == ["Ledger-4", "Ledger-7"]
        assert [bug for bug, row in table.items() if row["verdict"] == "selected"] == selected
        assert "rejected Ledger-4: multi-method (" in completed.stdout
        assert ("rejected Ledger-7: method added or removed" in completed.stdout) == (selection == "strict")
        card = json.loads(out.with_suffix(".card.json").read_text())
        assert card["bugs"] == 2 and card["bug_list"] == str(bugs)
        assert "listed twice" in completed.stderr


@pytest.mark.parametrize(
    "content, message",
    [
        ("Ledger-7\nLedger 8\n", ":2: 'Ledger 8' is not a bug id like Cli-5"),
        ("Ledger-99\n", ":1: Ledger-99 is not an active bug of Ledger"),
        ("Nope-1\n", ":1: unknown project Nope"),
        ("# nothing\n", ": the bug list names no bug"),
    ],
)
def test_a_bad_bug_list_is_an_error_naming_the_line(tmp_path, fixture_repos, content, message):
    bugs = tmp_path / "bugs.txt"
    bugs.write_text(content)
    completed = run_cli(
        "nl2fix",
        "build",
        "--defects4j",
        str(FIXTURE_D4J),
        "--repos",
        str(fixture_repos),
        "--bugs",
        str(bugs),
        "--no-scrape",
        "--out",
        str(tmp_path / "x.parquet"),
    )
    assert completed.returncode == 2
    assert f"{bugs}{message}" in completed.stderr
    assert not (tmp_path / "x.parquet").exists()


def test_a_bug_list_and_projects_do_not_mix(tmp_path, fixture_repos):
    bugs = tmp_path / "bugs.txt"
    bugs.write_text("Ledger-1\n")
    completed = build_ledger(tmp_path / "x.parquet", fixture_repos, "--bugs", str(bugs))
    assert completed.returncode == 2 and "leave out --projects" in completed.stderr


def test_one_cached_analysis_serves_both_rules(tmp_path, fixture_repos, built):
    cache = {"BENCHSMITH_CACHE": str(tmp_path / "cache")}
    assert build_ledger(tmp_path / "a.parquet", fixture_repos, env=cache).returncode == 0
    strict = build_ledger(tmp_path / "b.parquet", fixture_repos, "--selection", "strict", env=cache)
    assert "10 cached, 0 to analyse" in strict.stderr
    assert outcome_table(tmp_path / "b.parquet")["Ledger-7"]["verdict"] == "method added or removed"


def test_a_rebuild_resumes_from_cached_outcomes(tmp_path, fixture_repos, built):
    cache = tmp_path / "cache"
    first = build_ledger(tmp_path / "a.parquet", fixture_repos, env={"BENCHSMITH_CACHE": str(cache)})
    assert "10 to analyse" in first.stderr
    entries = sorted((cache / "nl2fix" / "Ledger").iterdir())
    assert len(entries) == 10
    for entry in entries[:4]:  # as if the first run had been killed after six bugs
        entry.unlink()
    second = build_ledger(tmp_path / "b.parquet", fixture_repos, env={"BENCHSMITH_CACHE": str(cache)})
    assert "6 cached, 4 to analyse" in second.stderr
    assert outcome_table(tmp_path / "b.parquet") == outcome_table(built)


def test_a_corrupt_cache_entry_is_an_error_not_a_silent_miss(tmp_path, fixture_repos):
    cache = tmp_path / "cache"
    assert build_ledger(tmp_path / "a.parquet", fixture_repos, env={"BENCHSMITH_CACHE": str(cache)}).returncode == 0
    entry = sorted((cache / "nl2fix" / "Ledger").iterdir())[0]
    entry.write_text("{not json")
    completed = build_ledger(tmp_path / "b.parquet", fixture_repos, env={"BENCHSMITH_CACHE": str(cache)})
    assert completed.returncode == 2
    assert f"{entry}: corrupt cache entry" in completed.stderr
    assert not (tmp_path / "b.parquet").exists()


def test_each_instance_carries_its_fix_date_and_the_card_states_the_range(built, fixture_repos):
    """Defects4J records no dates: the fixed revision's committer date comes from the repository at hand."""
    import subprocess

    from benchsmith.core.schema import NL2FixInstance, read_records
    from benchsmith.sources.history import locate_upstream

    git_dir = locate_upstream("Ledger", fixture_repos)
    instances = read_records(built, NL2FixInstance)
    for instance in instances:
        expected = subprocess.run(
            ["git", "--git-dir", str(git_dir), "log", "-1", "--format=%cI", instance.revision_fixed],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert instance.fix_date == expected and expected[:2] == "20", instance.instance_id
    dates = sorted(i.fix_date for i in instances)
    card = json.loads(built.with_suffix(".card.json").read_text())
    assert card["fix_dates"] == {"first": dates[0], "last": dates[-1], "dated": len(instances), "undated": 0}
    assert f"between {dates[0]} and {dates[-1]}." in built.with_suffix(".card.md").read_text()
