"""Red team, round 8, Java: candidates that had JUnit itself report a failing test as passed, each between honest twins
on the Ledger fixture (NL2Fix, the fast and the plain path) and on the geometry repository (Java classbench, the JUnit
Platform runner).

JUnit 4 reports a test whose exception is a MultipleFailureException as one failure per exception the MFE lists; an
MFE that listed none (an override of getFailures(), or a list that lied to the constructor) left the test passed, by
JUnit's own account, with every right of the confinement withheld and no report forged. The control twins caught the
candidate that did it everywhere (its failing twin passed). One that read which twin must fail from the twin's class
file was plausible on both paths and in the classbench runner; one that hid only what the twins may not copy (the
trigger tests answered right, its regression hidden) is caught only when the pair drawn at random from the relevant
tests copies a test it hid. The test JVMs now run JUnit's EachTestNotifier of the runner's own
(benchsmith/runners/java/EachTestNotifier.java), which fails a test whose MFE lists no failure, cannot list them, or
lists them in a cycle.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.runners.java.jvm import release_api
from benchsmith.runners.java.method_runner import InstanceRunner
from benchsmith.runners.java.toolchain import runner_classes
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.runners.sandbox.jail import Limits
from tests.harness.test_redteam_java import (
    BUGGY,
    GOLD,
    Attack,
    assert_verdicts,
    canaries,  # noqa: F401  (a fixture)
    class_task_verdicts,
    digest,
    method,
    run_all,
)
from tests.helpers import java_attacks as hack

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox

STATUSES = {"plausible", "wrong", "uncompilable", "timeout", "error"}


def raising(throwable: str, unless: str) -> str:
    """A statement throwing *throwable* unless *unless* (a boolean expression) holds."""
    return f"if (!({unless})) " + hack.sneaky_throw(throwable)


def mfe_attacks() -> list[Attack]:
    """Wrong candidates that hide their failures behind an MFE JUnit 4 cannot count."""
    return [
        # Gold for negative numbers (the trigger tests, the only ones the twins copy), and for the others an MFE that
        # lists nothing: TextUtilsTest's and the formatter's failures were hidden. Plausible before, no bytecode read.
        Attack("empty MFE where the twins do not look", method(raising(hack.EMPTY_MFE, "number < 0") + GOLD)),
        Attack(
            "empty MFE, the failing twins read from their bytecode",
            method(raising(hack.EMPTY_MFE, hack.FAILING_TWIN_ON_THE_STACK) + BUGGY),
        ),
        Attack(
            "MFE from a lying list, the failing twins read from their bytecode",
            method(raising(hack.MFE_FROM_A_LYING_LIST, hack.FAILING_TWIN_ON_THE_STACK) + BUGGY),
        ),
        Attack("MFE that cannot list its failures", method(raising(hack.MFE_THAT_CANNOT_LIST, "number < 0") + GOLD)),
        Attack("MFE that lists itself", method(raising(hack.MFE_IN_A_CYCLE, "number < 0") + GOLD)),
    ]


def test_junit_cannot_be_told_a_failing_test_passed(
    ledger_instances,
    ledger_workspace,
    ledger_dataset,
    canaries,  # noqa: F811
    tmp_path,
):
    """Between honest twins, on both paths: no hostile candidate plausible, every honest verdict kept, a verdict for
    every candidate, nothing outside the runner's scratch box changed, no sandbox process left."""
    canary, home_canary = canaries
    instance = ledger_instances["Ledger-1"]
    workspace = ledger_workspace("Ledger-1")
    cache = Path(os.environ["BENCHSMITH_CACHE"])
    protected = [ledger_dataset, workspace.root, cache / "views", cache / "runner", canary, home_canary]
    hostile = mfe_attacks()
    plain = [a for a in hostile if "bytecode" in a.name][:1]
    with sandbox.leased_slot() as slot:
        # the plain path's javac of the whole project, on a loaded machine, outlasts 10 s
        runner = InstanceRunner(instance, workspace, slot, Limits(wall_seconds=60), tmp_path / "logs")
        runner_classes(), release_api()  # made before the snapshot: caches, not changes
        before = digest(*protected)
        try:
            verdicts = run_all(runner, instance, hostile, fast=True)
            verdicts += [(f"{n} (plain)", v, a) for n, v, a in run_all(runner, instance, plain, fast=False)]
        finally:
            runner.close()
        assert [sandbox.living_processes(sandbox.sandbox_uid(slot, lane)) for lane in range(sandbox.LANES)] == [
            []
        ] * sandbox.LANES
    assert all(v.status in STATUSES for _, v, _ in verdicts), verdicts
    assert_verdicts(verdicts)
    by_name = {name: verdict for name, verdict, _ in verdicts}
    for attack in mfe_attacks():  # each compiled and ran, and its MFE is named where it was caught
        assert by_name[attack.name].status == "wrong", (attack.name, by_name[attack.name])
        assert (
            "MultipleFailureException" in by_name[attack.name].reason or "benchsmith: a " in by_name[attack.name].reason
        ), by_name[attack.name]
    assert digest(*protected) == before


def test_junit_platform_cannot_be_told_a_failing_test_passed(java_geometry_dataset, tmp_path):
    """The Java classbench runner (JUnit 4 tests through the vintage engine): the same MFE, between honest twins."""
    task = {t.class_name: t for t in read_records(java_geometry_dataset, ClassBenchTask)}["Rectangle"]
    gold = task.ground_truth_class

    # scale() stretches the width only; only RectangleTest (JUnit 4, through the vintage engine) calls it
    right, halfway = (
        "return new Rectangle(width * factor, height * factor);",
        "return new Rectangle(width * factor, height);",
    )
    assert right in gold
    wrong = gold.replace(right, halfway)
    hiding = gold.replace(right, raising(hack.EMPTY_MFE, hack.FAILING_TWIN_ON_THE_STACK) + "        " + halfway)
    hostile = [Attack("empty MFE, the failing twins read from their bytecode", hiding)]
    verdicts = class_task_verdicts(task, gold, wrong, hostile, tmp_path / "logs")
    assert all(v.status in STATUSES for _, v, _ in verdicts), verdicts
    assert_verdicts(verdicts)
    for attack in hostile:
        assert [v.status for n, v, _ in verdicts if n == attack.name] == ["wrong"], verdicts
