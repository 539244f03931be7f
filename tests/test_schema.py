import dataclasses
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchsmith import __version__
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.export import write_dataset
from benchsmith.core.schema import (
    SCHEMA_VERSION,
    ClassBenchTask,
    ExtraChange,
    NL2FixInstance,
    Result,
    TaskEnvironment,
    Validation,
    arrow_schema,
    instance_id,
    read_records,
    read_stamp,
    to_table,
)
from tests.helpers.records import classbench_task, make_instance


def test_instance_ids_are_deterministic():
    assert instance_id("Cli", 3) == "Cli-3"


def test_round_trip_through_parquet(tmp_path):
    records = [make_instance(), make_instance(instance_id="Cli-4", bug_id=4, validation=Validation())]
    out = tmp_path / "d.parquet"
    write_dataset(records, NL2FixInstance, out, {"k": 1}, "# card\n")
    assert pq.read_schema(out).remove_metadata() == arrow_schema(NL2FixInstance)
    assert read_records(out, NL2FixInstance) == records
    assert (tmp_path / "d.card.json").read_text() == '{\n  "k": 1\n}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "d.card.json", "d.card.md", "d.parquet"]


def test_a_record_that_does_not_fit_leaves_no_file(tmp_path):
    out = tmp_path / "d.parquet"
    with pytest.raises(BenchsmithError, match="does not fit its schema"):
        write_dataset([make_instance(bug_id="three")], NL2FixInstance, out, {}, "")
    assert list(tmp_path.iterdir()) == []


def test_wrong_record_type_is_refused():
    with pytest.raises(BenchsmithError, match="expected NL2FixInstance"):
        to_table([Validation()], NL2FixInstance)


def test_unknown_extra_change_kind_is_refused():
    with pytest.raises(ValueError, match="extra change kind 'constant' is not one of"):
        ExtraChange("constant", "A.X", [1], [])


def test_unknown_validation_status_is_refused():
    with pytest.raises(ValueError, match="not one of"):
        Validation("maybe")


def test_reading_a_file_with_other_columns_fails(tmp_path):
    import pyarrow as pa

    path = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1]}), path)
    with pytest.raises(BenchsmithError, match="columns"):
        read_records(path, NL2FixInstance)


def test_a_file_written_before_a_defaulted_column_was_added_reads_with_its_default(tmp_path):
    task = classbench_task()
    older = to_table([task], ClassBenchTask).drop_columns(["environment"])  # as schema 3 wrote classbench tasks
    pq.write_table(older, tmp_path / "older.parquet")
    (read,) = read_records(tmp_path / "older.parquet", ClassBenchTask)
    assert read == task and read.environment == TaskEnvironment()
    pq.write_table(to_table([task], ClassBenchTask).drop_columns(["task_id"]), tmp_path / "no-id.parquet")
    with pytest.raises(BenchsmithError, match="columns"):  # a column without a default is still required
        read_records(tmp_path / "no-id.parquet", ClassBenchTask)


def test_the_arrow_schema_is_derived_from_the_dataclass_types_included():
    schema = arrow_schema(NL2FixInstance)
    assert schema.names == [f.name for f in dataclasses.fields(NL2FixInstance)]
    assert schema.field("bug_id").type == pa.int32()
    assert schema.field("trigger_tests").type == pa.list_(pa.string())
    assert schema.field("validation").type == pa.struct([("status", pa.string()), ("reason", pa.string())])
    assert schema.field("extra_changes").type == pa.list_(
        pa.struct(
            [
                ("kind", pa.string()),
                ("name", pa.string()),
                ("fixed_lines", pa.list_(pa.int32())),
                ("buggy_lines", pa.list_(pa.int32())),
            ]
        )
    )
    results = arrow_schema(Result)
    assert results.field("seconds").type == pa.float64()
    assert results.field("regression_passed").type == pa.bool_() and results.field("regression_passed").nullable


def test_every_file_is_stamped_with_kind_versions_and_content_hash(tmp_path):
    out = tmp_path / "d.parquet"
    write_dataset([make_instance()], NL2FixInstance, out, {}, "", benchmark="nl2fix")
    stamp = read_stamp(out)
    assert (stamp.record, stamp.schema_version, stamp.tool_version, stamp.benchmark) == (
        "NL2FixInstance",
        SCHEMA_VERSION,
        __version__,
        "nl2fix",
    )
    same = tmp_path / "same.parquet"
    write_dataset([make_instance()], NL2FixInstance, same, {}, "", benchmark="nl2fix")
    other = tmp_path / "other.parquet"
    write_dataset([make_instance(fixed_method="int f() { return 3; }")], NL2FixInstance, other, {}, "")
    assert read_stamp(same).content_sha256 == stamp.content_sha256 != read_stamp(other).content_sha256


def test_records_of_another_kind_are_refused_by_their_stamp(tmp_path):
    out = tmp_path / "d.parquet"
    write_dataset([make_instance()], NL2FixInstance, out, {}, "")
    with pytest.raises(BenchsmithError, match="holds NL2FixInstance records, not Result"):
        read_records(out, Result)


def test_a_build_card_reads_back_as_written_in_both_languages(tmp_path):
    from benchsmith.core.schema import BuildCard, JavaBuildFacts, PythonBuildFacts

    common = dict(
        tool="benchsmith 0",
        built_at="2026-01-01T00:00:00+00:00",
        repo="r",
        commit="c",
        test_suite={"passed": 3},
        classes=2,
        tasks=1,
        directives=3,
        rejection_reasons={"x": 1},
        rejections=[{"class": "A", "reason": "x", "detail": ""}],
        solution_checks={},
        no_relatives=False,
        seconds=1.5,
    )
    python = BuildCard(
        dataset="RepoClassBench (python)", facts=PythonBuildFacts("mit", {"a": "1"}, {}, {}, []), **common
    )
    java = BuildCard(
        dataset="RepoClassBench (java)",
        facts=JavaBuildFacts("m", "maven", "17", "java 17", ["x.jar"], [], [], [], "", [], [], []),
        **common,
    )
    for card in (python, java):
        path = tmp_path / "card.json"
        path.write_text(json.dumps(card.to_dict()))
        flat = json.loads(path.read_text())
        assert "facts" not in flat and flat["tasks"] == 1  # flat, as the cards were always written
        assert BuildCard.read(path) == card
    with pytest.raises(BenchsmithError, match="not a classbench build card"):
        BuildCard.from_dict({"tasks": 1}, "x.card.json")
