"""Seconds per candidate of the Python class harness (a jail per candidate), on tasks built from a real package.

Candidates per task: the gold class, an empty class, and mutants of the gold
(one token changed: an operator, a boolean, a number). Each is judged by
``benchsmith.runners.python.class_runner.TaskRunner`` as ``benchsmith eval`` judges it; the
script prints each verdict, then the median seconds per candidate (the target
is under 1.5 s) and fails if a gold is not plausible or an empty class is.

    python bench/python_class.py [--repo pypi:click==8.1.7] [--dataset click.parquet] [--mutants 8] [--tasks N]
                                 [--second-opinion]

With --dataset naming an existing file, that dataset is used; otherwise the
tasks are built first (``benchsmith classbench build``, a few minutes) and
written there (or to a temporary file).
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import sys
import tempfile
import time
import tokenize
from collections import Counter
from pathlib import Path

from benchsmith.builders.classbench.python.build import ClassBenchOptions, build
from benchsmith.core.progress import setup_logging
from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.runners.python.class_runner import TaskRunner, reference_solution
from benchsmith.runners.sandbox import jail as sandbox

_SWAPS = {
    "<": "<=",
    "<=": "<",
    ">": ">=",
    ">=": ">",
    "==": "!=",
    "!=": "==",
    "+": "-",
    "-": "+",
    "and": "or",
    "or": "and",
    "True": "False",
    "False": "True",
}  # (no "*", "in", "is": in *args, for-in and "is not" a swap would not parse)


def mutants(code: str, count: int, seed: int = 0) -> list[str]:
    """Up to *count* distinct copies of *code*, each with one token swapped (operators, booleans, numbers)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    sites = [t for t in tokens if t.string in _SWAPS or (t.type == tokenize.NUMBER and t.string.isdigit())]
    lines = code.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    found: list[str] = []
    for token in random.Random(seed).sample(sites, k=len(sites)):
        start = offsets[token.start[0] - 1] + token.start[1]
        end = offsets[token.end[0] - 1] + token.end[1]
        replacement = _SWAPS.get(token.string) or str(int(token.string) + 1)
        mutant = code[:start] + replacement + code[end:]
        if mutant not in found:
            found.append(mutant)
        if len(found) == count:
            break
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", default="pypi:click==8.1.7")
    parser.add_argument("--dataset", type=Path, help="an existing dataset to reuse, or where to write the one built")
    parser.add_argument("--mutants", type=int, default=8, help="mutants of the gold per task")
    parser.add_argument("--tasks", type=int, default=0, help="judge only the first N tasks (0: all)")
    parser.add_argument("--wall", type=float, default=120.0, help="wall-clock limit per candidate, seconds")
    parser.add_argument(
        "--second-opinion",
        action="store_true",
        help="judge a plausible candidate twice, as benchsmith eval --second-opinion does",
    )
    args = parser.parse_args()
    setup_logging(False)
    dataset = args.dataset or Path(tempfile.mkdtemp()) / "bench-classbench.parquet"
    if not dataset.exists():
        print(f"building {args.repo} into {dataset} (a few minutes)", flush=True)
        build(ClassBenchOptions(repo=args.repo, out=dataset, language="python"))
    tasks = read_records(dataset, ClassBenchTask)
    tasks = tasks[: args.tasks] if args.tasks else tasks
    print(sandbox.missing_layers())
    load_before = os.getloadavg()
    rows = []  # (task, candidate, status, seconds)
    with sandbox.leased_slot() as slot:
        for task in tasks:
            started = time.monotonic()
            runner = TaskRunner(
                task,
                slot,
                sandbox.Limits(wall_seconds=args.wall),
                Path(tempfile.mkdtemp()),
                second_opinion=args.second_opinion,
            )
            print(
                f"{task.task_id}: {len(task.test_directives)} directives; runner ready in "
                f"{time.monotonic() - started:.2f}s (environment, public view)",
                flush=True,
            )
            gold = reference_solution(task)
            codes = [("gold", gold), ("empty", f"class {task.class_name}:\n    pass\n")]
            codes += [(f"mutant-{n}", m) for n, m in enumerate(mutants(gold, args.mutants))]
            try:
                for name, code in codes:
                    verdict = runner.evaluate(code, name)
                    rows.append((task.task_id, name, verdict.status, verdict.seconds))
                    print(
                        f"  {name:10} {verdict.status:12} {verdict.seconds:6.2f}s  "
                        f"{verdict.tests_passed}/{len(task.test_directives)}  {verdict.reason[:80]}",
                        flush=True,
                    )
            finally:
                runner.close()
    seconds = [r[3] for r in rows if r[2] != "uncompilable"]  # those never reach a sandbox: they would flatter it
    print()
    print(
        f"{len(tasks)} tasks, {len(rows)} candidates: "
        + ", ".join(f"{s} {n}" for s, n in Counter(r[2] for r in rows).items())
    )
    print(
        f"seconds per executed candidate ({len(seconds)}): median {statistics.median(seconds):.3f}, "
        f"mean {statistics.mean(seconds):.3f}, max {max(seconds):.3f} (target: median under 1.5)"
    )
    # Wall-clock seconds: on a machine shared with other work they grow with its load, so the load goes with them.
    print(
        f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs "
        f"(before the run: {', '.join(f'{x:.1f}' for x in load_before)})"
    )
    bad = [r for r in rows if (r[1] == "gold") != (r[2] == "plausible") and r[1] in ("gold", "empty")]
    if bad:
        print("unexpected verdicts: " + "; ".join(f"{r[0]} {r[1]} {r[2]}" for r in bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
