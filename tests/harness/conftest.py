from pathlib import Path

import pytest

from benchsmith.schema import NL2FixInstance, read_records
from sources.defects4j import Defects4JRoot
from harness.workspace import prepare
from tests.conftest import FIXTURE_D4J
from tests.helpers.cli import build_ledger


@pytest.fixture(scope="session")
def ledger_dataset(tmp_path_factory, fixture_repos) -> Path:
    out = tmp_path_factory.mktemp("ledger") / "nl2fix.parquet"
    # strict: the harness tests count the six strict instances; test_workspace.py validates the lenient one apart
    completed = build_ledger(out, fixture_repos, "--selection", "strict")
    assert completed.returncode == 0, completed.stderr
    return out


@pytest.fixture(scope="session")
def ledger_instances(ledger_dataset) -> dict[str, NL2FixInstance]:
    return {r.instance_id: r for r in read_records(ledger_dataset, NL2FixInstance)}


@pytest.fixture(scope="session")
def ledger_workspace(ledger_instances, fixture_repos):
    def prepared(instance_id: str):
        return prepare(ledger_instances[instance_id], Defects4JRoot(FIXTURE_D4J), fixture_repos)

    return prepared
