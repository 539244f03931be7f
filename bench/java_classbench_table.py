"""Java classbench on real repositories: builds from an empty cache, again warm, and with --paraphrase; one table.

    python bench/java_classbench_table.py --mirrors /work/.mirror --work /tmp/jcb-table [--only cli,csv]

Each repository is a public git history (bring it with any git clone; the default names are the ``fetch`` mirrors'
folders, ``<mirrors>/apache+commons-cli/repo``) at a release tag. The cache lives under ``--work``: the first
build of a run starts from nothing (the cache is emptied first), the second reuses it, the third flips the names.
The table prints classes, tasks, directives, how many ground truths pass, the empty class's CR and TR, the
rejections by reason, the paraphrase's flips and surviving tests, and the times.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPOSITORIES = {  # name → (mirror folder, tag, test framework)
    "cli": ("apache+commons-cli", "commons-cli-1.5.0", "JUnit 4"),
    "csv": ("apache+commons-csv", "rel/commons-csv-1.10.0", "JUnit 5"),
    "codec": ("apache+commons-codec", "rel/commons-codec-1.15", "JUnit 4"),
    "compress": ("apache+commons-compress", "rel/1.21", "JUnit 4"),
}


def build(
    work: Path, name: str, repo: Path, tag: str, label: str, *extra: str, reuse: bool = False
) -> tuple[dict, float]:
    out = work / f"{name}-{label}.parquet"
    timing = out.with_suffix(".seconds")
    if reuse and timing.is_file():
        return json.loads(out.with_suffix(".card.json").read_text()), float(timing.read_text())
    started = time.monotonic()
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchsmith.cli",
            "classbench",
            "build",
            "--language",
            "java",
            "--repo",
            str(repo),
            "--commit",
            tag,
            "--out",
            str(out),
            *extra,
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "BENCHSMITH_CACHE": str(work / "cache")},
    )
    seconds = time.monotonic() - started
    (work / f"{name}-{label}.log").write_text(completed.stdout + completed.stderr)
    if completed.returncode != 0:
        raise SystemExit(f"{name} ({label}) failed: {completed.stderr.strip().splitlines()[-1]}")
    timing.write_text(f"{seconds:.1f}")
    return json.loads(out.with_suffix(".card.json").read_text()), seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--only", default=",".join(REPOSITORIES))
    parser.add_argument(
        "--reuse",
        default="",
        help="labels (cold,warm,paraphrased) whose earlier builds in --work are "
        "read, not run again; the cache is then kept",
    )
    args = parser.parse_args()
    reuse = set(filter(None, args.reuse.split(",")))
    if not reuse:
        shutil.rmtree(args.work / "cache", ignore_errors=True)
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in args.only.split(","):
        folder, tag, framework = REPOSITORIES[name]
        repo = args.mirrors / folder / "repo"
        cold, cold_seconds = build(args.work, name, repo, tag, "cold", reuse="cold" in reuse)
        warm, warm_seconds = build(args.work, name, repo, tag, "warm", reuse="warm" in reuse)
        flipped, _ = build(args.work, name, repo, tag, "paraphrased", "--paraphrase", reuse="paraphrased" in reuse)
        assert [t for t in warm["solution_checks"]] == [t for t in cold["solution_checks"]], f"{name}: warm differs"
        checks = cold["solution_checks"].values()
        paraphrase = flipped["paraphrase"]
        rows.append(
            [
                f"commons-{name} {tag.rsplit('/', 1)[-1]} ({framework})",
                cold["classes"],
                cold["tasks"],
                cold["directives"],
                f"{sum(c['gold'] == 'plausible' for c in checks)}/{len(checks)}",
                f"{sum(c['empty_compiled'] for c in checks)}/{len(checks)}",
                f"{sum(c['empty_TR'] for c in checks) / max(len(checks), 1):.2f}",
                ", ".join(f"{r} {n}" for r, n in Counter(r["reason"] for r in cold["rejections"]).most_common()),
                f"{len(cold['excluded_test_classes'])} / {len(cold['excluded_main_classes'])}",
                f"{paraphrase['names_flipped']} ({paraphrase['names_excluded']} kept)"
                if paraphrase.get("run")
                else "-",
                f"{paraphrase['still_passing_after']}/{paraphrase['tests_passing_before']} "
                f"({100 * (paraphrase['still_passing_share'] or 0):.1f}%), "
                f"{paraphrase['tasks_after']}/{paraphrase['tasks_before']} tasks"
                if paraphrase.get("run")
                else "-",
                f"{cold_seconds:.0f} s / {warm_seconds:.0f} s",
            ]
        )
        print(f"{name}: done", file=sys.stderr, flush=True)
    header = [
        "repository",
        "classes",
        "tasks",
        "directives",
        "gold passes all",
        "empty compiles (CR)",
        "empty TR",
        "rejections by reason",
        "test / main classes left out",
        "names flipped",
        "passing tests still passing",
        "build cold / warm",
    ]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
