"""What the server judges with: its datasets, and the workers that take jobs from the store to the benchmark's runners.

The judging path is ``eval``'s (:func:`benchsmith.scoring.evaluate.judge_instance`): the dataset's benchmark opens a
runner for the instance in a leased sandbox slot, one sandboxed process judges each candidate, and the screen flags
what it uses. A worker claims the queued jobs of one instance that no other worker is judging (up to ``batch`` of
them: like eval, the server judges an instance in one place at a time) and hands them, as one item, to the executor
``eval`` uses (threads here, or a Ray cluster); identical code in one batch runs once and shares its
verdict, as in ``eval``. Each verdict becomes an answer (:func:`answer_of`) recorded in the store.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchsmith.benchmarks import Benchmark, CandidateRunner, EvalOptions, benchmark_of
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import Candidate, Result
from benchsmith.core.verdict import Status
from benchsmith.runners.sandbox import streams
from benchsmith.runners.sandbox.executors import LocalExecutor, RayExecutor, local_node
from benchsmith.runners.sandbox.jail import leased_slot
from benchsmith.scoring.evaluate import judge_instance, logs_dir, verdict_context, verdict_key
from benchsmith.scoring.fingerprint import harness_fingerprint
from benchsmith.serve.feedback import feedback_of
from benchsmith.serve.store import Job, Store

log = logging.getLogger(__name__)

REWARDS = ("plausible", "pass-rate")
WARM = 3  # runners a local worker keeps open


@dataclass
class ServedDataset:
    """One dataset the server judges: its name in requests, benchmark, records and the options ``eval`` would take."""

    name: str
    benchmark: Benchmark
    records: dict
    options: EvalOptions
    open_runner: Callable
    contexts: dict[str, str] = dataclasses.field(default_factory=dict)


def open_datasets(paths: list[Path], options: EvalOptions, store: Path) -> dict[str, ServedDataset]:
    """The datasets at *paths*, by name (the file's stem), each judged with *options* (its dataset put in)."""
    served: dict[str, ServedDataset] = {}
    for path in paths:
        path = Path(path).resolve()
        name = path.stem
        if name in served:
            raise BenchsmithError(f"--dataset {path}: another dataset is already served as {name!r} (rename one)")
        benchmark = benchmark_of(path)
        out = store / "runs" / name / "results.parquet"  # never written: its .logs folder holds the runs' logs
        dataset_options = dataclasses.replace(options, dataset=path, candidates=path, out=out)
        streams.open_ledger(logs_dir(out))
        served[name] = ServedDataset(
            name, benchmark, benchmark.load(path), dataset_options, benchmark.runners(dataset_options)
        )
    return served


def reward_of(benchmark: Benchmark, result: Result, kind: str) -> float:
    """NL2Fix: 1 for plausible, else 0. Classbench: the same with "plausible"; with "pass-rate", the share of its
    tests a candidate that compiled and ran passed (1 for plausible, 0 for anything that did not run its tests)."""
    if result.status == Status.PLAUSIBLE:
        return 1.0
    if benchmark.name.startswith("classbench") and kind == "pass-rate" and result.status == Status.WRONG:
        total = result.tests_passed + result.tests_failed
        return round(result.tests_passed / total, 6) if total else 0.0
    return 0.0


def answer_of(served: ServedDataset, job: Job, result: Result, messages: dict[str, str]) -> dict:
    """What the client hears of a verdict: never the log's path, the ground truth or a test's source."""
    record = served.records[job.instance_id]
    truth = served.benchmark.ground_truth(record) if served.benchmark.language else ""
    return {
        "job_id": job.job_id,
        "dataset": served.name,
        "instance_id": job.instance_id,
        "candidate_id": job.candidate_id,
        "status": str(result.status),
        "reward": reward_of(served.benchmark, result, job.reward),
        "compiled": result.compiled,
        "tests_passed": result.tests_passed,
        "tests_failed": result.tests_failed,
        "failing_tests": list(result.failing_tests),
        "feedback": feedback_of(result, messages, job.code, truth),
        "suspicious": result.suspicious,
        "seconds": result.seconds,
    }


class Judges:
    """Worker threads that take jobs from *store* and judge them on *executor*, calling *on_done* with each job id."""

    def __init__(
        self,
        datasets: dict[str, ServedDataset],
        store: Store,
        executor: LocalExecutor | RayExecutor,
        workers: int,
        batch: int,
        on_done: Callable[[str], None],
    ):
        self.datasets = datasets
        self.store = store
        self.executor = executor
        self.workers = max(1, workers)
        self.batch = max(1, batch)
        self.on_done = on_done
        self.fingerprint = harness_fingerprint()
        self.judged = 0  # verdicts recorded by this process (a duplicate in a batch counts, as it is answered)
        self.by_status: dict[str, int] = {str(s): 0 for s in Status}
        self.seconds_total = 0.0
        self.busy = 0
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        # The instances being judged now: never two batches of one instance at once (opening a runner may prepare
        # what the instance's other runs use: a local folder's fresh copy, its environment), as in eval.
        self._instances: set[tuple[str, str]] = set()
        self._claiming = threading.Lock()

    def start(self) -> None:
        requeued = self.store.requeue_running()
        if requeued:
            log.warning("%d jobs were being judged when the server stopped: queued again", requeued)
        for number in range(self.workers):
            thread = threading.Thread(target=self._loop, name=f"judge-{number}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def wake(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join(timeout)

    def _loop(self) -> None:
        if isinstance(self.executor, LocalExecutor):
            with leased_slot() as slot:
                warm = WarmRunners(slot)
                try:
                    self._serve_jobs(warm)
                finally:
                    warm.close()
        else:
            self._serve_jobs(None)

    def _serve_jobs(self, warm: WarmRunners | None) -> None:
        while not self._stop.is_set():
            with self._claiming:  # one instance is judged by one worker at a time, as eval judges it
                try:
                    jobs = self.store.claim(self.batch, self._instances)
                except Exception:  # the store is busy or closing: try again shortly
                    log.exception("could not claim jobs")
                    jobs = []
                if jobs:
                    instance = (jobs[0].dataset, jobs[0].instance_id)
                    self._instances.add(instance)
            if not jobs:
                self._wake.wait(0.5)
                self._wake.clear()
                continue
            with self._lock:
                self.busy += 1
            try:
                self._judge(jobs, warm)
            finally:
                with self._claiming:
                    self._instances.discard(instance)
                with self._lock:
                    self.busy -= 1
                self._wake.set()  # the instance's other queued jobs may wait for it

    def _judge(self, jobs: list[Job], warm: WarmRunners | None) -> None:
        served = self.datasets[jobs[0].dataset]
        instance_id = jobs[0].instance_id
        record = served.records[instance_id]
        if instance_id not in served.contexts:
            served.contexts[instance_id] = verdict_context(record, served.options, self.fingerprint)
        context = served.contexts[instance_id]
        by_id = {job.job_id: job for job in jobs}
        group = [Candidate(instance_id=job.instance_id, candidate_id=job.job_id, code=job.code) for job in jobs]
        keys = {(instance_id, job.job_id): verdict_key(context, job.code) for job in jobs}
        benchmark, open_runner, options = served.benchmark, served.open_runner, served.options

        def work(payload: tuple, slot: int, emit) -> None:
            record_, group_, keys_ = payload
            judge_instance(benchmark, open_runner, record_, group_, slot, options, {}, keys_, emit, messages=True)

        def on_output(output: tuple, node: str) -> None:
            result, messages = output
            job = by_id[result.candidate_id]
            self._finish(served, job, dataclasses.replace(result, node=node), messages)

        try:
            if warm is not None:  # here, in this worker's slot, on a runner kept open
                node = local_node()
                opener = warm.opener(served.name, open_runner)
                judge_instance(
                    benchmark,
                    opener,
                    record,
                    group,
                    warm.slot,
                    options,
                    {},
                    keys,
                    lambda out: on_output(out, node),
                    messages=True,
                )
            else:
                self.executor.run([(record, group, keys)], lambda item: item, work, on_output)
        except Exception as exc:  # a harness failure: every job of the batch still gets one answer
            log.exception("%s: judging %d jobs failed", instance_id, len(jobs))
            for job in jobs:
                failed = Result(
                    instance_id=instance_id,
                    candidate_id=job.job_id,
                    status=str(Status.ERROR),
                    compiled=False,
                    tests_passed=0,
                    tests_failed=0,
                    failing_tests=[],
                    duplicate_of="",
                    seconds=0.0,
                    log_path="",
                    reason=f"harness: {type(exc).__name__}: {exc}",
                )
                self._finish(served, job, failed, {})

    def _finish(self, served: ServedDataset, job: Job, result: Result, messages: dict[str, str]) -> None:
        if not self.store.finish(job.job_id, answer_of(served, job, result, messages)):
            return  # answered already (a batch that failed after some verdicts)
        with self._lock:
            self.judged += 1
            self.by_status[str(result.status)] = self.by_status.get(str(result.status), 0) + 1
            self.seconds_total += result.seconds
        self.on_done(job.job_id)


class WarmRunners:
    """The runners one local worker keeps open between batches, by dataset and instance, the last ``WARM`` used."""

    def __init__(self, slot: int):
        self.slot = slot
        self._open: OrderedDict[tuple, CandidateRunner] = OrderedDict()

    def opener(self, dataset: str, open_runner: Callable) -> Callable:
        def opened(record, slot: int, logs: Path) -> CandidateRunner:
            key = (dataset, logs.name, id(record))  # the records are the server's, alive as long as it
            if key in self._open:
                self._open.move_to_end(key)
            else:
                self._open[key] = open_runner(record, slot, logs)
                while len(self._open) > WARM:
                    _, runner = self._open.popitem(last=False)
                    runner.close()
            return Kept(self, key)

        return opened

    def runner(self, key: tuple) -> CandidateRunner:
        return self._open[key]

    def discard(self, key: tuple) -> None:
        runner = self._open.pop(key, None)
        if runner is not None:
            runner.close()

    def close(self) -> None:
        while self._open:
            _, runner = self._open.popitem()
            runner.close()


class Kept:
    """A kept runner as ``judge_instance`` sees it: closing it keeps it open, unless judging on it failed."""

    def __init__(self, warm: WarmRunners, key: tuple):
        self.warm, self.key = warm, key

    def evaluate(self, code: str, name: str):
        try:
            return self.warm.runner(self.key).evaluate(code, name)
        except BaseException:
            self.warm.discard(self.key)  # a runner that failed is not trusted with the next batch
            raise

    def close(self) -> None:
        pass
