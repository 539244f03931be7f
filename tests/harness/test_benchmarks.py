"""The benchmark registry: datasets recognised by their stamp, and a new benchmark that is one module."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchsmith import benchmarks
from benchsmith.benchmarks import benchmark_of
from benchsmith.cli import main
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import Result, read_records, read_stamp, to_table
from tests.helpers.toy_benchmark import ARITHMETIC, ArithmeticTask

TASKS = [
    ArithmeticTask("add-1", "addition", "2 + 3?", 5),
    ArithmeticTask("add-2", "addition", "40 + 2?", 42),
    ArithmeticTask("mul-1", "multiplication", "6 * 7?", 42),
]


@pytest.fixture
def toy_dataset(tmp_path):
    path = tmp_path / "arithmetic.parquet"
    pq.write_table(to_table(TASKS, ArithmeticTask, benchmark=ARITHMETIC.name), path)
    return path


def test_a_toy_benchmark_runs_through_eval_and_report_unchanged(toy_dataset, tmp_path, capsys):
    candidates = tmp_path / "candidates.jsonl"
    rows = [
        ("add-1", "a", "2+3"),
        ("add-1", "b", "2 + 3"),
        ("add-1", "c", "2 - 3"),
        ("add-2", "a", "40 +"),
        ("add-2", "b", "42"),
        ("mul-1", "a", "6 * 6"),
        ("mul-1", "b", "1/0"),
    ]
    candidates.write_text(
        "".join(json.dumps({"instance_id": i, "candidate_id": c, "code": code}) + "\n" for i, c, code in rows)
    )
    out = tmp_path / "results.parquet"
    assert main(["eval", "--dataset", str(toy_dataset), "--candidates", str(candidates), "--out", str(out)]) == 0
    results = {(r.instance_id, r.candidate_id): r for r in read_records(out, Result)}
    assert {pair: r.status for pair, r in results.items()} == {
        ("add-1", "a"): "plausible",
        ("add-1", "b"): "plausible",
        ("add-1", "c"): "wrong",
        ("add-2", "a"): "uncompilable",
        ("add-2", "b"): "plausible",
        ("mul-1", "a"): "wrong",
        ("mul-1", "b"): "wrong",
    }
    assert results[("add-1", "b")].duplicate_of == "a"  # the toy's dedup key, not Java's or Python's
    assert {r.project for r in results.values()} == {"addition", "multiplication"}
    assert read_stamp(out).benchmark == "toy-arithmetic"
    capsys.readouterr()
    assert main(["report", "--results", str(out), "--k", "1,2"]) == 0
    table = capsys.readouterr().out
    assert "| project | instances | solved | pass@1 | pass@2 |\n" in table  # the toy's columns: no TR
    assert "| addition | 2 | 2 | 58.33% | 100.00% |" in table  # (2/3 + 1/2) / 2; pass@2 1 on both
    assert "| multiplication | 1 | 0 | 0.00% | 0.00% |" in table


def test_reference_candidates_come_from_the_benchmark(toy_dataset, tmp_path):
    out = tmp_path / "reference.jsonl"
    assert main(["candidates", "reference", "--dataset", str(toy_dataset), "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["instance_id"], r["candidate_id"], r["code"]) for r in rows][:2] == [
        ("add-1", "gold", "5"),
        ("add-1", "off-by-one", "5 + 1"),
    ]


def test_datasets_are_recognised_by_their_stamp_not_their_columns(tmp_path):
    unstamped = tmp_path / "unstamped.parquet"
    pq.write_table(to_table(TASKS, ArithmeticTask).replace_schema_metadata(None), unstamped)
    with pytest.raises(BenchsmithError, match="unstamped.parquet: no benchsmith metadata"):
        benchmark_of(unstamped)
    by_kind = tmp_path / "by-kind.parquet"  # stamped without a benchmark name: the one benchmark of its records
    pq.write_table(to_table(TASKS, ArithmeticTask), by_kind)
    assert benchmark_of(by_kind) is ARITHMETIC
    unknown = tmp_path / "unknown.parquet"
    pq.write_table(to_table(TASKS, ArithmeticTask, benchmark="nonesuch"), unknown)
    with pytest.raises(BenchsmithError, match="unknown benchmark 'nonesuch'"):
        benchmark_of(unknown)
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1]}), other)
    with pytest.raises(BenchsmithError, match="no benchsmith metadata"):
        benchmark_of(other)


def test_built_in_benchmarks_load_only_when_asked_for():
    assert {"nl2fix", "classbench", "toy-arithmetic"} <= set(benchmarks.known())
    assert benchmarks.get("nl2fix").record_type.__name__ == "NL2FixInstance"
    with pytest.raises(BenchsmithError, match="unknown benchmark 'nope'"):
        benchmarks.get("nope")
