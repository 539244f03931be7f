"""The serve tests' server: ``benchsmith serve`` over the Ledger NL2Fix fixture and the geometry classbench fixture."""

from __future__ import annotations

import pytest

from benchsmith.benchmarks import benchmark_of
from benchsmith.core.schema import ClassBenchTask, read_records
from tests.harness.conftest import ledger_dataset, ledger_instances  # noqa: F401 (the fixtures, shared)
from tests.helpers.serve import Server, write_tokens


@pytest.fixture(scope="session")
def tokens(tmp_path_factory) -> tuple[list[str], object]:
    path = tmp_path_factory.mktemp("serve-tokens") / "tokens"
    return write_tokens(path, 2), path


@pytest.fixture(scope="module")
def server(tmp_path_factory, ledger_dataset, geometry_dataset, fixture_repos, tokens):  # noqa: F811
    folder = tmp_path_factory.mktemp("serve")
    running = Server([ledger_dataset, geometry_dataset], folder / "store", tokens[1], fixture_repos).start()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def reference(ledger_dataset, geometry_dataset) -> list[dict]:  # noqa: F811
    """Reference candidates of both fixtures: NL2Fix gold, buggy and two mutants an instance; classbench gold, empty."""
    rows = []
    for dataset, mutants in ((ledger_dataset, 2), (geometry_dataset, 0)):
        benchmark = benchmark_of(dataset)
        records = list(benchmark.load(dataset).values())
        for made in benchmark.reference_candidates(records, mutants, 7):
            rows.append({"instance_id": made.instance_id, "candidate_id": made.kind, "code": made.code})
    return rows


@pytest.fixture(scope="session")
def geometry_task(geometry_dataset) -> ClassBenchTask:
    (task,) = read_records(geometry_dataset, ClassBenchTask)
    return task
