"""The NL2Fix builder end to end on the bundled Ledger fixture (real git history, real patches)."""

import json
import os
from pathlib import Path

import pytest

from tests.helpers.cli import build_ledger, outcome_table

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


def test_verdicts_cover_every_case_of_the_issue(built):
    verdicts = {bug: row["verdict"] for bug, row in outcome_table(built).items()}
    assert verdicts == {
        "Ledger-1": "selected", "Ledger-2": "selected", "Ledger-3": "selected",
        "Ledger-4": "multi-method", "Ledger-5": "multi-file", "Ledger-6": "outside any method",
        "Ledger-7": "method added or removed", "Ledger-8": "selected", "Ledger-9": "selected",
        "Ledger-10": "selected",
    }  # fmt: skip


def test_card_counts_projects_and_reasons(built):
    card = json.loads(built.with_suffix(".card.json").read_text())
    assert card["projects"] == {
        "Ledger": {"bugs": 10, "selected": 6, "rejected": {
            "multi-method": 1, "multi-file": 1, "outside any method": 1, "method added or removed": 1}}
    }  # fmt: skip
    assert card["issue_text"] == {"requested": False}
    assert card["tool"].startswith("benchsmith ")
    assert "| Ledger | 10 | 6 |" in built.with_suffix(".card.md").read_text()


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
