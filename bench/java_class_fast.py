"""Java classbench's fast path against its plain path, side by side on the same candidates of real tasks.

Fast path: the warm compiler compiles the candidate's file and the files that
name its class, and a test JVM started ahead on the JUnit Platform runs the
directives. Plain path: javac of every main and test source in a jail, then a
fresh test JVM. Each candidate (the ground truth, the empty class, mutants of the
ground truth) is judged on both paths in alternation, in one run; the script
prints each path's median seconds per candidate and their ratio, and fails if
any verdict differs. The load average is printed at the start and the end.

    python bench/java_class_fast.py --dataset DATASET.parquet [--tasks 3] [--per-task 10]

Without --dataset it builds the Java repository written for the tests (tests/helpers/java_repo.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchsmith.builders.classbench.java.build import JavaBuildOptions, build_java  # noqa: E402
from benchsmith.core.progress import setup_logging  # noqa: E402
from benchsmith.core.schema import ClassBenchTask, read_records  # noqa: E402
from benchsmith.runners.java.class_runner import ClassTaskRunner, task_workspace  # noqa: E402
from benchsmith.runners.sandbox import jail as sandbox  # noqa: E402
from benchsmith.sources.java.class_file import empty_shell  # noqa: E402

# Small edits of the ground truth that keep it compiling, most of the time: the mutants a model's near misses resemble.
_MUTATIONS = (
    (" + ", " - "),
    (" - ", " + "),
    (" < ", " <= "),
    (" > ", " >= "),
    ("== null", "!= null"),
    ("return true;", "return false;"),
    (" && ", " || "),
    ("++", "--"),
    (" * ", " / "),
    ("0;", "1;"),
)


def candidates(task: ClassBenchTask, count: int) -> dict[str, str]:
    gold = task.ground_truth_class
    found = {"gold": gold, "empty": empty_shell(gold, task.class_name, task.task_id)}
    for before, after in _MUTATIONS:
        at = gold.find(before)
        while at >= 0 and len(found) < count:
            found[f"mutant-{len(found)}"] = gold[:at] + after + gold[at + len(before) :]
            at = gold.find(before, at + len(before) + 200)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path, help="a classbench-java dataset (default: build the test repository)")
    parser.add_argument("--tasks", type=int, default=3, help="the first N tasks")
    parser.add_argument("--per-task", type=int, default=10, help="candidates per task: gold, empty, mutants")
    args = parser.parse_args()
    setup_logging(False)
    load_before = os.getloadavg()
    dataset = args.dataset or _test_dataset()
    tasks = read_records(dataset, ClassBenchTask)[: args.tasks]
    rows = []  # (task, candidate, fast status, fast passed, fast seconds, plain status, plain passed, plain seconds)
    with sandbox.leased_slot() as fast_slot, sandbox.leased_slot() as plain_slot:
        for task in tasks:
            prepared = task_workspace(task)
            logs = Path(tempfile.mkdtemp(prefix="bench-logs-"))
            fast = ClassTaskRunner(task, prepared, fast_slot, sandbox.Limits(wall_seconds=120), logs / "fast")
            plain = ClassTaskRunner(task, prepared, plain_slot, sandbox.Limits(wall_seconds=300), logs / "plain")
            try:
                fast.evaluate(task.ground_truth_class, "warm-up")  # the reference run and the warm compiler, once
                for name, code in candidates(task, args.per_task).items():
                    quick = fast.evaluate(code, name)
                    slow = plain.evaluate(code, name, fast=False)
                    rows.append(
                        (
                            task.class_name,
                            name,
                            quick.status,
                            quick.tests_passed,
                            quick.seconds,
                            slow.status,
                            slow.tests_passed,
                            slow.seconds,
                        )
                    )
                    print(
                        f"{task.class_name:24} {name:10} fast {quick.status:12} {quick.seconds:6.2f}s   "
                        f"plain {slow.status:12} {slow.seconds:6.2f}s",
                        flush=True,
                    )
            finally:
                fast.close()
                plain.close()
    differing = [r for r in rows if (r[2], r[3]) != (r[5], r[6])]
    fast_median = statistics.median(r[4] for r in rows)
    plain_median = statistics.median(r[7] for r in rows)
    print(
        f"\n{len(rows)} candidates of {len(tasks)} tasks; load average {load_before[0]:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after"
    )
    print(
        f"median seconds per candidate: fast {fast_median:.3f}, plain {plain_median:.3f}; "
        f"plain / fast = {plain_median / fast_median:.1f}x"
    )
    print(
        f"verdicts (status and directives passed) identical on both paths: {len(rows) - len(differing)} of {len(rows)}"
    )
    for row in differing:
        print(f"  differs: {row}")
    return 1 if differing else 0


def _test_dataset() -> Path:
    from tests.helpers.java_repo import write_java_repo

    root = Path(tempfile.mkdtemp(prefix="bench-java-repo-"))
    repo = write_java_repo(root / "geometry", git=True)
    commit = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    out = root / "geometry.parquet"
    build_java(JavaBuildOptions(repo=str(repo), out=out, commit=commit, classpath="maven-repo"))
    return out


if __name__ == "__main__":
    sys.exit(main())
