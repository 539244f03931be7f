"""A verdict is about the candidate, never about the machine's load (issue 39).

What the harness runs for itself and the wall clock ends (javac, the warm compiler) is tried again with more time;
when every try is ended, the candidate is ``timeout`` with a reason naming the step and the time it had, never
``uncompilable``, which says something about its code. The failures are made on purpose, not by loading the machine:
a wall clock too short for any javac to start (no JVM starts in 50 ms, whatever the load), and a warm compiler that
is frozen (SIGSTOP) and so gives no answer at all.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.runners.java.class_runner import ClassTaskRunner, task_workspace
from benchsmith.runners.java.jvm import COMPILER_LANE
from benchsmith.runners.java.method_runner import InstanceRunner
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.runners.sandbox.jail import Limits
from benchsmith.runners.sandbox.retries import Killed, OutOfTime, retried

ENOUGH = Limits(wall_seconds=60)
STARVED = Limits(wall_seconds=0.05)  # less than any JVM takes to start, so javac is killed at each of its tries


def uncompilable_twin(method: str) -> str:
    """*method* with a statement that parses and that javac rejects (a type error)."""
    at = method.index("{") + 1
    return method[:at] + ' int unusedNumber = "text"; ' + method[at:]


def test_a_step_the_wall_clock_ends_is_tried_again_with_twice_the_time():
    given: list[float] = []

    def late_twice(seconds: float) -> str:
        given.append(seconds)
        if len(given) < 3:
            raise Killed("javac", seconds)
        return "compiled"

    assert retried(late_twice, "javac of Ledger-1", 8) == "compiled" and given == [8, 16, 32]

    def always_late(seconds: float) -> None:
        given.append(seconds)
        raise Killed("javac", seconds)

    given.clear()
    with pytest.raises(OutOfTime) as caught:
        retried(always_late, "javac of Ledger-1", 8)
    assert given == [8, 16, 32] and caught.value.seconds == given
    assert str(caught.value).startswith(
        "javac of Ledger-1 was killed by the wall clock at each of 3 tries (after 8 s, 16 s, 32 s)"
    )

    def broken(seconds: float) -> None:  # what is not the wall clock's doing is not tried again
        given.append(seconds)
        raise ValueError("not a timeout")

    given.clear()
    with pytest.raises(ValueError):
        retried(broken, "javac", 8)
    assert given == [8]


def starved_then_fed(runner: InstanceRunner, gold: str, broken: str, logs) -> None:
    """On the plain path: javac starved of time gives both candidates ``timeout``, naming javac and each time it had;
    given time again, the same runner gives the honest verdicts."""
    try:
        # The runner's own set-up (warm compiler, sentinel tests, the ground truth's reference run) with time.
        assert runner.evaluate(gold, "gold-first", fast=False).status == "plausible"
        runner.limits = STARVED
        starved = {
            name: runner.evaluate(code, f"{name}-starved", fast=False)
            for name, code in (("gold", gold), ("broken", broken))
        }
        runner.limits = ENOUGH
        fed = {
            name: runner.evaluate(code, f"{name}-fed", fast=False)
            for name, code in (("gold", gold), ("broken", broken))
        }
    finally:
        runner.close()
    for name, verdict in starved.items():
        assert verdict.status == "timeout", (name, verdict)
        assert verdict.reason == (
            f"harness: {runner.label}: javac of the main sources was killed by the wall clock at each of 3 tries "
            "(after 0.05 s, 0.1 s, 0.2 s): the machine is too busy for the time allowed (--timeout), or the "
            "candidate makes that step so slow"
        ), name
        log = (logs / f"{name}-starved.log").read_text()
        assert log.count("[javac killed by the wall clock after") == 3, log
    assert fed["gold"].status == "plausible", fed["gold"]
    assert fed["broken"].status == "uncompilable" and "incompatible types" in fed["broken"].reason, fed["broken"]


@pytest.mark.java
@pytest.mark.slow
def test_javac_killed_at_every_try_is_a_timeout_naming_javac_and_enough_time_gives_the_honest_verdict(
    tmp_path, ledger_instances, ledger_workspace
):
    instance = ledger_instances["Ledger-1"]
    with sandbox.leased_slot() as slot:
        runner = InstanceRunner(instance, ledger_workspace("Ledger-1"), slot, ENOUGH, tmp_path / "logs")
        starved_then_fed(runner, instance.fixed_method, uncompilable_twin(instance.fixed_method), tmp_path / "logs")


@pytest.mark.java
@pytest.mark.slow
def test_the_same_on_a_java_classbench_task(tmp_path, java_geometry_dataset):
    task = next(t for t in read_records(java_geometry_dataset, ClassBenchTask) if t.class_name == "Canvas")
    gold = task.ground_truth_class
    broken = gold.replace("shapes.clear();", 'shapes.clear(); int unusedNumber = "text";', 1)
    assert broken != gold
    with sandbox.leased_slot() as slot:
        runner = ClassTaskRunner(task, task_workspace(task), slot, ENOUGH, tmp_path / "logs")
        starved_then_fed(runner, gold, broken, tmp_path / "logs")


@pytest.mark.java
@pytest.mark.slow
def test_a_warm_compiler_that_gives_no_answer_is_started_again_and_the_compile_tried_with_more_time(
    tmp_path, ledger_instances, ledger_workspace, caplog
):
    instance = ledger_instances["Ledger-1"]
    if sandbox.sandbox_uid(0, COMPILER_LANE) is None:
        pytest.skip("the warm compiler is found by its sandbox uid, which needs root")
    gold, buggy = instance.fixed_method, instance.buggy_method
    with sandbox.leased_slot() as slot:
        runner = InstanceRunner(instance, ledger_workspace("Ledger-1"), slot, ENOUGH, tmp_path / "logs")
        try:
            assert runner.evaluate(gold, "gold-first").status == "plausible"
            first = runner._compiler.process.pid
            runner.limits = Limits(wall_seconds=5)  # the frozen compiler is waited for 5 s, its successor 10 s
            verdicts = {}
            for name, code in (("gold", gold), ("buggy", buggy)):
                frozen = sandbox.living_processes(sandbox.sandbox_uid(slot, COMPILER_LANE))
                assert frozen
                for pid in frozen:
                    os.kill(pid, signal.SIGSTOP)
                with caplog.at_level(logging.WARNING, logger="benchsmith.runners.sandbox.retries"):
                    verdicts[name] = runner.evaluate(code, f"{name}-frozen")
            second = runner._compiler.process.pid
        finally:
            runner.close()
    assert verdicts["gold"].status == "plausible" and verdicts["gold"].path == "fast", verdicts["gold"]
    assert verdicts["buggy"].status == "wrong" and verdicts["buggy"].path == "fast", verdicts["buggy"]
    assert second != first
    retries = [r.getMessage() for r in caplog.records if "javac in the warm compiler failed" in r.getMessage()]
    assert (
        retries
        == [
            "Ledger-1: javac in the warm compiler failed (javac in the warm compiler was killed after 5 s); "
            "trying again with 10 s (2 of 3)"
        ]
        * 2
    )


class JavacKiller:
    """Kills the runner's javac processes with SIGKILL as they appear, as the kernel's out-of-memory killer would on a
    loaded machine: javac then ends with no word about the code. *times* javac processes, or every one."""

    def __init__(self, box, times: int | None = None):
        self.box, self.times, self.killed = str(box), times, []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> JavacKiller:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopped.set()
        self.thread.join()

    def _watch(self) -> None:
        while not self.stopped.is_set() and (self.times is None or len(self.killed) < self.times):
            for entry in os.listdir("/proc"):
                try:
                    argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
                except (OSError, ValueError):
                    continue
                if argv[0].endswith(b"/javac") and any(self.box.encode() in a for a in argv):
                    try:
                        os.kill(int(entry), signal.SIGKILL)
                    except ProcessLookupError:
                        continue
                    if int(entry) not in self.killed:
                        self.killed.append(int(entry))
            time.sleep(0.005)


@pytest.mark.java
@pytest.mark.slow
def test_javac_killed_without_a_word_is_tried_again_and_never_the_candidates_compile_error(
    tmp_path, ledger_instances, ledger_workspace
):
    """The plain path once judged Time-25/codellama-7 "uncompilable" on a machine loaded to 17: javac ended with no
    output at all, and the verdict was read from its exit code. A javac that says nothing of the code is the machine's
    failure: it is tried again, and when it dies at every try the candidate's verdict is ``error``, never
    ``uncompilable``."""
    instance = ledger_instances["Ledger-1"]
    gold, buggy = instance.fixed_method, instance.buggy_method
    logs = tmp_path / "logs"
    with sandbox.leased_slot() as slot:
        runner = InstanceRunner(instance, ledger_workspace("Ledger-1"), slot, ENOUGH, logs)
        try:
            assert runner.evaluate(gold, "gold-first", fast=False).status == "plausible"
            with JavacKiller(runner.box, times=1) as once:
                killed_once = runner.evaluate(buggy, "buggy-killed-once", fast=False)
            with JavacKiller(runner.box) as always:
                killed_always = runner.evaluate(gold, "gold-killed-always", fast=False)
            broken = runner.evaluate(uncompilable_twin(gold), "broken", fast=False)
        finally:
            runner.close()
    assert len(once.killed) == 1 and len(always.killed) == 3, (once.killed, always.killed)
    assert killed_once.status == "wrong", killed_once
    assert "[javac was killed by signal 9, saying nothing of the code]" in (logs / "buggy-killed-once.log").read_text()
    assert killed_always.status == "error", killed_always
    assert killed_always.reason == (
        "harness: Ledger-1: javac of the main sources was killed by signal 9, saying nothing of the code, at each of 3 "
        "tries"
    )
    assert broken.status == "uncompilable" and "incompatible types" in broken.reason, broken
