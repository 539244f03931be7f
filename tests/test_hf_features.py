"""The Hugging Face features benchsmith declares, checked against the real ``datasets``, and the folder card."""

import dataclasses
import json
from dataclasses import dataclass

import datasets
import pyarrow.parquet as pq
import pytest
import yaml

from benchsmith.core.export import HubSource, write_dataset, write_records
from benchsmith.core.schema import (
    Candidate,
    ClassBenchTask,
    ExtraChange,
    IssueText,
    NL2FixInstance,
    RankedCandidate,
    Result,
    Validation,
    arrow_schema,
    hf_features,
    hf_metadata,
    hf_yaml_features,
    read_records,
    read_stamp,
)
from tests.conftest import hf_expected_features
from tests.helpers.records import make_instance

RECORDS = [NL2FixInstance, ExtraChange, ClassBenchTask, Result, RankedCandidate, IssueText, Candidate, Validation]


@dataclass(frozen=True)
class Nested:  # the shapes no record has yet: lists of structs, structs holding lists
    checks: list[Validation]
    inner: IssueText
    grid: list[list[int]]
    score: float | None = None


@pytest.mark.parametrize("record_type", [*RECORDS, Nested], ids=lambda t: t.__name__)
def test_generated_features_are_what_datasets_writes(record_type):
    features = datasets.Features.from_arrow_schema(arrow_schema(record_type))
    assert hf_features(record_type) == features.to_dict()
    assert hf_yaml_features(record_type) == features._to_yaml_list()
    assert features.arrow_schema.metadata[b"huggingface"] == hf_metadata(record_type)  # byte for byte
    assert datasets.Features._from_yaml_list(hf_yaml_features(record_type)) == features
    assert features.arrow_schema == arrow_schema(record_type).with_metadata(features.arrow_schema.metadata)


def result(candidate_id: str, status: str = "plausible") -> Result:
    return Result("X-1", candidate_id, status, True, 3, 0, [], "", 1.5, "/logs/x", regression_passed=None)


def test_every_written_file_declares_its_features(tmp_path):
    out = tmp_path / "results.parquet"
    write_records(out, [result("a"), result("b", "wrong")], Result, benchmark="nl2fix")
    metadata = pq.read_schema(out).metadata
    declared = datasets.Features.from_dict(json.loads(metadata[b"huggingface"])["info"]["features"])
    assert declared == hf_expected_features(Result)
    assert read_stamp(out).record == "Result"  # the stamp is still there
    assert not (tmp_path / "README.md").exists()  # results and rankings get no folder card


def front_matter(path):
    text = path.read_text()
    assert text.startswith("---\n")
    header, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(header), body


def ranked(candidate_id: str) -> RankedCandidate:
    return RankedCandidate("X-1", candidate_id, 0.97, 1, False, "hand")


def test_folder_card_lists_every_dataset_in_the_folder(tmp_path, hf_load):
    results = [result("a"), result("b", "wrong")]
    write_dataset(
        results,
        Result,
        tmp_path / "first.parquet",
        {},
        "# First\n\nsome text\n",
        sources=[HubSource("Lang", "https://github.com/apache/commons-lang", "abc123", "apache-2.0")],
        counts={"bugs": 2},
    )
    write_dataset(
        [ranked("a")],
        RankedCandidate,
        tmp_path / "second.parquet",
        {},
        "# Second\n",
        sources=[HubSource("click", revision="8.1.7", license="bsd-3-clause")],
    )
    front, body = front_matter(tmp_path / "README.md")
    assert [c["config_name"] for c in front["configs"]] == ["first", "second"]
    assert front["configs"][0]["data_files"] == [{"split": "test", "path": "first.parquet"}]
    assert front["license"] == ["apache-2.0", "bsd-3-clause"]
    info = {i["config_name"]: i for i in front["dataset_info"]}
    assert info["first"]["features"] == hf_yaml_features(Result)
    assert info["first"]["splits"][0]["num_examples"] == 2 and info["second"]["splits"][0]["num_examples"] == 1
    assert info["first"]["download_size"] == (tmp_path / "first.parquet").stat().st_size
    first = front["benchsmith"]["first"]
    assert first["record"] == "Result" and first["rows"] == 2 and first["counts"] == {"bugs": 2}
    assert first["sources"][0]["revision"] == "abc123"
    assert first["content_sha256"] == read_stamp(tmp_path / "first.parquet").content_sha256
    assert "# First\n\nsome text" in body and "# Second" in body

    # huggingface_hub's own parser accepts the card, and datasets loads each config through it
    card = datasets.info.DatasetCard.load(tmp_path / "README.md")
    assert card.data.license == ["apache-2.0", "bsd-3-clause"]
    loaded = hf_load(str(tmp_path), "first", split="test")
    assert loaded.features == hf_expected_features(Result)
    assert loaded["candidate_id"] == ["a", "b"]
    assert hf_load(str(tmp_path), "second", split="test")["similarity"] == [0.97]

    # a rewrite in place (as describe does) refreshes its entry; a removed dataset leaves the card
    write_records(tmp_path / "first.parquet", results[:1], Result)
    (tmp_path / "second.parquet").unlink()
    write_dataset([ranked("b")], RankedCandidate, tmp_path / "third.parquet", {}, "# Third\n")
    front, body = front_matter(tmp_path / "README.md")
    assert [c["config_name"] for c in front["configs"]] == ["first", "third"]
    assert front["benchsmith"]["first"]["rows"] == 1
    assert front["benchsmith"]["first"]["content_sha256"] == read_stamp(tmp_path / "first.parquet").content_sha256
    assert front["benchsmith"]["first"]["sources"][0]["name"] == "Lang"  # kept from the build
    assert front["license"] == ["apache-2.0", "unknown"]
    assert "# First" in body and "# Second" not in body and "# Third" in body
    assert hf_load(str(tmp_path), "first", split="test").num_rows == 1


def test_a_readme_benchsmith_did_not_write_is_left_alone(tmp_path, caplog):
    readme = tmp_path / "README.md"
    readme.write_text("# My project\n")
    write_dataset([result("a")], Result, tmp_path / "d.parquet", {}, "# d\n")
    assert readme.read_text() == "# My project\n"
    assert "not a card benchsmith wrote" in caplog.text
    assert (tmp_path / "d.card.md").exists()
    readme.write_text("---\nlicense: mit\n---\n# Mine\n")  # front matter, but not ours either
    write_records(tmp_path / "d.parquet", [result("b")], Result)
    assert readme.read_text() == "---\nlicense: mit\n---\n# Mine\n"


def test_a_failed_export_leaves_the_folder_card_as_it_was(tmp_path):
    write_dataset([result("a")], Result, tmp_path / "d.parquet", {}, "# d\n")
    before = sorted(p.name for p in tmp_path.iterdir()), (tmp_path / "README.md").read_text()
    with pytest.raises(Exception):
        write_dataset([result("a")], Result, tmp_path / "e.parquet", {"not": {"json": object()}}, "# e\n")
    assert (sorted(p.name for p in tmp_path.iterdir()), (tmp_path / "README.md").read_text()) == before


def test_a_list_of_records_loads_with_its_declared_features(tmp_path, hf_load):
    extra = [ExtraChange("field", "A.LIMIT", [3], []), ExtraChange("method added", "A.helper(int)", [20, 21, 22], [])]
    instances = [make_instance(extra_changes=extra), make_instance(instance_id="Cli-4", bug_id=4)]
    write_dataset(instances, NL2FixInstance, tmp_path / "nl2fix.parquet", {}, "# NL2Fix\n")
    assert read_records(tmp_path / "nl2fix.parquet", NL2FixInstance) == instances  # rebuilt as ExtraChange records
    front, _ = front_matter(tmp_path / "README.md")
    assert front["dataset_info"][0]["features"] == hf_yaml_features(NL2FixInstance)
    loaded = hf_load(str(tmp_path), "nl2fix", split="test")
    assert loaded.features == hf_expected_features(NL2FixInstance)
    assert loaded["extra_changes"] == [[dataclasses.asdict(e) for e in extra], []]
