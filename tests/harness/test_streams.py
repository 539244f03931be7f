"""What a candidate's processes write is kept within fixed bounds (benchsmith.runners.sandbox.streams)."""

import os

from benchsmith.runners.sandbox import streams


def test_a_flood_keeps_its_head_its_tail_and_a_line_saying_what_was_left_out(tmp_path):
    log = streams.BoundedLog(tmp_path / "run" / "c.log", limit=4096, head=1024)
    log.write(b"HEAD" + b"h" * 2000)
    for _ in range(1000):
        log.write(b"x" * 10_000)
    log.write(b"y" * 3000 + b"THE END")
    log.close()
    data = (tmp_path / "run" / "c.log").read_bytes()
    assert data.startswith(b"HEAD") and data.endswith(b"THE END")
    assert b"bytes of output left out here]" in data
    assert len(data) < 4096 + 200
    assert len(log.tail) == 0


def test_a_short_output_is_kept_whole(tmp_path):
    log = streams.BoundedLog(tmp_path / "c.log", limit=4096, head=1024)
    for chunk in (b"a" * 1000, b"b" * 1000, b"c" * 1000):
        log.write(chunk)
    log.close()
    assert (tmp_path / "c.log").read_bytes() == b"a" * 1000 + b"b" * 1000 + b"c" * 1000


def test_a_runs_logs_share_one_budget_then_keep_only_a_floor(tmp_path, monkeypatch):
    monkeypatch.setattr(streams, "RUN_LOG_BYTES", 10_000)
    monkeypatch.setattr(streams, "FLOOR_BYTES", 500)
    root = streams.open_ledger(tmp_path / "run.logs").parent
    sizes = []
    for number in range(5):
        log = streams.BoundedLog(root / "instance" / f"c{number}.log", limit=4000, head=100)
        log.write(os.urandom(8000))
        log.close()
        sizes.append((root / "instance" / f"c{number}.log").stat().st_size)
    assert sizes[0] > 3900 and sizes[1] > 3900  # within the budget: each its own limit
    assert all(size < 700 for size in sizes[3:])  # spent: a head and a floor of tail
    assert sum(sizes) < 10_000 + 5 * 700


def test_read_tail_never_reads_more_than_asked(tmp_path):
    path = tmp_path / "big.log"
    with open(path, "wb") as handle:
        handle.truncate(64 << 20)  # sparse: 64 MiB of zeros
        handle.seek(0, os.SEEK_END)
        handle.write(b"last line\n")
    text = streams.read_tail(path, 100)
    assert len(text) == 100 and text.endswith("last line\n")
    assert streams.read_tail(tmp_path / "absent.log") == ""
