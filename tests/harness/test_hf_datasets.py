"""Every output loads with the real ``datasets`` (offline) with the features its record declares:
an NL2Fix dataset, a classbench dataset, results (`benchsmith eval`) and rankings (`benchsmith rank`)."""

import dataclasses
import json
import shutil

import pyarrow.parquet as pq
import pytest
import yaml

from benchsmith.core.schema import ClassBenchTask, NL2FixInstance, RankedCandidate, Result, read_records, read_stamp
from tests.conftest import FIXTURE_D4J, hf_expected_features, run_benchsmith

pytestmark = pytest.mark.java  # the NL2Fix dataset is validated, the results judged, by JVMs


def declared(path, record_type):
    """The file's own `huggingface` metadata says the record's features."""
    import datasets

    features = json.loads(pq.read_schema(path).metadata[b"huggingface"])["info"]["features"]
    return datasets.Features.from_dict(features) == hf_expected_features(record_type)


def rows(records):
    return [dataclasses.asdict(r) for r in records]


def loaded_as_declared(path, record_type, hf_load):
    """The file loaded by ``datasets``: its metadata declares the record's features, ``datasets`` loads exactly
    those, and the rows are the records benchsmith reads."""
    ds = hf_load("parquet", data_files=str(path), split="train")
    assert declared(path, record_type)
    assert ds.features == hf_expected_features(record_type)
    assert ds.to_list() == rows(read_records(path, record_type))
    return ds


def folder_card(path):
    header = (path.parent / "README.md").read_text()[4:].split("\n---\n", 1)[0]
    return yaml.safe_load(header)


def test_nl2fix_dataset(ledger_dataset, hf_load):
    ds = loaded_as_declared(ledger_dataset, NL2FixInstance, hf_load)
    assert ds.num_rows == 6
    assert ds[0]["validation"] == {"status": "not run", "reason": ""}

    card = folder_card(ledger_dataset)
    entry = card["benchsmith"]["nl2fix"]
    assert entry["record"] == "NL2FixInstance" and entry["rows"] == 6 and entry["counts"]["bugs"] == 10
    assert entry["content_sha256"] == read_stamp(ledger_dataset).content_sha256
    assert [s["name"] for s in entry["sources"]] == ["Defects4J", "Ledger"]
    assert entry["sources"][1]["license"] == "unknown" and len(entry["sources"][1]["revision"]) == 12
    by_card = hf_load(str(ledger_dataset.parent), "nl2fix", split="test")
    assert by_card.features == ds.features and by_card.to_list() == ds.to_list()


def test_classbench_dataset_before_and_after_describe(geometry_dataset, hf_load, tmp_path):
    ds = loaded_as_declared(geometry_dataset, ClassBenchTask, hf_load)
    assert ds.num_rows == 1
    assert ds[0]["class_name"] == "Polygon" and ds[0]["paraphrased"] is False
    source = folder_card(geometry_dataset)["benchsmith"]["geometry"]["sources"][0]
    assert source["license"] == "unknown"  # the fixture's pyproject declares none

    # describe rewrites the dataset in place (a copy here): the file and its card entry stay loadable and true
    folder = tmp_path / "described"
    shutil.copytree(geometry_dataset.parent, folder)
    described = folder / geometry_dataset.name
    completed = run_benchsmith("describe", "--dataset", str(described), "--backend", "template")
    assert completed.returncode == 0, completed.stderr
    entry = folder_card(described)["benchsmith"]["geometry"]
    assert entry["content_sha256"] == read_stamp(described).content_sha256
    assert entry["content_sha256"] != read_stamp(geometry_dataset).content_sha256
    by_card = hf_load(str(folder), "geometry", split="test")
    assert by_card.features == hf_expected_features(ClassBenchTask)
    assert by_card[0]["description_backend"] == "template" and by_card[0]["detailed_description"]


@pytest.fixture(scope="module")
def judged(tmp_path_factory, ledger_dataset, ledger_instances, fixture_repos):
    """`benchsmith eval` and `benchsmith rank` on three candidates of Ledger-1."""
    folder = tmp_path_factory.mktemp("hf-judged")
    one = ledger_instances["Ledger-1"]
    candidates = folder / "candidates.jsonl"
    codes = {"gold": one.fixed_method, "buggy": one.buggy_method, "prose": "Sure!"}
    lines = [
        json.dumps({"instance_id": "Ledger-1", "candidate_id": cid, "code": code, "model": "m", "strategy": "s"})
        for cid, code in codes.items()
    ]
    candidates.write_text("\n".join(lines) + "\n")
    results, ranking = folder / "results.parquet", folder / "ranking.parquet"
    completed = run_benchsmith(
        "eval",
        "--dataset",
        str(ledger_dataset),
        "--candidates",
        str(candidates),
        "--defects4j",
        str(FIXTURE_D4J),
        "--repos",
        str(fixture_repos),
        "--out",
        str(results),
        "--timeout",
        "30",
    )
    assert completed.returncode == 0, completed.stderr
    completed = run_benchsmith(
        "rank",
        "--dataset",
        str(ledger_dataset),
        "--candidates",
        str(candidates),
        "--out",
        str(ranking),
        "--threshold",
        "0.5",
    )
    assert completed.returncode == 0, completed.stderr
    return results, ranking


def test_results(judged, hf_load):
    results, _ = judged
    ds = loaded_as_declared(results, Result, hf_load)
    assert ds.num_rows == 3
    statuses = dict(zip(ds["candidate_id"], ds["status"]))
    assert statuses == {"gold": "plausible", "buggy": "wrong", "prose": "uncompilable"}


def test_rankings(judged, hf_load):
    _, ranking = judged
    ds = loaded_as_declared(ranking, RankedCandidate, hf_load)
    assert ds.num_rows == 3
    by_id = {row["candidate_id"]: row for row in ds}
    assert by_id["prose"]["pruned"] and by_id["prose"]["rank"] == -1
    assert by_id["buggy"]["similarity"] == pytest.approx(1.0, abs=1e-6)
