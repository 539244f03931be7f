"""``benchsmith eval`` for NL2Fix: candidates JSONL → verdicts → results Parquet.

Candidates of one instance are deduplicated by their token sequence before
anything runs; a duplicate shares its twin's verdict and names it in
``duplicate_of``. Every verdict is appended to ``<out>.journal.jsonl`` as it
is reached, so an interrupted evaluation resumes where it stopped; the
Parquet file is written, atomically, once all candidates have a verdict.

Each verdict carries a ``verdict_key``: the hash of everything that decided
it (the candidate's code, its dataset row, the harness's fingerprint and the
options that change verdicts). A stored verdict, from ``--out`` or the
journal, is reused only under the key computed now; any other is judged again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from tqdm import tqdm

from benchsmith.atomic import atomic_path
from benchsmith.errors import BenchsmithError
from benchsmith.journal import Journal
from benchsmith.schema import (
    RESULT_SCHEMA,
    Candidate,
    ClassBenchTask,
    NL2FixInstance,
    Result,
    dataset_kind,
    read_candidates,
    read_records,
    to_table,
)
from sources.defects4j import Defects4JRoot
from harness.fingerprint import harness_fingerprint
from harness.insertion import dedup_key
from harness.java_runner import InstanceRunner, Tests, Verdict
from harness.pool import per_instance
from harness.sandbox import Limits
from harness.workspace import prepare

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EvalOptions:
    dataset: Path
    candidates: Path
    out: Path
    defects4j: Path | None = None  # NL2Fix datasets only
    repos: Path | None = None
    workers: int = 2
    limits: Limits = Limits()
    fast: bool = True
    regression: bool = False  # run the relevant tests even after a trigger test fails (Table 2's "Regression")


def logs_dir(out: Path) -> Path:
    return out.with_name(out.name + ".logs")


@dataclass(frozen=True)
class _Benchmark:
    """What differs between the datasets: their records, how a candidate runs, what makes two candidates the same."""

    records: dict
    runner: Callable  # (record, slot, logs) -> an object with evaluate(code, name) -> Verdict and close()
    dedup: Callable[[str], str]


def _benchmark(options: EvalOptions) -> _Benchmark:
    if dataset_kind(options.dataset) == "classbench":
        from harness.python_runner import TaskRunner, python_dedup_key

        tasks = {t.task_id: t for t in read_records(options.dataset, ClassBenchTask)}
        return _Benchmark(tasks, lambda task, slot, logs: TaskRunner(task, slot, options.limits, logs), python_dedup_key)
    if options.defects4j is None:
        raise BenchsmithError(f"{options.dataset}: an NL2Fix dataset needs --defects4j")
    d4j = Defects4JRoot(options.defects4j)
    instances = {i.instance_id: i for i in read_records(options.dataset, NL2FixInstance)}

    def java_runner(instance: NL2FixInstance, slot: int, logs: Path):
        excluded = d4j.broken_tests(instance.project, instance.revision_fixed)
        runner = InstanceRunner(instance, prepare(instance, d4j, options.repos), slot, options.limits, logs, excluded)
        tests = Tests.for_instance(instance, excluded, stop_early=not options.regression)
        return _JavaCandidates(runner, tests, options.fast)

    return _Benchmark(instances, java_runner, dedup_key)


@dataclass
class _JavaCandidates:
    runner: InstanceRunner
    tests: Tests
    fast: bool

    def evaluate(self, code: str, name: str) -> Verdict:
        return self.runner.evaluate(code, name, fast=self.fast, tests=self.tests)

    def close(self) -> None:
        self.runner.close()


def verdict_context(record: object, options: EvalOptions, fingerprint: str) -> str:
    """Everything but the code that decides a verdict on *record*'s candidates, as canonical JSON."""
    verdict_options = {"fast": options.fast, "regression": options.regression,
                       "limits": dataclasses.asdict(options.limits)}  # fmt: skip
    return json.dumps({"record": dataclasses.asdict(record), "harness": fingerprint, "options": verdict_options},
                      sort_keys=True)  # fmt: skip


def verdict_key(context: str, code: str) -> str:
    """The key a verdict on *code* is stored under: sha256 of its :func:`verdict_context` and the code."""
    return hashlib.sha256(json.dumps([context, code]).encode("ascii")).hexdigest()


def evaluate(options: EvalOptions) -> list[Result]:
    benchmark = _benchmark(options)
    candidates = read_candidates(options.candidates)
    _check_candidates(candidates, benchmark.records, options.candidates)
    fingerprint = harness_fingerprint()
    contexts = {iid: verdict_context(benchmark.records[iid], options, fingerprint)
                for iid in {c.instance_id for c in candidates}}  # fmt: skip
    keys = {(c.instance_id, c.candidate_id): verdict_key(contexts[c.instance_id], c.code) for c in candidates}
    done, discarded = _load_done(options.out, keys)
    if discarded:
        log.info("%d stored verdicts discarded: their verdict key changed (the candidate's code, its dataset row, "
                 "the harness or the options)", discarded)  # fmt: skip
    by_instance: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        by_instance[candidate.instance_id].append(candidate)
    pending = {iid: cs for iid, cs in by_instance.items() if any((iid, c.candidate_id) not in done for c in cs)}
    todo = sum(1 for cs in pending.values() for c in cs if (c.instance_id, c.candidate_id) not in done)
    log.info("%d candidates: %d already judged, %d to judge", len(candidates), len(candidates) - todo, todo)
    journal = Journal(options.out)
    lock = threading.Lock()
    bar = tqdm(total=todo, desc="judging candidates", unit="cand", mininterval=1.0)

    def record(result: Result) -> None:
        with lock:
            done[(result.instance_id, result.candidate_id)] = result
            journal.append(dataclasses.asdict(result))
            bar.update(1)

    def judge(item: tuple[str, list[Candidate]], slot: int) -> None:
        instance_id, group = item
        _judge_instance(benchmark, benchmark.records[instance_id], instance_id, group, slot, options, done, keys,
                        record)  # fmt: skip

    try:
        for _ in per_instance(pending.items(), judge, options.workers):
            pass
    finally:
        bar.close()
    results = [done[(c.instance_id, c.candidate_id)] for c in candidates]
    with atomic_path(options.out) as tmp:
        pq.write_table(to_table(results, Result), tmp)
    journal.remove()
    return results


def _check_candidates(candidates: list[Candidate], instances: dict, source: Path) -> None:
    seen = set()
    for number, candidate in enumerate(candidates, start=1):
        if candidate.instance_id not in instances:
            raise BenchsmithError(f"{source}: candidate {number} names unknown instance {candidate.instance_id!r}")
        key = (candidate.instance_id, candidate.candidate_id)
        if key in seen:
            raise BenchsmithError(f"{source}: candidate id {candidate.candidate_id!r} repeats for {candidate.instance_id}")
        seen.add(key)


def _load_done(out: Path, keys: dict[tuple[str, str], str]) -> tuple[dict[tuple[str, str], Result], int]:
    """The stored verdicts (results file, then journal) whose verdict key is *keys*'s, and how many of *keys*'s
    candidates had stored verdicts under other keys only (verdicts of candidates no longer asked for are ignored)."""
    stored = _stored_results(out) if out.exists() else []
    stored += Journal(out).read(lambda entry: Result(**entry))
    done: dict[tuple[str, str], Result] = {}
    stale: set[tuple[str, str]] = set()
    for result in stored:
        pair = (result.instance_id, result.candidate_id)
        if pair not in keys:
            continue
        if result.verdict_key == keys[pair]:
            done[pair] = result
        else:
            stale.add(pair)
    return done, len(stale - done.keys())


def _stored_results(out: Path) -> list[Result]:
    """The results in *out*; one written before verdict keys reads with an empty key, so none of it is reused."""
    try:
        names = pq.read_schema(out).names
    except (pa.ArrowInvalid, OSError):
        names = None  # read_records says what is wrong
    if names == [n for n in RESULT_SCHEMA.names if n != "verdict_key"]:
        return [Result(**row) for row in pq.read_table(out).to_pylist()]
    return read_records(out, Result)


def _judge_instance(benchmark: _Benchmark, record_: object, instance_id: str, group: list[Candidate], slot: int,
                    options: EvalOptions, done: dict, keys: dict, record) -> None:  # fmt: skip
    # One execution per distinct token sequence of the instance, whatever the run; but a candidate is a
    # duplicate (Table 2) only of an earlier twin from its own run (model, strategy, temperature).
    # *done* holds only verdicts stored under the key computed now, so a twin's verdict is shared only when
    # the twin was judged, now or before, as it stands (its code, row, harness and options).
    twins: dict[str, Candidate] = {}
    run_twins: dict[tuple, Candidate] = {}
    for candidate in group:
        key = benchmark.dedup(candidate.code)
        twins.setdefault(key, candidate)
        run_twins.setdefault((_run_of(candidate), key), candidate)
    logs = logs_dir(options.out) / _safe_name(instance_id)
    try:
        runner = benchmark.runner(record_, slot, logs)
    except BenchsmithError as exc:
        log.error("%s: %s", instance_id, exc)
        for candidate in group:
            if (instance_id, candidate.candidate_id) not in done:
                verdict = Verdict("error", reason=f"harness: {exc}")
                record(_result(candidate, verdict, "", "", keys[(instance_id, candidate.candidate_id)]))
        return
    try:
        verdicts: dict[str, Result] = {}
        for candidate in group:
            tokens = benchmark.dedup(candidate.code)
            twin = twins[tokens]
            key = (instance_id, candidate.candidate_id)
            if key in done:
                verdicts[candidate.candidate_id] = done[key]
                continue
            if twin.candidate_id != candidate.candidate_id:
                first = verdicts.get(twin.candidate_id) or done.get((instance_id, twin.candidate_id))
                run_twin = run_twins[(_run_of(candidate), tokens)]
                duplicate_of = run_twin.candidate_id if run_twin.candidate_id != candidate.candidate_id else ""
                shared = dataclasses.replace(first, candidate_id=candidate.candidate_id, duplicate_of=duplicate_of,
                                             seconds=0.0, model=candidate.model, strategy=candidate.strategy,
                                             verdict_key=keys[key])  # fmt: skip
                verdicts[candidate.candidate_id] = shared
                record(shared)
                continue
            verdict = runner.evaluate(candidate.code, _safe_name(candidate.candidate_id))
            result = _result(candidate, verdict, "", str(logs / f"{_safe_name(candidate.candidate_id)}.log"), keys[key])
            verdicts[candidate.candidate_id] = result
            record(result)
    finally:
        runner.close()


def _run_of(candidate: Candidate) -> tuple:
    return (candidate.model, candidate.strategy, candidate.temperature)


def _result(candidate: Candidate, verdict: Verdict, duplicate_of: str, log_path: str, verdict_key: str) -> Result:
    return Result(
        instance_id=candidate.instance_id, candidate_id=candidate.candidate_id, status=verdict.status,
        compiled=verdict.compiled, tests_passed=verdict.tests_passed, tests_failed=verdict.tests_failed,
        failing_tests=list(verdict.failing_tests), duplicate_of=duplicate_of, seconds=round(verdict.seconds, 3),
        log_path=log_path, reason=verdict.reason, runner=verdict.path, regression_passed=verdict.regression_passed,
        model=candidate.model, strategy=candidate.strategy, verdict_key=verdict_key,
    )  # fmt: skip


def _safe_name(candidate_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in candidate_id)[:120]
