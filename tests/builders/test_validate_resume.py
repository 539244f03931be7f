"""An interrupted validation resumes from its journal: journalled instances are not run again, unless the instance,
the harness or the limits changed since."""

from benchsmith.builders.validate import validate_all, validation_key
from benchsmith.core.journal import Journal
from benchsmith.core.schema import Validation, instance_id
from benchsmith.runners.sandbox.jail import Limits
from benchsmith.sources.defects4j import Defects4JRoot
from tests.conftest import FIXTURE_D4J
from tests.helpers.records import make_instance


def test_validation_resumes_from_its_journal(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path / "cache"))
    done = make_instance(instance_id=instance_id("Ledger", 98), project="Ledger", bug_id=98)
    pending = make_instance(instance_id=instance_id("Ledger", 99), project="Ledger", bug_id=99)
    out = tmp_path / "report.json"
    Journal(out).append(
        {
            "instance_id": done.instance_id,
            "key": validation_key(done, Limits()),
            "status": "reproduced",
            "reason": "journalled",
        }
    )
    Journal(out).append(
        {"instance_id": pending.instance_id, "key": "made by older code", "status": "reproduced", "reason": "stale"}
    )
    run = lambda: validate_all(  # noqa: E731
        [done, pending], Defects4JRoot(FIXTURE_D4J), None, 1, Limits(), tmp_path / "logs", out=out
    )
    outcomes = run()
    assert outcomes[done.instance_id] == Validation("reproduced", "journalled")  # not run: it would be "build broken"
    assert outcomes[pending.instance_id].status == "not reproduced"
    assert "no upstream repository known" in outcomes[pending.instance_id].reason  # run for real: Ledger has none
    assert [e["instance_id"] for e in Journal(out).read(dict)] == [
        done.instance_id,
        pending.instance_id,
        pending.instance_id,
    ]
    assert run() == outcomes  # both journalled now: nothing runs again
