"""Reference candidates, and their replay through `generate`: the offline path `make dataset` takes."""

import json

from benchsmith.cli import main
from benchsmith.core.schema import read_candidates
from benchsmith.generation.mutants import mutants


def test_reference_candidates_are_gold_buggy_and_gold_mutants(ledger_dataset, ledger_instances, tmp_path, capsys):
    out = tmp_path / "reference.jsonl"
    assert main(["candidates", "reference", "--dataset", str(ledger_dataset), "--mutants", "3", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    one = [r for r in rows if r["instance_id"] == "Ledger-1"]
    instance = ledger_instances["Ledger-1"]
    assert [r["candidate_id"] for r in one][:2] == ["gold", "buggy"]
    assert one[0]["code"] == instance.fixed_method and one[1]["code"] == instance.buggy_method_no_comments
    assert [r["code"] for r in one[2:]] == mutants(instance.fixed_method, 3)
    assert all(r["model"] == "reference" and "strategy" not in r for r in rows)
    assert {r["instance_id"] for r in rows} == set(ledger_instances)


def test_replayed_reference_candidates_come_back_unchanged_from_generate(ledger_dataset, ledger_instances, tmp_path):
    reference = tmp_path / "reference.jsonl"
    assert (
        main(["candidates", "reference", "--dataset", str(ledger_dataset), "--mutants", "2", "--out", str(reference)])
        == 0
    )
    out = tmp_path / "candidates.jsonl"
    assert (
        main(
            [
                "generate",
                "--dataset",
                str(ledger_dataset),
                "--strategy",
                "zero-shot",
                "--backend",
                "replay",
                "--replay",
                str(reference),
                "--n",
                "4",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    recorded = {}
    for row in read_candidates(reference):
        recorded.setdefault(row.instance_id, []).append(row.code)
    generated = read_candidates(out)
    assert {c.instance_id for c in generated} == set(ledger_instances)
    for instance_id, codes in recorded.items():
        mine = [c for c in generated if c.instance_id == instance_id]
        # extraction finds each recorded method and keeps it as it is; n=4 caps the answers at four
        assert [c.code.strip() for c in mine] == [code.strip() for code in codes[:4]]
        assert [c.candidate_id for c in mine] == [f"zero-shot-{s}" for s in range(len(mine))]
        assert {(c.model, c.strategy) for c in mine} == {("reference", "zero-shot")}
