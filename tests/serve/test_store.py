"""The job store on its own (a real SQLite file in WAL mode): which jobs a worker claims, in what order."""

from __future__ import annotations

from benchsmith.serve.store import NewJob, Store


def _jobs(count: int, prefix: str) -> list[NewJob]:
    return [NewJob("nl2fix", "Ledger-1", f"{prefix}{number}", "int x;", "plausible") for number in range(count)]


def test_clients_take_turns_within_an_instance(tmp_path):
    """Eight slow candidates from one token and then one from another, on the same instance: the other's is judged
    second, not ninth (red team round 5: it waited 41 s behind eight sleepers)."""
    store = Store(tmp_path / "store")
    store.submit("a", _jobs(8, "a"), None, "ha")
    store.submit("b", _jobs(1, "b"), None, "hb")
    store.submit("a", _jobs(1, "late"), None, "hc")
    claimed = store.claim(4)
    assert [job.candidate_id for job in claimed] == ["a0", "b0", "a1", "a2"]
    rest = [job.candidate_id for job in store.claim(10)]
    assert rest == ["a3", "a4", "a5", "a6", "a7", "late0"]
    assert store.claim(10) == []
