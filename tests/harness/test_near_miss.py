"""A lenient instance is judged in the fixed file, which already holds the fix's other changes (the added helper)."""

import json

import pytest

from benchsmith.core.schema import NL2FixInstance, read_records
from tests.conftest import FIXTURE_D4J
from tests.helpers.cli import run_cli

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox


def test_the_near_miss_reproduces_gold_passing_and_buggy_failing(tmp_path, fixture_repos):
    bugs = tmp_path / "bugs.txt"
    bugs.write_text("Ledger-7\n")  # the fix adds the helper sameAccount and calls it from balance
    dataset = tmp_path / "nl2fix.parquet"
    built = run_cli(
        "nl2fix",
        "build",
        "--defects4j",
        str(FIXTURE_D4J),
        "--repos",
        str(fixture_repos),
        "--bugs",
        str(bugs),
        "--selection",
        "lenient",
        "--no-scrape",
        "--out",
        str(dataset),
    )
    assert built.returncode == 0, built.stderr
    (instance,) = read_records(dataset, NL2FixInstance)
    assert [e.kind for e in instance.extra_changes] == ["method added"] and "sameAccount" in instance.fixed_method
    out = tmp_path / "report.json"
    completed = run_cli(
        "validate",
        "--dataset",
        str(dataset),
        "--defects4j",
        str(FIXTURE_D4J),
        "--repos",
        str(fixture_repos),
        "--out",
        str(out),
        "--timeout",
        "60",
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(out.read_text())
    assert report["instances"]["Ledger-7"]["status"] == "reproduced", report
