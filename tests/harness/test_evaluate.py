"""`benchsmith eval` and `report` end to end on the fixture."""

import dataclasses
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from benchsmith.core.journal import journal_path
from benchsmith.core.schema import NL2FixInstance, Result, read_records, to_table
from benchsmith.runners.sandbox.jail import Limits
from benchsmith.scoring.evaluate import EvalOptions, verdict_context, verdict_key
from tests.helpers.cli import eval_cli, run_cli

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox


def write_candidates(path, ledger_instances):
    one, eight = ledger_instances["Ledger-1"], ledger_instances["Ledger-8"]
    rows = [
        ("Ledger-1", "gold", one.fixed_method),
        ("Ledger-1", "gold-commented", "// the fix\n" + one.fixed_method.replace("{", "{ /* x */", 1)),
        ("Ledger-1", "buggy", one.buggy_method),
        ("Ledger-1", "prose", "Sure! Here is the fixed method."),
        ("Ledger-1", "undefined", one.fixed_method.replace("digits.length()", "digitz.length()")),
        ("Ledger-8", "gold", eight.fixed_method),
        ("Ledger-8", "buggy", eight.buggy_method),
    ]
    lines = [
        json.dumps({"instance_id": i, "candidate_id": c, "code": code, "model": "m", "strategy": "s"})
        for i, c, code in rows
    ]
    # the same code from another run: it shares the verdict but is no duplicate within its own run
    lines.append(
        json.dumps({"instance_id": "Ledger-1", "candidate_id": "other-gold", "code": one.fixed_method, "model": "o"})
    )
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory, ledger_dataset, ledger_instances, fixture_repos):
    folder = tmp_path_factory.mktemp("eval")
    candidates = write_candidates(folder / "candidates.jsonl", ledger_instances)
    out = folder / "results.parquet"
    completed = eval_cli(ledger_dataset, candidates, out, fixture_repos)
    assert completed.returncode == 0, completed.stderr
    return folder, candidates, out


def test_statuses_duplicates_and_logs(evaluated):
    _, _, out = evaluated
    results = {(r.instance_id, r.candidate_id): r for r in read_records(out, Result)}
    assert {key: r.status for key, r in results.items()} == {
        ("Ledger-1", "gold"): "plausible",
        ("Ledger-1", "gold-commented"): "plausible",
        ("Ledger-1", "buggy"): "wrong",
        ("Ledger-1", "prose"): "uncompilable",
        ("Ledger-1", "undefined"): "uncompilable",
        ("Ledger-8", "gold"): "plausible",
        ("Ledger-8", "buggy"): "wrong",
        ("Ledger-1", "other-gold"): "plausible",
    }
    assert results[("Ledger-1", "other-gold")].duplicate_of == ""
    assert results[("Ledger-1", "other-gold")].seconds == 0.0  # not executed again
    assert results[("Ledger-1", "gold-commented")].duplicate_of == "gold"
    assert results[("Ledger-1", "gold")].duplicate_of == ""
    assert "cannot find symbol" in results[("Ledger-1", "undefined")].reason
    assert results[("Ledger-1", "buggy")].failing_tests == [
        "org.benchsmith.ledger.Bug1Test::padsNegativeNumberToExactWidth"
    ]
    assert results[("Ledger-1", "gold")].tests_passed > 10
    with open(results[("Ledger-1", "buggy")].log_path) as handle:
        assert "ComparisonFailure" in handle.read()
    assert not journal_path(out).exists()


def test_a_second_run_judges_nothing_again(evaluated, ledger_dataset, fixture_repos):
    _, candidates, out = evaluated
    before = pq.read_table(out)
    completed = eval_cli(ledger_dataset, candidates, out, fixture_repos)
    assert completed.returncode == 0
    assert "8 already judged, 0 to judge" in completed.stderr
    assert "discarded" not in completed.stderr
    assert pq.read_table(out).equals(before)


def test_resume_from_a_journal_cut_short(evaluated, ledger_dataset, fixture_repos, tmp_path):
    _, candidates, out = evaluated
    results = read_records(out, Result)
    resumed = tmp_path / "results.parquet"
    lines = [json.dumps(r.__dict__) for r in results[:4]]
    journal_path(resumed).write_text("\n".join(lines[:3]) + "\n" + lines[3][:40])  # killed mid-write
    completed = eval_cli(ledger_dataset, candidates, resumed, fixture_repos)
    assert completed.returncode == 0, completed.stderr
    assert "3 already judged, 5 to judge" in completed.stderr
    assert [(r.candidate_id, r.status) for r in read_records(resumed, Result)] == [
        (r.candidate_id, r.status) for r in results
    ]


def by_pair(out) -> dict[tuple[str, str], Result]:
    return {(r.instance_id, r.candidate_id): r for r in read_records(out, Result)}


def test_verdict_keys_follow_the_code(evaluated):
    _, _, out = evaluated
    results = by_pair(out)
    assert all(len(r.verdict_key) == 64 for r in results.values())
    # the same code for the same instance is the same question; other code, or another instance, is another
    assert results[("Ledger-1", "gold")].verdict_key == results[("Ledger-1", "other-gold")].verdict_key
    assert results[("Ledger-1", "gold")].verdict_key != results[("Ledger-1", "gold-commented")].verdict_key
    assert len({r.verdict_key for r in results.values()}) == 7


def test_changed_code_under_the_same_id_is_judged_again(
    evaluated, ledger_dataset, ledger_instances, fixture_repos, tmp_path
):
    _, candidates, out = evaluated
    resumed = tmp_path / "results.parquet"
    shutil.copy(out, resumed)
    before = by_pair(out)
    gold = ledger_instances["Ledger-1"].fixed_method
    rows = [json.loads(line) for line in candidates.read_text().splitlines()]
    buggy = next(r for r in rows if (r["instance_id"], r["candidate_id"]) == ("Ledger-1", "buggy"))
    # "buggy" now holds the fix, and comes first: it is the twin of every later copy of the fix, among them a new one
    buggy["code"] = "// fixed now\n" + gold
    rows.remove(buggy)
    late = {
        "instance_id": "Ledger-1",
        "candidate_id": "late-gold",
        "code": gold + "\n// again",
        "model": "m",
        "strategy": "s",
    }
    changed = tmp_path / "candidates.jsonl"
    changed.write_text("".join(json.dumps(r) + "\n" for r in [buggy, *rows, late]))
    completed = eval_cli(ledger_dataset, changed, resumed, fixture_repos)
    assert completed.returncode == 0, completed.stderr
    assert "1 stored verdicts discarded" in completed.stderr
    assert "9 candidates: 7 already judged, 2 to judge" in completed.stderr
    after = by_pair(resumed)
    assert after[("Ledger-1", "buggy")].status == "plausible"  # was "wrong": judged again, not reused
    assert after[("Ledger-1", "buggy")].seconds > 0 and after[("Ledger-1", "buggy")].duplicate_of == ""
    assert after[("Ledger-1", "buggy")].verdict_key != before[("Ledger-1", "buggy")].verdict_key
    # the new copy shares the verdict its twin got now, not the twin's stored one
    assert (after[("Ledger-1", "late-gold")].status, after[("Ledger-1", "late-gold")].duplicate_of) == (
        "plausible",
        "buggy",
    )
    unchanged = [pair for pair in before if pair != ("Ledger-1", "buggy")]
    assert [after[pair] for pair in unchanged] == [before[pair] for pair in unchanged]  # reused as stored


def test_a_changed_dataset_row_is_judged_again(evaluated, ledger_dataset, fixture_repos, tmp_path):
    _, candidates, out = evaluated
    instances = read_records(ledger_dataset, NL2FixInstance)
    edited = [
        dataclasses.replace(i, issue_title=i.issue_title + " (edited)") if i.instance_id == "Ledger-8" else i
        for i in instances
    ]
    dataset = tmp_path / "nl2fix.parquet"
    pq.write_table(to_table(edited, NL2FixInstance), dataset)
    resumed = tmp_path / "results.parquet"
    shutil.copy(out, resumed)
    completed = eval_cli(dataset, candidates, resumed, fixture_repos)
    assert completed.returncode == 0, completed.stderr
    assert "2 stored verdicts discarded" in completed.stderr
    assert "8 candidates: 6 already judged, 2 to judge" in completed.stderr
    before, after = by_pair(out), by_pair(resumed)
    for pair in before:
        if pair[0] == "Ledger-8":
            assert after[pair].status == before[pair].status and after[pair].verdict_key != before[pair].verdict_key
            assert after[pair].seconds > 0  # run again
        else:
            assert after[pair] == before[pair]


def test_results_written_before_verdict_keys_are_judged_again(evaluated, ledger_dataset, fixture_repos, tmp_path):
    _, candidates, out = evaluated
    legacy = tmp_path / "results.parquet"  # as the first wave wrote them: no stamp, no verdict key, no project
    pq.write_table(pq.read_table(out).drop_columns(["verdict_key", "project"]).replace_schema_metadata(None), legacy)
    eight = tmp_path / "candidates.jsonl"
    eight.write_text("".join(line + "\n" for line in candidates.read_text().splitlines() if '"Ledger-8"' in line))
    completed = eval_cli(ledger_dataset, eight, legacy, fixture_repos)
    assert completed.returncode == 0, completed.stderr
    assert "2 stored verdicts discarded" in completed.stderr
    assert "2 candidates: 0 already judged, 2 to judge" in completed.stderr
    assert [(r.candidate_id, r.status, len(r.verdict_key)) for r in read_records(legacy, Result)] == [
        ("gold", "plausible", 64),
        ("buggy", "wrong", 64),
    ]


def test_verdict_key_covers_the_row_the_harness_and_the_options(ledger_instances):
    instance = ledger_instances["Ledger-1"]
    options = EvalOptions(dataset=Path("d"), candidates=Path("c"), out=Path("o"))
    base = verdict_key(verdict_context(instance, options, "h"), "int f() {}")
    others = [
        verdict_key(verdict_context(instance, options, "h"), "int f() { }"),
        verdict_key(verdict_context(dataclasses.replace(instance, trigger_tests=[]), options, "h"), "int f() {}"),
        verdict_key(verdict_context(instance, options, "h2"), "int f() {}"),
        verdict_key(verdict_context(instance, dataclasses.replace(options, regression=True), "h"), "int f() {}"),
        verdict_key(verdict_context(instance, dataclasses.replace(options, fast=False), "h"), "int f() {}"),
        verdict_key(
            verdict_context(instance, dataclasses.replace(options, limits=Limits(wall_seconds=5)), "h"), "int f() {}"
        ),
    ]
    assert base not in others and len(set(others)) == len(others)
    # where the files are, and how many workers judge, change no verdict
    moved = dataclasses.replace(options, out=Path("elsewhere"), workers=8)
    assert verdict_key(verdict_context(instance, moved, "h"), "int f() {}") == base


def test_bad_candidates_files(ledger_dataset, fixture_repos, tmp_path):
    out = tmp_path / "r.parquet"
    cases = {
        "unknown instance": (
            '{"instance_id": "Nope-1", "candidate_id": "a", "code": "x"}\n',
            "unknown instance 'Nope-1'",
        ),
        "not json": ('{"instance_id": \n', ":1: not JSON"),
        "missing code": ('{"instance_id": "Ledger-1", "candidate_id": "a"}\n', ":1: missing or non-string code"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / f"{name.replace(' ', '-')}.jsonl"
        path.write_text(text)
        completed = eval_cli(ledger_dataset, path, out, fixture_repos)
        assert completed.returncode == 2, name
        assert message in completed.stderr and "Traceback" not in completed.stderr, (name, completed.stderr)
        assert not out.exists()


def test_report_table_json_and_plots(evaluated):
    folder, _, out = evaluated
    completed = run_cli("report", "--results", str(out), "--k", "1,2", "--json", "--plots", str(folder / "plots"))
    assert completed.returncode == 0, completed.stderr
    summary = json.loads(completed.stdout)["m / s"]
    # Ledger-1: 5 samples, 2 plausible -> pass@1 0.4; Ledger-8: 2 samples, 1 plausible -> 0.5
    assert summary["pass@k"]["pass@1"]["value"] == pytest.approx((0.4 + 0.5) / 2)
    assert summary["pass@k"]["pass@2"]["value"] == pytest.approx(((1 - 3 / 10) + 1.0) / 2)
    assert summary["solved"] == ["Ledger-1", "Ledger-8"]
    for name in ("pass_at_k.png", "solved_overlap.png"):
        assert (folder / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = run_cli("report", "--results", str(out), "--k", "1,2").stdout
    assert "| Ledger | 2 | 2 | 45.00% | 85.00% |" in table
