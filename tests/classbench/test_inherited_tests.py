"""Tests a test class inherits, and tests a decorator wraps, written here: honest golds plausible, donors caught.

Suites share their tests through base classes (transitions' ``TestAsync(TestCore)`` from another file, its
``TestParallel`` through an alias, or a contract class in the same file that pytest never collects on its own), and
wrap them in decorators (``unittest.mock.patch``). The Python class harness used to accept a test only when the
function pytest collected was compiled at the test's own qualified name in its own file, so every such directive was
judged a forgery and honest golds came out wrong; so did every test of a module after a warning attributed to one of
its tests (``__warningregistry__``, pg8000). The hostile candidates below are wrong for one owner's purse and try to
make the inherited test that catches it run something else that passes: another class's test of the same name put
in the base class, the base swapped for a class built of donors (also under the donors' own name and module), the
base rebased onto the donors.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from benchsmith.core.schema import ClassBenchTask, Result, read_records
from benchsmith.runners.python.class_runner import TaskRunner, reference_solution
from benchsmith.runners.sandbox import jail as sandbox
from tests.helpers.cli import run_cli
from tests.helpers.purse_repo import ATTACKS, DEFERRED, built_purse, wrong_for_bob


@pytest.fixture(scope="module")
def inheriting(tmp_path_factory) -> tuple[Path, ClassBenchTask]:
    return built_purse(tmp_path_factory.mktemp("inheriting"))


def test_a_gold_the_test_module_check_refuses_is_no_task(inheriting):
    """Wallet's tests run a factory's function: eval's check of the test modules refuses every candidate's run, the
    gold's included, so the build rejects the class and names the refused test."""
    dataset, _ = inheriting
    assert [t.class_name for t in read_records(dataset, ClassBenchTask)] == ["Purse"]
    card = json.loads(dataset.with_suffix(".card.json").read_text())
    (rejected,) = [r for r in card["rejections"] if r["class"].endswith("Wallet")]
    assert rejected["reason"] == "ground truth needs what a candidate is refused", rejected
    assert "tests/test_wallet.py::test_worth_of_five runs test of" in rejected["detail"], rejected


def test_inherited_directives_are_built(inheriting):
    _, task = inheriting
    directives = set(task.test_directives)
    # from another file's class, and from a contract in the same file, each under every class that runs it
    assert "tests/test_shared.py::TestShared::test_rejects_nothing" in directives
    assert "tests/test_shared.py::TestShared::test_total" in directives
    assert "tests/test_contract.py::TestDefault::test_rejects_negative" in directives
    assert "tests/test_contract.py::TestNamed::test_empty_total" in directives
    assert "tests/test_core.py::TestCore::test_rejects_nothing" in directives
    # decorated: what pytest collects is the decorator's wrapper around the function the file defines
    assert "tests/test_core.py::TestCore::test_label_in_dollars" in directives
    assert "tests/test_shared.py::TestShared::test_label_in_dollars" in directives
    assert "tests/test_contract.py::test_label_in_pounds" in directives


@pytest.mark.slow
def test_honest_inheritance_plausible_and_forged_hierarchies_not(inheriting, tmp_path):
    if not sandbox.isolation()["unprivileged_uid"]:
        pytest.skip("needs root: the candidate runs as a sandbox uid, apart from the harness")
    _, task = inheriting
    gold = reference_solution(task)
    wrong = wrong_for_bob(gold)
    runs = {"gold-before": gold, "wrong": wrong, "empty": "class Purse:\n    pass\n"}
    for name, attack in ATTACKS.items():
        runs[name] = textwrap.dedent(DEFERRED) + textwrap.dedent(attack) + "\n\n" + wrong
    runs["gold-after"] = gold + "\n"
    with sandbox.leased_slot() as slot:
        runner = TaskRunner(task, slot, sandbox.Limits(wall_seconds=60), tmp_path / "logs")
        try:
            verdicts = {name: runner.evaluate(code, name) for name, code in runs.items()}
        finally:
            runner.close()
    statuses = {name: verdict.status for name, verdict in verdicts.items()}
    assert statuses["gold-before"] == "plausible", verdicts["gold-before"].reason
    assert statuses["gold-after"] == "plausible", verdicts["gold-after"].reason
    assert statuses["empty"] == "wrong"
    # the wrong class fails only the inherited test every attack puts a donor in place of; with no tripwire (its
    # checks commented out) each attack but the rebasing, which the audit hook refuses too, was plausible
    assert verdicts["wrong"].failing_tests == ["tests/test_shared.py::TestShared::test_largest"]
    for name in ATTACKS:
        assert statuses[name] != "plausible", (name, verdicts[name].reason)
    # the tripwire saw each forgery; the rebasing was refused outright, so the test it would have replaced failed
    for name in ("donor-in-base", "swapped-base", "swapped-base-as-donor"):
        assert verdicts[name].reason.startswith("forged"), (name, verdicts[name].reason)
    assert "tests/test_shared.py::TestShared::test_largest" in verdicts["rebased"].failing_tests


def test_eval_judges_inherited_directives_as_the_build_did(inheriting, tmp_path):
    """The command line end to end: the gold plausible, the empty class wrong (the published-directive checks the
    build ran said the same)."""
    dataset, task = inheriting
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text(
        "".join(
            json.dumps({"instance_id": task.task_id, "candidate_id": name, "code": code}) + "\n"
            for name, code in (("gold", reference_solution(task)), ("empty", "class Purse:\n    pass\n"))
        )
    )
    results = tmp_path / "results.parquet"
    completed = run_cli(
        "eval", "--dataset", str(dataset), "--candidates", str(candidates), "--out", str(results), "--timeout", "60"
    )
    assert completed.returncode == 0, completed.stderr
    assert {r.candidate_id: r.status for r in read_records(results, Result)} == {"gold": "plausible", "empty": "wrong"}
