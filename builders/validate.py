"""Prove each NL2Fix instance is real by executing it.

The gold (fixed) method must compile and pass every trigger test and every
relevant test class, twice with the same outcome; the buggy method must fail
each trigger test, run one at a time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import threading
from collections import Counter
from pathlib import Path

from tqdm import tqdm

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.journal import Journal
from benchsmith.core.schema import NL2FixInstance, Validation
from benchsmith.runners.java.defects4j_workspace import Workspace, guard_forbidden_tests, prepare
from benchsmith.runners.java.method_runner import InstanceRunner, Tests
from benchsmith.runners.sandbox.executors import LocalExecutor, RayExecutor
from benchsmith.runners.sandbox.jail import Limits
from benchsmith.scoring.fingerprint import harness_fingerprint
from benchsmith.sources.defects4j import Defects4JRoot

log = logging.getLogger(__name__)


def validate_instance(
    instance: NL2FixInstance, d4j: Defects4JRoot, repos: Path | None, slot: int, limits: Limits, logs: Path
) -> Validation:
    """Execute gold and buggy; the outcome and its reason."""
    try:
        workspace = prepare(instance, d4j, repos)
        excluded = [
            *d4j.broken_tests(instance.project, instance.revision_fixed),
            *guard_forbidden_tests(workspace, instance),
        ]
        runner = InstanceRunner(instance, workspace, slot, limits, logs / instance.instance_id, excluded)
    except BenchsmithError as exc:
        return Validation("not reproduced", f"build broken: {exc}")
    try:
        return _gold_then_buggy(instance, runner, workspace, excluded)
    except BenchsmithError as exc:  # the harness could not judge (a reference run that timed out): this instance only
        return Validation("not reproduced", f"harness: {exc}")
    finally:
        runner.close()


def _gold_then_buggy(
    instance: NL2FixInstance, runner: InstanceRunner, workspace: Workspace, excluded: list[str]
) -> Validation:
    """Gold twice with every test, then buggy on each trigger test alone."""
    everything = Tests.for_instance(instance, excluded, stop_early=False)
    gold = runner.evaluate(instance.fixed_method, "gold", tests=everything)
    if gold.status != "plausible":
        missing = f" (the history lacks {', '.join(workspace.missing_files)})" if workspace.missing_files else ""
        return Validation("not reproduced", f"gold is {gold.status}{missing}: {gold.reason}")
    again = runner.evaluate(instance.fixed_method, "gold-again", tests=everything)
    if again.status != "plausible":
        return Validation("not reproduced", f"flaky: gold passed once, then was {again.status}: {again.reason}")
    if not instance.trigger_tests:
        return Validation("not reproduced", "no trigger tests")
    for trigger in instance.trigger_tests:
        buggy = runner.evaluate(instance.buggy_method, "buggy", tests=Tests([trigger], []))
        if buggy.status == "plausible":
            return Validation("not reproduced", f"buggy passes trigger test {trigger}")
        # A timeout the harness's own step had (javac killed at every try) says nothing of the buggy method's tests.
        if buggy.status in ("uncompilable", "error") or buggy.reason.startswith("harness:"):
            return Validation("not reproduced", f"buggy is {buggy.status}: {buggy.reason}")
    return Validation(
        "reproduced",
        f"gold passes {gold.tests_passed} tests twice; buggy fails all {len(instance.trigger_tests)} trigger tests",
    )


def validation_key(instance: NL2FixInstance, limits: Limits, fingerprint: str | None = None) -> str:
    """What a journalled outcome is stored under: sha256 of the instance row, the harness and the limits."""
    fingerprint = fingerprint or harness_fingerprint()
    record = [dataclasses.asdict(instance), fingerprint, dataclasses.asdict(limits)]
    return hashlib.sha256(json.dumps(record, sort_keys=True, default=str).encode()).hexdigest()


def validate_all(
    instances: list[NL2FixInstance],
    d4j: Defects4JRoot,
    repos: Path | None,
    workers: int,
    limits: Limits,
    logs: Path,
    executor: LocalExecutor | RayExecutor | None = None,
    out: Path | None = None,
) -> dict[str, Validation]:
    """Every instance's validation, on *executor* (default: *workers* threads here). With *out*, each is journalled
    beside it as it finishes, so that an interrupted run resumes; the caller removes the journal
    (``Journal(out).remove()``) once *out* is written."""
    journal = Journal(out) if out is not None else None
    # An outcome is reused only for the same instance row, harness and limits: one journalled by older code is stale
    fingerprint = harness_fingerprint()
    keys = {i.instance_id: validation_key(i, limits, fingerprint) for i in instances}
    outcomes: dict[str, Validation] = {}
    stale = 0
    if journal is not None:
        for instance_id, key, validation in journal.read(
            lambda e: (e["instance_id"], e.get("key"), Validation(e["status"], e["reason"]))
        ):
            if keys.get(instance_id) == key:
                outcomes[instance_id] = validation
            elif instance_id in keys:
                stale += 1
        if outcomes:
            log.info("%s: %d of %d instances validated before; resuming", journal.path, len(outcomes), len(instances))
        if stale:
            log.info(
                "%s: %d outcomes discarded: their instance, the harness or the limits changed", journal.path, stale
            )
    pending = [i for i in instances if i.instance_id not in outcomes]
    bar = tqdm(total=len(instances), initial=len(outcomes), desc="validating", unit="bug", mininterval=1.0)
    logs = logs.resolve()
    repos = repos.resolve() if repos is not None else None

    def work(instance: NL2FixInstance, slot: int, emit) -> None:
        emit((instance.instance_id, validate_instance(instance, d4j, repos, slot, limits, logs)))

    lock = threading.Lock()

    def record(output: tuple[str, Validation], node: str) -> None:
        instance_id, validation = output
        with lock:  # outputs arrive from the executor's threads
            outcomes[instance_id] = validation
            if journal is not None:
                journal.append(
                    {
                        "instance_id": instance_id,
                        "key": keys[instance_id],
                        "status": validation.status,
                        "reason": validation.reason,
                    }
                )
            bar.update(1)
        if validation.status != "reproduced":
            log.info("%s: %s (on %s)", instance_id, validation.reason, node)

    try:
        (executor or LocalExecutor(workers)).run(pending, lambda instance: instance, work, record)
    finally:
        bar.close()
    return {i.instance_id: outcomes[i.instance_id] for i in instances}


def summary(outcomes: dict[str, Validation]) -> dict:
    statuses = Counter(v.status for v in outcomes.values())
    reasons = Counter(v.reason.split(":")[0] for v in outcomes.values() if v.status != "reproduced")
    return {"instances": len(outcomes), **dict(statuses), "not reproduced by reason": dict(reasons.most_common())}
