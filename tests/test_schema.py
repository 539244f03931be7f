
import pyarrow.parquet as pq
import pytest

from benchsmith.errors import BenchsmithError
from benchsmith.schema import NL2FIX_SCHEMA, NL2FixInstance, Validation, instance_id, read_records, to_table
from benchsmith.export import write_dataset
from tests.helpers.records import make_instance


def test_instance_ids_are_deterministic():
    assert instance_id("Cli", 3) == "Cli-3"


def test_round_trip_through_parquet(tmp_path):
    records = [make_instance(), make_instance(instance_id="Cli-4", bug_id=4, validation=Validation())]
    out = tmp_path / "d.parquet"
    write_dataset(records, NL2FixInstance, out, {"k": 1}, "# card\n")
    assert pq.read_schema(out).remove_metadata() == NL2FIX_SCHEMA
    assert read_records(out, NL2FixInstance) == records
    assert (tmp_path / "d.card.json").read_text() == '{\n  "k": 1\n}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.card.json", "d.card.md", "d.parquet"]


def test_a_record_that_does_not_fit_leaves_no_file(tmp_path):
    out = tmp_path / "d.parquet"
    with pytest.raises(BenchsmithError, match="does not fit its schema"):
        write_dataset([make_instance(bug_id="three")], NL2FixInstance, out, {}, "")
    assert list(tmp_path.iterdir()) == []


def test_wrong_record_type_is_refused():
    with pytest.raises(BenchsmithError, match="expected NL2FixInstance"):
        to_table([Validation()], NL2FixInstance)


def test_unknown_validation_status_is_refused():
    with pytest.raises(ValueError, match="not one of"):
        Validation("maybe")


def test_reading_a_file_with_other_columns_fails(tmp_path):
    import pyarrow as pa

    path = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1]}), path)
    with pytest.raises(BenchsmithError, match="columns"):
        read_records(path, NL2FixInstance)
