"""Red team round 7 on the geometry fixture: a helper the test module defines, rebound by the candidate.

test_shapes.py's tests build their polygon with its own ``square()``. Writing a module's attribute raises no audit
event, and round 6 held only the names the test file's imports bind, so a candidate could rebind ``square`` to build
something its wrong class passes with; the twin of test_label calls test_label, which then truly passes, so the pair
agrees. The candidate rebinds it from a thread it starts as it is imported, as soon as the module's body has bound it.
"""

from __future__ import annotations

import pytest

from benchsmith.runners.python.class_runner import TaskRunner, reference_solution
from benchsmith.runners.sandbox import jail as sandbox
from tests.harness.test_redteam_python import LIMITS, Run, with_prelude
from tests.harness.test_redteam_python import task as task  # the fixture: the geometry task

LABEL = 'return f"{self.name} ({len(self.points)} points)"'
REBINDS_HELPER = """
import sys as _s, threading as _th, time as _t


def _rebind():
    for _ in range(30000):
        module = _s.modules.get("tests.test_shapes") or _s.modules.get("test_shapes")
        real = getattr(module, "square", None)
        if real is not None:
            class _Labelled(Polygon):
                @property
                def label(self):
                    return "polygon (4 points)"

            vars(module)["square"] = lambda: _Labelled(real().points)
            return
        _t.sleep(0.001)


_th.Thread(target=_rebind, daemon=True).start()
"""


@pytest.mark.slow
def test_a_helper_the_test_file_defines_stays_its_own(task, tmp_path):  # noqa: F811
    if not sandbox.isolation()["unprivileged_uid"]:
        pytest.skip("needs root: the candidate runs as a sandbox uid, apart from the harness")
    gold = reference_solution(task)
    assert LABEL in gold
    wrong = gold.replace(LABEL, LABEL.replace(" points)", " pts)"))
    # the prelude runs where the candidate's module is imported; Polygon is the class the module goes on to define
    hostile = wrong + "\n\n" + REBINDS_HELPER.strip("\n") + "\n"
    runs = [
        Run("gold-before", gold, honest=True),
        Run("wrong-label", wrong),
        Run("helper-rebound", hostile, forged=True),
        Run("gold-after", with_prelude(gold, "# after"), honest=True),
    ]
    with sandbox.leased_slot() as slot:
        runner = TaskRunner(task, slot, LIMITS, tmp_path / "logs")
        try:
            verdicts = {run.name: runner.evaluate(run.code, run.name) for run in runs}
        finally:
            runner.close()
    assert verdicts["gold-before"].status == "plausible", verdicts["gold-before"].reason
    assert verdicts["gold-after"].status == "plausible", verdicts["gold-after"].reason
    assert verdicts["wrong-label"].failing_tests == ["tests/test_shapes.py::test_label"]
    assert verdicts["helper-rebound"].status != "plausible", verdicts["helper-rebound"].reason
