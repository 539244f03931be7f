"""The journal every resumable stage shares: entries survive a kill, and a cut line never corrupts the next run."""

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.journal import Journal, journal_path


def test_entries_come_back_in_order_and_remove_clears(tmp_path):
    journal = Journal(tmp_path / "out.parquet")
    assert journal.path == journal_path(tmp_path / "out.parquet") == tmp_path / "out.parquet.journal.jsonl"
    assert journal.read(dict) == []
    journal.append({"id": 1}, {"id": 2})
    journal.append({"id": 3})
    assert [e["id"] for e in journal.read(dict)] == [1, 2, 3]
    journal.remove()
    assert not journal.path.exists()


def test_a_line_cut_by_a_kill_is_dropped_so_the_next_appends_stay_readable(tmp_path):
    journal = Journal(tmp_path / "out.jsonl")
    journal.append({"id": 1}, {"id": 2})
    journal.path.write_bytes(journal.path.read_bytes() + b'{"id": 3, "ha')  # killed mid-write
    assert [e["id"] for e in journal.read(dict)] == [1, 2]
    journal.append({"id": 4})  # the resumed run
    journal.path.write_bytes(journal.path.read_bytes() + b'{"i')  # killed again
    assert [e["id"] for e in journal.read(dict)] == [1, 2, 4]


def test_a_whole_last_entry_cut_before_its_newline_is_kept(tmp_path):
    journal = Journal(tmp_path / "out.jsonl")
    journal.path.write_text('{"id": 1}\n{"id": 2}')
    assert [e["id"] for e in journal.read(dict)] == [1, 2]
    journal.append({"id": 3})
    assert [e["id"] for e in journal.read(dict)] == [1, 2, 3]


def test_a_bad_line_before_the_last_is_an_error_naming_it(tmp_path):
    journal = Journal(tmp_path / "out.jsonl")
    journal.path.write_text('{"id": 1}\nnot json\n{"id": 3}\n')
    with pytest.raises(BenchsmithError, match=r"out\.jsonl\.journal\.jsonl:2: corrupt journal line"):
        journal.read(dict)
    journal.path.write_text('{"id": 1}\n{"other": 2}\n{"id": 3}\n')
    with pytest.raises(BenchsmithError, match=r":2: corrupt journal line"):
        journal.read(lambda entry: entry["id"])
