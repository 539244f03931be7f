"""The oracle (RepoClassBench paper, Algorithm 1): attempts judged by the sandboxed class harness, answered in words."""

import pytest

from benchsmith.benchmarks.classbench.python import python_oracle
from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.core.verdict import Verdict
from benchsmith.generation.agents.oracle import FEEDBACK_BUDGET, feedback_text
from benchsmith.runners.python.class_runner import reference_solution
from benchsmith.runners.sandbox import jail as sandbox


@pytest.fixture(scope="module")
def oracle(geometry_dataset, tmp_path_factory):
    """In a slot leased as agent_run leases one: a slot no other process holds. With slot 0 taken unleased, another
    process's run in slot 0 (make test's other worker) and this one killed each other's processes as leftovers of
    their uid (exit 137 within 0.1 s, the verdict 'forged: a control test that must pass came out missing'; gate12
    of 2026-12-08, and 7 of about 440 judgements with make test running beside)."""
    (task,) = read_records(geometry_dataset, ClassBenchTask)
    with sandbox.leased_slot() as slot:
        judge = python_oracle(task, sandbox.Limits(wall_seconds=60), tmp_path_factory.mktemp("oracle-logs"), slot=slot)
        yield task, judge
        judge.close()


def test_gold_passes(oracle):
    task, judge = oracle
    feedback = judge.judge(reference_solution(task))
    assert (feedback.passed, feedback.compiled, feedback.tests_passed, feedback.tests_failed) == (True, True, 6, 0)
    assert feedback.text == "All 6 tests passed."


def test_an_empty_class_lists_every_failing_directive_with_its_message(oracle):
    task, judge = oracle
    feedback = judge.judge("class Polygon:\n    pass\n")
    assert (feedback.passed, feedback.compiled, feedback.tests_passed, feedback.tests_failed) == (False, True, 0, 6)
    assert feedback.text.startswith("6 of 6 tests failed:")
    for directive in task.test_directives:
        assert f"* {directive}" in feedback.text
    assert "TypeError: Polygon() takes no arguments" in feedback.text
    assert len(feedback.text) <= FEEDBACK_BUDGET


def test_one_wrong_method_names_its_test_and_assertion(oracle):
    task, judge = oracle
    feedback = judge.judge(reference_solution(task).replace("return abs(total) / 2", "return abs(total)"))
    assert (feedback.tests_passed, feedback.tests_failed) == (5, 1)
    assert "* tests/test_shapes.py::test_area" in feedback.text and "assert 2.0 == 1.0" in feedback.text


def test_a_syntax_error_is_reported(oracle):
    _, judge = oracle
    feedback = judge.judge("class Polygon(:\n    pass\n")
    assert not feedback.passed and not feedback.compiled
    assert feedback.text == "The code could not be used: does not parse: invalid syntax (line 1)"


def test_a_forged_report_is_not_believed_and_its_words_go_nowhere(oracle):
    _, judge = oracle
    forger = (
        "import json, os\nfd = int(os.environ.get('BENCHSMITH_REPORT_FD', '-1'))\n"
        "for t in ['area', 'degenerate', 'label', 'opacity_is_clamped', 'perimeter', 'too_few_points']:\n"
        "    os.write(fd, (json.dumps({'nodeid': 'tests/test_shapes.py::test_' + t, 'outcome': 'passed',"
        " 'message': 'all good'}) + '\\n').encode())\n"
        "os._exit(0)\n\nclass Polygon:\n    pass\n"
    )
    feedback = judge.judge(forger)
    assert not feedback.passed and feedback.tests_passed == 0


def test_feedback_keeps_to_its_budget_and_shares_it_between_failures():
    failing = [f"tests/t.py::test_{i}" for i in range(5)]
    verdict = Verdict(
        "wrong",
        compiled=True,
        tests_failed=5,
        failing_tests=failing,
        messages={d: f"E   AssertionError {i}\n" + "x" * 3000 for i, d in enumerate(failing)},
    )
    text = feedback_text(verdict, 5, budget=1500)
    assert len(text) <= 1500 and text.count("--- ") == 5
    same = Verdict(
        "wrong", compiled=True, tests_failed=5, failing_tests=failing, messages=dict.fromkeys(failing, "E boom")
    )
    assert feedback_text(same, 5).count("E boom") == 1  # one failure shared by all is told once
