r"""A bench script run on two revisions side by side in one run: the code before a change and the tree as it is.

The rounds alternate (before, after, after, before, ...), so load that drifts while the bench runs falls on both
sides alike; each side runs the same bench script (this tree's copy) with its own code, imported from a worktree of
REV through an environment of its own that takes every dependency from this one (a path line, as tests/test_wheel.py
installs the wheel). The script prints, per round and side, its median seconds and its verdicts; at the end the
ratio of the two sides' medians (of the rounds' medians) and whether every verdict agreed.

    python bench/before_after.py --before 01292c9 [--before d5bbee7 ...] [--rounds 4] -- bench/python_class.py \
        --dataset click.parquet

With several --before revisions, every side runs once per round, in an order that turns each round (the first
round's order reversed in the next, and so on), and each revision's ratio is printed.

A verdict is a line of the script's output that matches --verdict (by default an indented candidate name and a
status, as bench/python_class.py prints them), numbered by the line before it that does not (its task); the median
is what --median finds in the script's last line where it finds one (by default the number after "median"). For
bench/fast_vs_plain.py, whose lines name the bug and the candidate (so no other line names a task) and whose median
line names both paths:

    python bench/before_after.py --before 01292c9 --rounds 1 --task '(?!)' \
        --verdict '^(\S+\s+\S+)\s+fast (plausible|wrong|uncompilable|timeout|error)\b' \
        --median 'median seconds per candidate: fast ([0-9.]+)' \
        -- bench/fast_vs_plain.py --defects4j D4J --repos REPOS --per-bug 8

and on the fast path alone, every candidate one after another: ``--median 'back to back: median ([0-9.]+)'`` and
``-- ... --back-to-back``. Log records of the script (``WARNING name: ...``) never name a task.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import venv
from pathlib import Path

TREE = Path(__file__).resolve().parents[1]
VERDICT = r"^\s+(\S+)\s+(plausible|wrong|uncompilable|timeout|error)\b"
MEDIAN = r"median\s+([0-9.]+)"
# A log record the script's code writes (a retry under load, say) names no task: a verdict after it is still its task's
LOG_RECORD = r"^(DEBUG|INFO|WARNING|ERROR|CRITICAL) \S+: "
TASK = r"^([^:]*)"  # a line that is no verdict names the task of the verdicts after it (python_class's task lines)


def before_environment(rev: str, workdir: Path) -> tuple[Path, Path]:
    """A worktree of *rev* and an interpreter that imports benchsmith from it, every dependency from this one."""
    workdir = workdir / rev
    workdir.mkdir(parents=True)
    tree = workdir / "before"
    subprocess.run(["git", "-C", str(TREE), "worktree", "add", "--detach", str(tree), rev], check=True)
    env_dir = workdir / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps"]
        + ["--no-build-isolation", "-e", str(tree)],
        check=True,
    )
    return tree, python


def run_side(
    python: Path, script: list[str], log: Path, verdict: str = VERDICT, median: str = MEDIAN, task: str = TASK
) -> tuple[float, list[tuple[str, str, str]]]:
    """Run the bench script once; its median seconds and its verdicts (task, candidate, status) in order."""
    with log.open("w") as out:
        done = subprocess.run([str(python), *script], cwd=TREE, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(script)} with {python} exited {done.returncode}: see {log}")
    return read_run(log, verdict, median, task)


def read_run(
    log: Path, verdict: str = VERDICT, median: str = MEDIAN, task_line: str = TASK
) -> tuple[float, list[tuple[str, str, str]]]:
    """A bench script's output: its median seconds and its verdicts (task, candidate, status) in order."""
    lines = log.read_text().splitlines()
    verdicts, task = [], ""
    for line in lines:
        found = re.match(verdict, line)
        if found:
            verdicts.append((task, found.group(1), found.group(2)))
        elif line.strip() and not re.match(LOG_RECORD, line) and (named := re.match(task_line, line)):
            task = named.group(1).strip()
    medians = [found for line in lines if (found := re.search(median, line))]
    if not medians:
        raise SystemExit(f"{log}: no line matches the median pattern {median!r}")
    return float(medians[-1].group(1)), verdicts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--before", required=True, action="append", metavar="REV", help="a revision before the change (repeatable)"
    )
    parser.add_argument("--rounds", type=int, default=4, help="runs per side, alternating")
    parser.add_argument("--logs", type=Path, help="where each run's output goes (default: a temporary folder)")
    parser.add_argument("--verdict", default=VERDICT, help="a verdict line: groups (candidate, status)")
    parser.add_argument("--median", default=MEDIAN, help="the median line: group 1 is the median in seconds")
    parser.add_argument(
        "--task",
        default=TASK,
        help='a line naming the task of the verdicts after it: group 1 ("(?!)" where the verdict names it whole)',
    )
    parser.add_argument("script", nargs="+", help="the bench script and its arguments, after --")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="before-after-"))
    logs = args.logs or workdir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    befores = list(dict.fromkeys(args.before))
    sides: dict[str, Path] = {}
    trees = []
    try:
        for rev in befores:
            tree, sides[rev] = before_environment(rev, workdir)
            trees.append(tree)
        sides["after"] = Path(sys.executable)
        medians: dict[str, list[float]] = {side: [] for side in sides}
        verdicts: dict[str, list] = {}
        disagreements = 0
        for round_ in range(args.rounds):
            order = list(sides) if round_ % 2 == 0 else list(sides)[::-1]
            for side in order:
                log = logs / f"{side}-{round_}.log"
                median, seen = run_side(sides[side], args.script, log, args.verdict, args.median, args.task)
                medians[side].append(median)
                first = verdicts.setdefault("first", seen)
                differing = sum(a != b for a, b in zip(first, seen)) + abs(len(first) - len(seen))
                disagreements += differing
                print(
                    f"round {round_} {side:8}: median {median:.3f} s, {len(seen)} verdicts, "
                    f"{differing} differ from the first run's",
                    flush=True,
                )
    finally:
        for tree in trees:
            subprocess.run(["git", "-C", str(TREE), "worktree", "remove", "--force", str(tree)], check=False)
    after = statistics.median(medians["after"])
    for rev in befores:
        before = statistics.median(medians[rev])
        print(f"median of medians: {rev} {before:.3f} s, after {after:.3f} s, after/before {after / before:.3f}")
    print(
        f"verdicts: {'identical' if disagreements == 0 else f'{disagreements} differ'} "
        f"({len(verdicts['first'])} per run, {len(sides) * args.rounds} runs); logs: {logs}"
    )
    return 0 if disagreements == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
