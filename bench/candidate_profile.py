"""Where a candidate's seconds go on the fast path: one instance's RepairLlama candidates, phase by phase.

The candidates are those of ``bench/real_output.py`` (the file's generations of one bug, as whole methods). One
runner judges them one after another, as one ``eval`` worker does; the runner's own start (the warm compiler, the
ground truth's reference run, the first test JVM) is timed apart, as ``setup``. Per candidate: the parse check, the
warm compile, the wait for a test JVM (``take``: the one started ahead, or a boot), the test run in that JVM (request
to report) and the rest (writing sources and logs, checking the report).

    python bench/candidate_profile.py --defects4j D4J_ROOT --repos DIR --generations FILE.jsonl.gz --bug Cli-8
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from benchsmith.builders.nl2fix import BuildOptions, build
from benchsmith.core.progress import setup_logging
from benchsmith.core.schema import NL2FixInstance, read_records
from benchsmith.runners.java import jvm as jvm_module
from benchsmith.runners.java import method_runner
from benchsmith.runners.java.defects4j_workspace import guard_forbidden_tests, prepare
from benchsmith.runners.java.method_runner import InstanceRunner, Tests
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.sources.defects4j import Defects4JRoot

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_output import candidates_from  # noqa: E402

PHASES = ("parse", "compile", "take", "tests")
spent: dict[str, float] = defaultdict(float)


def timed(owner: type, name: str, phase: str) -> None:
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        started = time.monotonic()
        try:
            return original(*args, **kwargs)
        finally:
            spent[phase] += time.monotonic() - started

    setattr(owner, name, wrapper)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--defects4j", type=Path, required=True)
    parser.add_argument("--repos", type=Path, required=True)
    parser.add_argument("--generations", type=Path, required=True)
    parser.add_argument("--bug", required=True)
    parser.add_argument("--repeat", type=int, default=1, help="judge each candidate this many times in a row")
    args = parser.parse_args()
    setup_logging(False)
    with gzip.open(args.generations, "rt", encoding="utf-8") as handle:
        rows = [r for line in handle if (r := json.loads(line))["identifier"] == args.bug]
    out = Path(tempfile.mkdtemp(prefix="profile-"))
    (out / "bugs.txt").write_text(args.bug + "\n")
    build(
        BuildOptions(
            defects4j=args.defects4j, out=out / "d.parquet", repos=args.repos, scrape=False, bugs=out / "bugs.txt"
        )
    )
    instances = {i.instance_id: i for i in read_records(out / "d.parquet", NL2FixInstance)}
    candidates, published, unmapped = candidates_from(rows, instances, {})
    if not candidates:
        sys.exit(f"{args.bug}: no candidates ({dict(unmapped)})")
    instance: NL2FixInstance = instances[args.bug]
    d4j = Defects4JRoot(args.defects4j)
    workspace = prepare(instance, d4j, args.repos)
    excluded = [
        *d4j.broken_tests(instance.project, instance.revision_fixed),
        *guard_forbidden_tests(workspace, instance),
    ]
    timed(method_runner, "is_single_method", "parse")
    timed(jvm_module.Compiler, "compile", "compile")
    timed(jvm_module.TestJvms, "take", "take")
    timed(jvm_module.TestJvm, "run", "tests")
    timed(method_runner.InstanceRunner, "_warm_up", "warm-up")  # the runner's start, below: its parts
    timed(method_runner.InstanceRunner, "_expected_names", "reference")
    timed(jvm_module.TestJvms, "fresh", "boot")
    with sandbox.leased_slot() as slot:
        started = time.monotonic()
        runner = InstanceRunner(instance, workspace, slot, sandbox.Limits(), out / "logs", excluded)
        tests = Tests.for_instance(instance, excluded)
        spent.clear()
        runner.evaluate(instance.fixed_method, "setup", tests=tests)
        parts = ", ".join(f"{name} {seconds:.2f}s" for name, seconds in spent.items())
        print(f"{args.bug}: setup (compiler, reference run, first JVM, the gold) {time.monotonic() - started:.2f}s")
        print(f"  of which (they overlap: the reference run includes a JVM's wait and its tests): {parts}")
        print(f"{'candidate':12} {'status':12} {'total':>7} " + " ".join(f"{p:>8}" for p in PHASES) + "    rest")
        for candidate in [c for c in candidates for _ in range(args.repeat)]:
            spent.clear()
            verdict = runner.evaluate(candidate.code, candidate.candidate_id, tests=tests)
            rest = verdict.seconds - sum(spent[p] for p in PHASES)
            print(
                f"{candidate.candidate_id:12} {verdict.status:12} {verdict.seconds:7.3f} "
                + " ".join(f"{spent[p]:8.3f}" for p in PHASES)
                + f" {rest:7.3f}   published {published[f'{args.bug}/{candidate.candidate_id}'].verdict}"
            )
        runner.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
