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


def judged(task, tmp_path, runs: list[Run]) -> dict:
    """The verdicts of *runs*, one runner for all, in order; the honest ones (before and after) must be plausible."""
    with sandbox.leased_slot() as slot:
        runner = TaskRunner(task, slot, LIMITS, tmp_path / "logs")
        try:
            verdicts = {run.name: runner.evaluate(run.code, run.name) for run in runs}
        finally:
            runner.close()
    for run in runs:
        if run.honest:
            assert verdicts[run.name].status == "plausible", (run.name, verdicts[run.name].reason)
    return verdicts


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
    verdicts = judged(task, tmp_path, runs)
    assert verdicts["wrong-label"].failing_tests == ["tests/test_shapes.py::test_label"]
    assert verdicts["helper-rebound"].status != "plausible", verdicts["helper-rebound"].reason


# A test module that claims another file: directcov checks a test against the facts of the file its module's
# ``__file__`` names, resolved. Writing a module's attribute raises no audit event, so a candidate rebinds test_area to
# another test of the file (a donor) and points the module's ``__file__`` elsewhere, after pytest imported it (its
# check that the module is the file it asked for is behind it) and before it collects (a PEP 562 ``__getattr__``).
# Its class is wrong except while an inverted twin runs (it reads the running test's name), so test_area's twin,
# which calls the real test, fails as it should. Before directcov refused a module it could not name, every per-test
# check passed such a module's tests, and this class was plausible.
CLAIMS_ANOTHER_FILE = """
import os as _os, sys as _s

_DIRECTIVES = NAMES


def _under_twin():
    running = _os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    return running.rsplit("::", 1)[-1] not in _DIRECTIVES


def _plant():
    for _m in list(_s.modules.values()):
        if not (getattr(_m, "__file__", None) or "").endswith("/tests/test_shapes.py"):
            continue

        def __getattr__(name, _m=_m, _done=[]):
            g = _m.__dict__
            if not _done:
                _done.append(1)
                g["test_area"] = g["test_point_equality"]
                if MOVED:
                    g["__file__"] = "/elsewhere/tests/test_shapes.py"
                g.pop("__getattr__", None)
            raise AttributeError(name)

        _m.__getattr__ = __getattr__


_plant()
"""


@pytest.mark.slow
def test_a_test_module_that_claims_another_file_is_refused(task, tmp_path):  # noqa: F811
    if not sandbox.isolation()["unprivileged_uid"]:
        pytest.skip("needs root: the candidate runs as a sandbox uid, apart from the harness")
    gold = reference_solution(task)
    right = "return abs(total) / 2"
    assert right in gold
    wrong = gold.replace(right, "return abs(total)")
    twin_only = gold.replace(right, "return abs(total) / (2 if _under_twin() else 1)")
    names = sorted({directive.rsplit("::", 1)[-1] for directive in task.test_directives})
    assert "test_area" in names  # its donor, test_point_equality, is a test of the file that no directive names

    def hostile(moved: bool) -> str:
        prelude = CLAIMS_ANOTHER_FILE.replace("NAMES", repr(set(names))).replace("MOVED", repr(moved))
        return twin_only + "\n\n" + prelude.strip("\n") + "\n"

    runs = [
        Run("gold-before", gold, honest=True),
        Run("wrong-area", wrong),
        Run("donor-in-place", hostile(False), forged=True),
        Run("donor-in-a-module-claiming-another-file", hostile(True), forged=True),
        Run("gold-after", with_prelude(gold, "# after"), honest=True),
    ]
    verdicts = judged(task, tmp_path, runs)
    assert verdicts["wrong-area"].failing_tests == ["tests/test_shapes.py::test_area"]
    for run in runs:
        if run.forged:
            assert verdicts[run.name].status != "plausible", (run.name, verdicts[run.name].reason)
            assert verdicts[run.name].reason.startswith("forged"), (run.name, verdicts[run.name].reason)
    assert "not one of the run's test files" in verdicts["donor-in-a-module-claiming-another-file"].reason
