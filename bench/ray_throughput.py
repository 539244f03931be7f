"""`eval` on threads here against `eval` on a Ray cluster of two workers, side by side on the same real bugs.

Both judge the same candidates (gold, the buggy method and mutants of the gold
of each bug) from empty result files, local first, then Ray, then local again
(so a warming cache favours neither); the script prints candidates per minute
for each, the ratio, the cost per candidate in slot-seconds, and fails if any
verdict differs.

    python bench/ray_throughput.py --defects4j D4J_ROOT --repos DIR [--bugs Cli-3,...] [--per-bug 20]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from benchsmith.benchmarks import EvalOptions
from benchsmith.builders.nl2fix import BuildOptions, build
from benchsmith.core.progress import setup_logging
from benchsmith.core.schema import NL2FixInstance, read_records
from benchsmith.generation.mutants import mutants
from benchsmith.runners.sandbox.executors import LocalExecutor, RayExecutor
from benchsmith.runners.sandbox.jail import Limits
from benchsmith.scoring.evaluate import evaluate

SLOTS = 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--defects4j", type=Path, required=True)
    parser.add_argument("--repos", type=Path, required=True)
    parser.add_argument("--bugs", default="Cli-3,Cli-12,Codec-2,Csv-1,Csv-11,JxPath-5")
    parser.add_argument("--per-bug", type=int, default=20, help="candidates per bug: gold, buggy, mutants of the gold")
    args = parser.parse_args()
    setup_logging(False)
    print(f"load average at start: {os.getloadavg()}")
    work = Path(tempfile.mkdtemp(prefix="ray-bench-"))
    wanted = args.bugs.split(",")
    dataset = work / "bench.parquet"
    build(
        BuildOptions(
            defects4j=args.defects4j,
            out=dataset,
            repos=args.repos,
            scrape=False,
            projects=",".join(sorted({b.rsplit("-", 1)[0] for b in wanted})),
        )
    )
    instances = {i.instance_id: i for i in read_records(dataset, NL2FixInstance) if i.instance_id in wanted}
    if missing := sorted(set(wanted) - set(instances)):
        sys.exit(f"not single-method instances: {', '.join(missing)}")
    candidates = work / "candidates.jsonl"
    with candidates.open("w") as out:
        for bug, instance in instances.items():
            codes = [
                instance.fixed_method,
                instance.buggy_method,
                *mutants(instance.fixed_method, args.per_bug - 2, seed=1),
            ]
            for number, code in enumerate(codes):
                out.write(json.dumps({"instance_id": bug, "candidate_id": f"c{number}", "code": code}) + "\n")
    ray = RayExecutor(None)  # a new local cluster: one worker per core, two here
    print(f"Ray cluster: {ray.slots()} worker slots")
    runs = []
    for label, executor in (("local", LocalExecutor(SLOTS)), ("ray", ray), ("local again", LocalExecutor(SLOTS))):
        options = EvalOptions(
            dataset=dataset,
            candidates=candidates,
            out=work / f"{label.replace(' ', '-')}.parquet",
            defects4j=args.defects4j,
            repos=args.repos,
            workers=SLOTS,
            limits=Limits(wall_seconds=120),
        )
        started = time.monotonic()
        results = evaluate(options, executor)
        seconds = time.monotonic() - started
        runs.append((label, results, seconds))
        print(
            f"{label:12} {len(results)} candidates in {seconds:7.1f}s: {60 * len(results) / seconds:6.1f} per minute, "
            f"{SLOTS * seconds / len(results):.2f} slot-seconds per candidate",
            flush=True,
        )
    statuses = [{(r.instance_id, r.candidate_id): r.status for r in results} for _, results, _ in runs]
    counts = [
        {(r.instance_id, r.candidate_id): (r.tests_passed, r.tests_failed) for r in results} for _, results, _ in runs
    ]
    local_seconds = (runs[0][2] + runs[2][2]) / 2
    print(f"Ray / local (mean of the two local runs): {local_seconds / runs[1][2]:.2f}x the throughput")
    print(f"load average at end: {os.getloadavg()}")
    if any(s != statuses[0] for s in statuses):
        print("STATUSES DIFFER between the executors")
        return 1
    # Some wrong mutants fail a varying number of tests (tests that draw random data): a count that also varies
    # between the two local runs is the candidate's, not the executor's.
    unstable = {key for key in counts[0] if counts[0][key] != counts[2][key]}
    differ = {key for key in counts[0] if counts[1][key] != counts[0][key] and counts[1][key] != counts[2][key]}
    print(
        f"statuses identical on every executor; test counts vary between the two local runs for {len(unstable)} "
        f"candidates; Ray's counts differ from both local runs for {len(differ)}"
    )
    if differ - unstable:
        print("TEST COUNTS DIFFER on Ray for " + ", ".join("/".join(key) for key in sorted(differ - unstable)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
