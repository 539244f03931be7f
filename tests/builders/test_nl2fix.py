"""The NL2Fix builder end to end on the bundled Ledger fixture (real git history, real patches)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchsmith.schema import NL2FixInstance, read_records
from tests.conftest import FIXTURE_D4J

GOLDEN = Path(__file__).parent.parent / "golden" / "nl2fix" / "Ledger.json"
EXTRACTED = (
    "file_path", "method_name", "method_signature", "method_start_line", "method_end_line",
    "fixed_method_start_line", "fixed_method_end_line", "hunks",
    "buggy_method", "buggy_method_no_comments", "fixed_method", "trigger_tests", "relevant_tests",
    "report_id", "report_url", "revision_buggy", "revision_fixed",
)  # fmt: skip


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "benchsmith.cli", *args],
        capture_output=True, text=True, env={**os.environ, **(env or {})}, cwd=Path(__file__).parents[2],
    )  # fmt: skip


def build(out: Path, repos: Path, *extra: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_cli("nl2fix", "build", "--defects4j", str(FIXTURE_D4J), "--repos", str(repos),
                   "--projects", "Ledger", "--no-scrape", "--out", str(out), *extra, env=env)  # fmt: skip


def outcome_table(out: Path) -> dict:
    card = json.loads(out.with_suffix(".card.json").read_text())
    table = {r["bug"]: {"verdict": r["reason"], "detail": r["detail"]} for r in card["rejections"]}
    for instance in read_records(out, NL2FixInstance):
        table[instance.instance_id] = {"verdict": "selected", **{k: getattr(instance, k) for k in EXTRACTED}}
    return dict(sorted(table.items(), key=lambda item: int(item[0].split("-")[1])))


@pytest.fixture(scope="module")
def built(tmp_path_factory, fixture_repos):
    out = tmp_path_factory.mktemp("out") / "nl2fix.parquet"
    completed = build(out, fixture_repos)
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
    first = build(tmp_path / "a.parquet", fixture_repos, env={"BENCHSMITH_CACHE": str(cache)})
    assert "10 to analyse" in first.stderr
    entries = sorted((cache / "nl2fix" / "Ledger").iterdir())
    assert len(entries) == 10
    for entry in entries[:4]:  # as if the first run had been killed after six bugs
        entry.unlink()
    second = build(tmp_path / "b.parquet", fixture_repos, env={"BENCHSMITH_CACHE": str(cache)})
    assert "6 cached, 4 to analyse" in second.stderr
    assert outcome_table(tmp_path / "b.parquet") == outcome_table(built)


def test_a_corrupt_cache_entry_is_an_error_not_a_silent_miss(tmp_path, fixture_repos):
    cache = tmp_path / "cache"
    assert build(tmp_path / "a.parquet", fixture_repos, env={"BENCHSMITH_CACHE": str(cache)}).returncode == 0
    entry = sorted((cache / "nl2fix" / "Ledger").iterdir())[0]
    entry.write_text("{not json")
    completed = build(tmp_path / "b.parquet", fixture_repos, env={"BENCHSMITH_CACHE": str(cache)})
    assert completed.returncode == 2
    assert f"{entry}: corrupt cache entry" in completed.stderr
    assert not (tmp_path / "b.parquet").exists()
