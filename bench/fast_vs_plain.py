"""The warm-JVM fast path against the plain path, side by side on the same candidates of real bugs.

Plain path: javac of all sources and tests in a jail, then a fresh test JVM
running the trigger tests, then the relevant ones. Fast path: a warm compiler
JVM compiling only the changed file, then a fresh test JVM started (and warmed
up) ahead of the candidate. Both judge every candidate, in alternation, in one
run; the script prints the median ratio and fails if any verdict differs. The
machine's load average is printed at the start and the end: timings on a
shared machine mean little without it.

    python bench/fast_vs_plain.py --defects4j D4J_ROOT --repos DIR [--bugs Cli-3,Cli-12,Codec-2,Csv-1,Csv-11,JxPath-5]
    [--per-bug 40]

With --back-to-back it judges the same candidates on the fast path only, one right after another, and prints the
seconds per candidate of that run: one worker's throughput, where each candidate waits for its JVM to boot.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchsmith.builders.nl2fix import BuildOptions, build
from benchsmith.core.progress import setup_logging
from benchsmith.core.schema import NL2FixInstance, read_records
from benchsmith.generation.mutants import mutants
from benchsmith.runners.java.defects4j_workspace import prepare
from benchsmith.runners.java.method_runner import InstanceRunner, Tests
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.sources.defects4j import Defects4JRoot

STATUSES = ("plausible", "wrong", "uncompilable", "timeout")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--defects4j", type=Path, required=True)
    parser.add_argument("--repos", type=Path, required=True)
    parser.add_argument("--bugs", default="Cli-3,Cli-12,Codec-2,Csv-1,Csv-11,JxPath-5")
    parser.add_argument("--per-bug", type=int, default=40, help="candidates per bug: gold, buggy, mutants of the gold")
    parser.add_argument("--back-to-back", action="store_true", help="the fast path only, candidates one after another")
    args = parser.parse_args()
    setup_logging(False)
    load_before = os.getloadavg()
    wanted = args.bugs.split(",")
    projects = sorted({b.rsplit("-", 1)[0] for b in wanted})
    dataset = Path(tempfile.mkdtemp()) / "bench.parquet"
    build(
        BuildOptions(defects4j=args.defects4j, out=dataset, repos=args.repos, projects=",".join(projects), scrape=False)
    )
    instances = {i.instance_id: i for i in read_records(dataset, NL2FixInstance)}
    missing = [b for b in wanted if b not in instances]
    if missing:
        sys.exit(f"not single-method instances: {', '.join(missing)}")
    d4j = Defects4JRoot(args.defects4j)
    rows = []  # (bug, candidate, fast status, fast failing, fast seconds, plain status, plain failing, plain seconds)
    # One sandbox slot per path: a plain run ends by killing every process of its slot's uid.
    with sandbox.leased_slot() as fast_slot, sandbox.leased_slot() as plain_slot:
        for bug in wanted:
            instance: NL2FixInstance = instances[bug]
            workspace = prepare(instance, d4j, args.repos)
            excluded = d4j.broken_tests(instance.project, instance.revision_fixed)
            tests = Tests.for_instance(instance, excluded)
            limits = sandbox.Limits(wall_seconds=120)
            runner = InstanceRunner(instance, workspace, fast_slot, limits, Path(tempfile.mkdtemp()), excluded)
            plain_runner = InstanceRunner(instance, workspace, plain_slot, limits, Path(tempfile.mkdtemp()), excluded)
            codes = [("gold", instance.fixed_method), ("buggy", instance.buggy_method)]
            codes += [
                (f"mutant-{i}", m) for i, m in enumerate(mutants(instance.fixed_method, args.per_bug - 2, seed=1))
            ]
            runner.evaluate(instance.fixed_method, "warm-up", tests=tests)  # the JVM's start is paid once per worker
            if args.back_to_back:
                started = time.monotonic()
                verdicts = [runner.evaluate(code, name, fast=True, tests=tests) for name, code in codes]
                wall = time.monotonic() - started
                seconds = [v.seconds for v in verdicts if v.path]  # those that reached a JVM
                rows.append((bug, seconds))
                for (name, _), verdict in zip(codes, verdicts):  # each verdict, for comparing two runs' (before_after)
                    print(f"{bug:10} {name:10} fast {verdict.status:12} {verdict.seconds:6.3f}s", flush=True)
                print(
                    f"{bug:10} {len(codes)} candidates back to back in {wall:.1f}s, median "
                    f"{statistics.median(seconds):.3f}s per candidate executed "
                    f"({', '.join(f'{s} {sum(v.status == s for v in verdicts)}' for s in STATUSES)})",
                    flush=True,
                )
                runner.close()
                plain_runner.close()
                continue
            for name, code in codes:
                fast = runner.evaluate(code, name, fast=True, tests=tests)
                started = time.monotonic()
                plain = plain_runner.plain(code, name, tests) if fast.status != "uncompilable" or fast.path else fast
                plain_seconds = time.monotonic() - started if plain is not fast else fast.seconds
                rows.append(
                    (
                        bug,
                        name,
                        fast.status,
                        fast.failing_tests[:1],
                        fast.seconds,
                        fast.path,
                        plain.status,
                        plain.failing_tests[:1],
                        plain_seconds,
                    )
                )
                print(
                    f"{bug:10} {name:10} fast {fast.status:12} {fast.seconds:6.3f}s ({fast.path or 'parse'})   "
                    f"plain {plain.status:12} {plain_seconds:6.2f}s",
                    flush=True,
                )
            runner.close()
            plain_runner.close()
    if args.back_to_back:
        seconds = [s for r in rows for s in r[1]]
        print(
            f"\nback to back: median {statistics.median(seconds):.3f}s per candidate ({len(seconds)} executed, fast "
            f"path)"
        )
        return 0
    executed = [r for r in rows if r[5]]  # candidates that reached a JVM (not rejected by the parser)
    disagreements = [r for r in rows if (r[2], r[3]) != (r[6], r[7])]
    fast_median = statistics.median(r[4] for r in executed)
    plain_median = statistics.median(r[8] for r in executed)
    trigger_failures = [r[4] for r in executed if r[2] == "wrong" and r[3] and r[3][0] in instances[r[0]].trigger_tests]
    print()
    print(
        "load average (1, 5, 15 min): at the start "
        + ", ".join(f"{x:.2f}" for x in load_before)
        + "; at the end "
        + ", ".join(f"{x:.2f}" for x in os.getloadavg())
    )
    print(f"bugs: {', '.join(wanted)}; candidates: {len(rows)} ({len(executed)} executed by both paths)")
    print(
        "verdicts: "
        + ", ".join(
            f"{s} {sum(r[2] == s for r in rows)}" for s in ("plausible", "wrong", "uncompilable", "timeout", "error")
        )
    )
    print(f"median seconds per candidate: fast {fast_median:.3f}, plain {plain_median:.3f}")
    print(f"ratio plain/fast (median): {plain_median / fast_median:.1f}x")
    if trigger_failures:
        print(
            f"median fast seconds for a candidate failing a trigger test: {statistics.median(trigger_failures):.3f} "
            f"({len(trigger_failures)} candidates)"
        )
    print(f"identical verdicts: {len(rows) - len(disagreements)} of {len(rows)}")
    for row in disagreements:
        print(f"  DIFFERENT {row[0]} {row[1]}: fast {row[2]} {row[3]} / plain {row[6]} {row[7]}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
