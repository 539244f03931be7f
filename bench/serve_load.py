"""`benchsmith serve` under load on loopback, beside `eval` on the same candidates, and SIGKILLed in the middle of it.

The candidates are real: the Ledger NL2Fix fixture's gold, buggy and mutated methods (--mutants a bug) and the
geometry classbench fixture's gold, empty and wrong classes. `eval` judges them first (one run a dataset, --workers
threads; a warm-up run first, so that preparing workspaces is timed in neither); then, for each N in --clients, a
fresh server (same workers, same timeout) gets them from N concurrent clients, each sending one candidate at a time
to POST /v1/judge and timing it. Every verdict must be eval's (status, tests passed and failed, failing tests). Last,
the same load with N=8 while the server is SIGKILLed once a third of the answers are in and started again on its
store and port: the clients (benchsmith.serve.client, which retries with the same Idempotency-Key) must each get one
answer, the store must hold one job a candidate, all answered, and the restarted server must judge only what the
first had not answered.

    python bench/serve_load.py [--clients 1,8,64] [--mutants 8] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchsmith.benchmarks import EvalOptions, benchmark_of  # noqa: E402
from benchsmith.core.progress import setup_logging  # noqa: E402
from benchsmith.core.schema import ClassBenchTask, read_records  # noqa: E402
from benchsmith.runners.sandbox.executors import LocalExecutor  # noqa: E402
from benchsmith.runners.sandbox.jail import Limits  # noqa: E402
from benchsmith.scoring.evaluate import evaluate  # noqa: E402
from benchsmith.serve.client import AsyncServeClient  # noqa: E402
from tests.helpers.serve import FIXTURE_D4J, Server, write_tokens  # noqa: E402

COMPARED = ("status", "tests_passed", "tests_failed", "failing_tests")
TIMEOUT = 30.0


def build_fixtures(work: Path) -> tuple[Path, Path, Path]:
    import importlib.util

    from tests.conftest import GEOMETRY, run_benchsmith
    from tests.helpers.cli import build_ledger

    spec = importlib.util.spec_from_file_location("make_fixture", ROOT / "data/fixtures/make_fixture.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_fixture"] = module
    spec.loader.exec_module(module)
    repos = work / "repos"
    repos.mkdir()
    module.build_fixture_repo(repos)
    nl2fix, geometry = work / "nl2fix.parquet", work / "geometry.parquet"
    for completed in (
        build_ledger(nl2fix, repos, "--selection", "strict"),
        run_benchsmith("classbench", "build", "--repo", str(GEOMETRY), "--out", str(geometry)),
    ):
        if completed.returncode != 0:
            sys.exit(completed.stderr[-3000:])
    return nl2fix, geometry, repos


def candidates_of(nl2fix: Path, geometry: Path, mutants: int) -> list[dict]:
    rows = []
    benchmark = benchmark_of(nl2fix)
    for made in benchmark.reference_candidates(list(benchmark.load(nl2fix).values()), mutants, 11):
        rows.append({"instance_id": made.instance_id, "candidate_id": made.kind, "code": made.code})
    (task,) = read_records(geometry, ClassBenchTask)
    benchmark = benchmark_of(geometry)
    for made in benchmark.reference_candidates([task], 0, 0):
        rows.append({"instance_id": made.instance_id, "candidate_id": made.kind, "code": made.code})
    gold = next(r["code"] for r in rows if r["instance_id"] == task.task_id and r["candidate_id"] == "gold")
    for number, (old, new) in enumerate((("abs(total) / 2", "abs(total)"), ("return abs(", "return 2 * abs("))):
        if old in gold:
            rows.append(
                {"instance_id": task.task_id, "candidate_id": f"wrong-{number}", "code": gold.replace(old, new)}
            )
    return rows


def run_eval(dataset: Path, rows: list[dict], folder: Path, repos: Path, workers: int) -> tuple[dict, float, list]:
    folder.mkdir(parents=True)
    candidates = folder / "candidates.jsonl"
    candidates.write_text("".join(json.dumps(row) + "\n" for row in rows))
    options = EvalOptions(
        dataset=dataset,
        candidates=candidates,
        out=folder / "results.parquet",
        defects4j=FIXTURE_D4J,
        repos=repos,
        workers=workers,
        limits=Limits(wall_seconds=TIMEOUT),
    )
    started = time.perf_counter()
    results = evaluate(options, LocalExecutor(workers))
    return {(r.instance_id, r.candidate_id): r for r in results}, time.perf_counter() - started, results


async def load(url: str, token: str, rows: list[dict], clients: int, prefix: str) -> tuple[list, list[float], float]:
    pending = list(enumerate(rows))
    answers: list = [None] * len(rows)
    latencies: list[float] = []

    async def one_client() -> None:
        async with AsyncServeClient(url, token, retries=10, backoff=0.5) as client:
            while pending:
                number, row = pending.pop(0)
                started = time.perf_counter()
                answers[number] = await client.judge(row["instance_id"], row["code"], row["candidate_id"])
                latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(one_client() for _ in range(clients)))
    return answers, latencies, time.perf_counter() - started


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def differences(rows: list[dict], answers: list, expected: dict) -> list[str]:
    wrong = []
    for row, answer in zip(rows, answers):
        result = expected[(row["instance_id"], row["candidate_id"])]
        if answer is None or {k: answer[k] for k in COMPARED} != {k: getattr(result, k) for k in COMPARED}:
            wrong.append(
                f"{row['instance_id']}/{row['candidate_id']}: {answer and answer['status']} vs {result.status}"
            )
    return wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", default="1,8,64", help="numbers of concurrent clients, one load each")
    parser.add_argument("--mutants", type=int, default=8, help="mutants of each NL2Fix bug's gold")
    parser.add_argument("--workers", type=int, default=2, help="eval's --workers and the server's")
    parser.add_argument("--no-kill", action="store_true", help="skip the SIGKILL run")
    args = parser.parse_args()
    setup_logging(False)
    work = Path(tempfile.mkdtemp(prefix="serve-load-"))
    work.chmod(0o755)  # the sandbox's uid reads the workspaces under the cache
    os.environ.setdefault("BENCHSMITH_CACHE", str(work / "cache"))
    Path(os.environ["BENCHSMITH_CACHE"]).mkdir(parents=True, exist_ok=True)
    Path(os.environ["BENCHSMITH_CACHE"]).chmod(0o755)
    print(f"load average at start: {os.getloadavg()}; work folder {work}")
    nl2fix, geometry, repos = build_fixtures(work)
    rows = candidates_of(nl2fix, geometry, args.mutants)
    split = [r for r in rows if "::" not in r["instance_id"]], [r for r in rows if "::" in r["instance_id"]]
    print(f"{len(rows)} candidates: {len(split[0])} NL2Fix (6 bugs), {len(split[1])} classbench")
    table = []
    # a first eval prepares the workspaces and environments in the cache (once a machine, for eval and serve alike);
    # the second, from empty result files, is the one timed
    for attempt in ("warm-up", "timed"):
        expected, eval_seconds, judged = {}, 0.0, []
        for dataset, part, name in ((nl2fix, split[0], "nl2fix"), (geometry, split[1], "classbench")):
            results, seconds, listed = run_eval(dataset, part, work / f"eval-{attempt}-{name}", repos, args.workers)
            expected |= results
            eval_seconds += seconds
            judged += listed
        print(f"eval ({attempt}): {len(rows)} verdicts in {eval_seconds:.1f} s")
    run_seconds = [r.seconds for r in judged if r.seconds > 0]
    table.append(
        (
            "eval",
            "-",
            len(rows),
            eval_seconds,
            len(rows) / eval_seconds,
            percentile(run_seconds, 0.5),
            percentile(run_seconds, 0.99),
            "-",
        )
    )
    token_file = work / "tokens"
    token = write_tokens(token_file, 1)[0]
    failed = []
    for clients in [int(n) for n in args.clients.split(",")]:
        server = Server(
            [nl2fix, geometry],
            work / f"store-{clients}",
            token_file,
            repos,
            "--workers",
            str(args.workers),
            "--timeout",
            str(TIMEOUT),
        ).start()
        try:
            answers, latencies, wall = asyncio.run(load(server.url, token, rows, clients, f"n{clients}"))
        finally:
            server.stop()
        wrong = differences(rows, answers, expected)
        failed += wrong
        table.append(
            (
                "serve",
                clients,
                len(rows),
                wall,
                len(rows) / wall,
                statistics.median(latencies),
                percentile(latencies, 0.99),
                "yes" if not wrong else f"NO ({len(wrong)})",
            )
        )
    if not args.no_kill:
        failed += kill_run(work, nl2fix, geometry, repos, token_file, token, rows, expected, args.workers, table)
    print()
    print(f"{'run':<12}{'N':>4}{'verdicts':>10}{'wall s':>9}{'verdicts/s':>12}{'p50 s':>8}{'p99 s':>8}  same as eval")
    for run, clients, count, wall, rate, p50, p99, same in table:
        print(f"{run:<12}{clients!s:>4}{count:>10}{wall:>9.1f}{rate:>12.2f}{p50:>8.2f}{p99:>8.2f}  {same}")
    print("(eval's p50/p99: seconds judging a candidate; serve's: a client's request, queueing included)")
    if failed:
        print("verdicts differing from eval's:\n  " + "\n  ".join(failed[:20]))
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


def kill_run(work, nl2fix, geometry, repos, token_file, token, rows, expected, workers, table) -> list[str]:
    store = work / "store-kill"
    server = Server(
        [nl2fix, geometry], store, token_file, repos, "--workers", str(workers), "--timeout", str(TIMEOUT)
    ).start()
    outcome: dict = {}

    def killer() -> None:
        database = store / "jobs.sqlite3"
        while True:
            time.sleep(0.2)
            with sqlite3.connect(database) as db:
                done = db.execute("SELECT COUNT(*) FROM jobs WHERE state = 'done'").fetchone()[0]
            if done >= len(rows) // 3:
                break
        server.kill()
        with sqlite3.connect(database) as db:
            outcome["before"] = dict(db.execute("SELECT job_id, answer FROM jobs WHERE state = 'done'").fetchall())
            outcome["running"] = db.execute("SELECT COUNT(*) FROM jobs WHERE state = 'running'").fetchone()[0]
        time.sleep(1.0)  # clients see connections refused, and retry
        server.start()  # the same store, the same port

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        answers, latencies, wall = asyncio.run(load(server.url, token, rows, 8, "kill"))
        thread.join()
        judged_after = server.metric(token, "benchsmith_verdicts_total")
    finally:
        server.stop()
    wrong = differences(rows, answers, expected)
    with sqlite3.connect(store / "jobs.sqlite3") as db:
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        jobs, distinct = db.execute("SELECT COUNT(*), COUNT(DISTINCT job_id) FROM jobs").fetchone()
        states = dict(db.execute("SELECT state, COUNT(*) FROM jobs GROUP BY state").fetchall())
        again = db.execute("SELECT COUNT(*) FROM jobs WHERE attempts > 1").fetchone()[0]
        changed = sum(
            1
            for job_id, answer in db.execute("SELECT job_id, answer FROM jobs").fetchall()
            if job_id in outcome["before"] and answer != outcome["before"][job_id]
        )
    before = len(outcome["before"])
    checks = {
        "every client got one answer": all(a is not None for a in answers) and len(answers) == len(rows),
        "one job a candidate, all answered": jobs == distinct == len(rows) and states == {"done": len(rows)},
        "none answered before the kill judged again": changed == 0 and judged_after == len(rows) - before,
        "store intact": integrity == "ok",
    }
    print(
        f"\nSIGKILL run: killed with {before} of {len(rows)} answered and {outcome['running']} being judged; "
        f"the restarted server judged {judged_after:g} ({again} jobs a second time: those it was running)"
    )
    for name, ok in checks.items():
        print(f"  {'ok ' if ok else 'FAILED'} {name}")
    table.append(
        (
            "serve+kill",
            8,
            len(rows),
            wall,
            len(rows) / wall,
            statistics.median(latencies),
            percentile(latencies, 0.99),
            "yes" if not wrong else f"NO ({len(wrong)})",
        )
    )
    return wrong + [name for name, ok in checks.items() if not ok]


if __name__ == "__main__":
    sys.exit(main())
