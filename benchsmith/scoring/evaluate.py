"""``benchsmith eval``: candidates JSONL → verdicts → results Parquet.

The dataset's benchmark (:mod:`benchsmith.benchmarks`) opens the runner of each
instance and says what makes two candidates the same program (its dedup key:
the token sequence, for both built-in benchmarks). Candidates of one instance
are deduplicated before anything runs; a duplicate shares its twin's verdict
and names it in ``duplicate_of``. Every verdict is appended to ``<out>.journal.jsonl`` as it
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
from pathlib import Path

import pyarrow.parquet as pq
from tqdm import tqdm

from benchsmith.benchmarks import Benchmark, CandidateRunner, EvalOptions, benchmark_of
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.export import write_records
from benchsmith.core.journal import Journal
from benchsmith.core.schema import Candidate, Result, read_candidates, read_records, read_stamp
from benchsmith.core.verdict import Verdict
from benchsmith.runners.sandbox import screen, streams
from benchsmith.runners.sandbox.executors import LocalExecutor, RayExecutor
from benchsmith.scoring.fingerprint import harness_fingerprint

log = logging.getLogger(__name__)


def logs_dir(out: Path) -> Path:
    return out.with_name(out.name + ".logs")


def verdict_context(record: object, options: EvalOptions, fingerprint: str) -> str:
    """Everything but the code that decides a verdict on *record*'s candidates, as canonical JSON."""
    verdict_options = {
        "fast": options.fast,
        "regression": options.regression,
        "limits": dataclasses.asdict(options.limits),
        "second_opinion": options.second_opinion,
    }
    return json.dumps(
        {"record": dataclasses.asdict(record), "harness": fingerprint, "options": verdict_options}, sort_keys=True
    )


def verdict_key(context: str, code: str) -> str:
    """The key a verdict on *code* is stored under: sha256 of its :func:`verdict_context` and the code."""
    return hashlib.sha256(json.dumps([context, code]).encode("ascii")).hexdigest()


def evaluate(options: EvalOptions, executor: LocalExecutor | RayExecutor | None = None) -> list[Result]:
    """Judge *options*' candidates, on *executor* (default: threads here, ``options.workers`` of them)."""
    options = _absolute(options)  # workers may run in other folders, or on other machines with the same paths
    benchmark = benchmark_of(options.dataset)
    records = benchmark.load(options.dataset)
    open_runner = benchmark.runners(options)
    candidates = read_candidates(options.candidates)
    _check_candidates(candidates, records, options.candidates)
    fingerprint = harness_fingerprint()
    contexts = {iid: verdict_context(records[iid], options, fingerprint) for iid in {c.instance_id for c in candidates}}
    keys = {(c.instance_id, c.candidate_id): verdict_key(contexts[c.instance_id], c.code) for c in candidates}
    done, discarded = _load_done(options.out, keys)
    if discarded:
        log.info(
            "%d stored verdicts discarded: their verdict key changed (the candidate's code, its dataset row, "
            "the harness or the options)",
            discarded,
        )
    by_instance: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        by_instance[candidate.instance_id].append(candidate)
    pending = {iid: cs for iid, cs in by_instance.items() if any((iid, c.candidate_id) not in done for c in cs)}
    todo = sum(1 for cs in pending.values() for c in cs if (c.instance_id, c.candidate_id) not in done)
    executor = executor or LocalExecutor(options.workers)
    log.info(
        "%d candidates: %d already judged, %d to judge, on the %s executor%s",
        len(candidates),
        len(candidates) - todo,
        todo,
        executor.name,
        f" (instead of {executor.instead_of})" if executor.instead_of else "",
    )
    journal = Journal(options.out)
    streams.open_ledger(logs_dir(options.out))  # the run's logs share one budget, resumed runs included
    lock = threading.Lock()
    bar = tqdm(total=todo, desc="judging candidates", unit="cand", mininterval=1.0)
    per_node: dict[str, int] = defaultdict(int)

    def record(result: Result, node: str) -> None:
        result = dataclasses.replace(result, node=node)
        with lock:
            pair = (result.instance_id, result.candidate_id)
            if pair in done:  # an instance started again after a lost worker streams its earlier verdicts no more
                return
            done[pair] = result
            journal.append(dataclasses.asdict(result))
            per_node[node] += 1
            bar.update(1)
            if len(per_node) > 1 or executor.name != "local":
                bar.set_postfix({name: count for name, count in sorted(per_node.items())}, refresh=False)

    def prepare(item: tuple[str, list[Candidate]]) -> tuple:
        instance_id, group = item
        with lock:  # what is recorded by now, so a restarted instance judges only the rest
            stored = {pair: result for pair, result in done.items() if pair[0] == instance_id}
        group_keys = {(instance_id, c.candidate_id): keys[(instance_id, c.candidate_id)] for c in group}
        return records[instance_id], group, stored, group_keys

    def judge(payload: tuple, slot: int, emit) -> None:
        record_, group, stored, group_keys = payload
        judge_instance(benchmark, open_runner, record_, group, slot, options, stored, group_keys, emit)

    try:
        executor.run(pending.items(), prepare, judge, record)
    finally:
        bar.close()
    results = [done[(c.instance_id, c.candidate_id)] for c in candidates]
    write_records(options.out, results, Result, benchmark=benchmark.name)
    journal.remove()
    return results


def _absolute(options: EvalOptions) -> EvalOptions:
    paths = {
        name: Path(value).resolve()
        for name in ("dataset", "candidates", "out", "defects4j", "repos")
        if (value := getattr(options, name)) is not None
    }
    return dataclasses.replace(options, **paths)


def _check_candidates(candidates: list[Candidate], instances: dict, source: Path) -> None:
    seen = set()
    for number, candidate in enumerate(candidates, start=1):
        if candidate.instance_id not in instances:
            raise BenchsmithError(f"{source}: candidate {number} names unknown instance {candidate.instance_id!r}")
        key = (candidate.instance_id, candidate.candidate_id)
        if key in seen:
            raise BenchsmithError(
                f"{source}: candidate id {candidate.candidate_id!r} repeats for {candidate.instance_id}"
            )
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
    """The results in *out*; one written by an older version (no stamp) reads with the fields it has, its verdict
    key empty where it had none, so none of it is reused."""

    if read_stamp(out) is not None:
        return read_records(out, Result)
    try:
        return [Result(**row) for row in pq.read_table(out).to_pylist()]
    except TypeError as exc:
        raise BenchsmithError(f"{out}: not a results file ({exc})") from None


def judge_instance(
    benchmark: Benchmark,
    open_runner,
    record_: object,
    group: list[Candidate],
    slot: int,
    options: EvalOptions,
    done: dict,
    keys: dict,
    record,
    messages: bool = False,
) -> None:
    """Judge *group*, the candidates of one instance, on one runner opened in *slot*, handing each Result to
    *record* (``eval`` and ``serve`` both judge through here). With *messages*, *record* gets ``(result,
    messages)`` instead: the failing tests' failure reports the runner saw (shared by a duplicate with its twin)."""
    # One execution per distinct token sequence of the instance, whatever the run; but a candidate is a
    # duplicate (Table 2) only of an earlier twin from its own run (model, strategy, temperature).
    # *done* holds only verdicts stored under the key computed now, so a twin's verdict is shared only when
    # the twin was judged, now or before, as it stands (its code, row, harness and options).
    twins: dict[str, Candidate] = {}
    run_twins: dict[tuple, Candidate] = {}
    tokens_of = {candidate.candidate_id: _dedup_key(benchmark, candidate.code) for candidate in group}
    for candidate in group:
        key = tokens_of[candidate.candidate_id]
        twins.setdefault(key, candidate)
        run_twins.setdefault((_run_of(candidate), key), candidate)
    instance_id = benchmark.instance_id(record_)
    project = benchmark.project_of(record_)
    truth = benchmark.ground_truth(record_) if benchmark.language else ""

    seen: dict[str, dict[str, str]] = {}  # candidate id -> the failure reports of its verdict

    def emit(result: Result, reports: dict[str, str] | None = None) -> None:
        reports = seen.setdefault(result.candidate_id, reports if reports is not None else {})
        record((result, reports) if messages else result)

    def screened(result: Result, code: str) -> Result:
        return dataclasses.replace(result, suspicious=screen.suspicious(code, truth, benchmark.language))

    logs = logs_dir(options.out) / _safe_name(instance_id)
    try:
        runner: CandidateRunner | None = open_runner(record_, slot, logs)
    except Exception as exc:  # the instance's workspace, not any candidate: each gets the harness's failure
        reason = str(exc) if isinstance(exc, BenchsmithError) else f"{type(exc).__name__}: {exc}"
        log.error("%s: %s", instance_id, reason)
        for candidate in group:
            if (instance_id, candidate.candidate_id) not in done:
                verdict = Verdict("error", reason=f"harness: {reason}")
                emit(_result(candidate, verdict, "", "", keys[(instance_id, candidate.candidate_id)], project))
        return
    try:
        verdicts: dict[str, Result] = {}
        for candidate in group:
            tokens = tokens_of[candidate.candidate_id]
            twin = twins[tokens]
            key = (instance_id, candidate.candidate_id)
            if key in done:
                verdicts[candidate.candidate_id] = done[key]
                continue
            if twin.candidate_id != candidate.candidate_id:
                first = verdicts.get(twin.candidate_id) or done.get((instance_id, twin.candidate_id))
                run_twin = run_twins[(_run_of(candidate), tokens)]
                duplicate_of = run_twin.candidate_id if run_twin.candidate_id != candidate.candidate_id else ""
                shared = dataclasses.replace(
                    first,
                    candidate_id=candidate.candidate_id,
                    duplicate_of=duplicate_of,
                    seconds=0.0,
                    model=candidate.model,
                    strategy=candidate.strategy,
                    verdict_key=keys[key],
                    iteration=candidate.iteration,
                )
                verdicts[candidate.candidate_id] = shared
                emit(shared, seen.get(twin.candidate_id, {}))
                continue
            try:
                runner = runner or open_runner(record_, slot, logs)
                verdict = runner.evaluate(candidate.code, _safe_name(candidate.candidate_id))
                result = screened(
                    _result(
                        candidate,
                        verdict,
                        "",
                        str(logs / f"{_safe_name(candidate.candidate_id)}.log"),
                        keys[key],
                        project,
                    ),
                    candidate.code,
                )
            except Exception as exc:
                # Whatever the harness could not do with this candidate is this candidate's verdict alone; the runner
                # it may have left half-way is closed, and the next candidate gets a fresh one.
                log.exception("%s: judging %s failed", instance_id, candidate.candidate_id)
                verdict = Verdict(
                    "error", reason=f"harness: {type(exc).__name__} judging this candidate: {str(exc)[:300]}"
                )
                result = _result(candidate, verdict, "", "", keys[key], project)
                if runner is not None:
                    _close_quietly(runner, instance_id)
                    runner = None
            verdicts[candidate.candidate_id] = result
            emit(result, dict(verdict.messages))
    finally:
        if runner is not None:
            _close_quietly(runner, instance_id)


def _dedup_key(benchmark: Benchmark, code: str) -> str:
    """*benchmark*'s dedup key of *code*; where computing it fails, the code's exact bytes, so only an identical
    candidate shares its verdict."""
    try:
        return benchmark.dedup_key(code)
    except Exception:
        log.exception("dedup key of a candidate: keyed by its exact bytes instead")
        return "bytes:" + hashlib.sha256(code.encode("utf-8", errors="surrogatepass")).hexdigest()


def _close_quietly(runner: CandidateRunner, instance_id: str) -> None:
    try:
        runner.close()
    except Exception:
        log.exception("%s: closing its runner failed", instance_id)


def _run_of(candidate: Candidate) -> tuple:
    return (candidate.model, candidate.strategy, candidate.temperature)


def _result(
    candidate: Candidate, verdict: Verdict, duplicate_of: str, log_path: str, verdict_key: str, project: str
) -> Result:
    return Result(
        instance_id=candidate.instance_id,
        candidate_id=candidate.candidate_id,
        status=verdict.status,
        compiled=verdict.compiled,
        tests_passed=verdict.tests_passed,
        tests_failed=verdict.tests_failed,
        failing_tests=list(verdict.failing_tests),
        duplicate_of=duplicate_of,
        seconds=round(verdict.seconds, 3),
        log_path=log_path,
        reason=verdict.reason,
        runner=verdict.path,
        regression_passed=verdict.regression_passed,
        model=candidate.model,
        strategy=candidate.strategy,
        verdict_key=verdict_key,
        project=project,
        iteration=candidate.iteration,
    )


def _safe_name(candidate_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in candidate_id)[:120]
