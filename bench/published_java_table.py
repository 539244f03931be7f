"""The published RepoClassBench Java tasks, all 130, judged at their located commits: one row per repository.

    python bench/published_java_table.py --mirrors /work/.mirror --work /tmp/published-java [--only imglib,sleeper]
        [--from java_data.json]

``--mirrors`` holds each repository's public history as ``<mirrors>/<owner+name>/repo`` (the ``fetch`` tool's
layout; any clone does) and microsoft/repoclassbench's as ``<mirrors>/microsoft+repoclassbench/repo``, whose
``data/input/java_data.json`` is read unless ``--from`` names a copy. The script runs what a user runs:
``classbench locate`` (the commit of each repository, by the ground truths' blobs), ``classbench import --repos
--commits``, ``candidates reference`` (each task's gold and empty class) and ``eval``, one repository at a time with
one worker, so each repository's seconds are its own (its workspace built, its Maven dependencies resolved into the
cache under ``--work``, then its candidates judged). Run again on the same ``--work``, eval judges only what its
results there lack under the same verdict key, and the cache is kept.

A task is judged when its gold got a verdict other than ``error``; every task that is not is listed with its reason:
the import's (``tasks_not_buildable`` of its card) or the gold's verdict's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from benchsmith.core.schema import ClassBenchTask, Result, read_records

UPSTREAM = {  # repo_name of java_data.json → owner+name of its public history
    "zouzhiy-excel": "zouzhiy+zouzhiy-excel",
    "imglib": "nackily+imglib",
    "sleeper": "gchq+sleeper",
    "dongting": "dtprj+dongting",
    "batch-processing-gateway": "apple+batch-processing-gateway",
    "binance-futures-connector-java": "binance+binance-futures-connector-java",
    "AgileBoot-Back-End": "valarchie+AgileBoot-Back-End",
    "howlite": "websight-io+howlite",
    "kafka-microservices-with-saga": "sylleryum+kafka-microservices-with-saga",
    "crud-angular-spring": "loiane+crud-angular-spring",
}
PUBLISHED_ON = "2024-07-23"  # the date java_data.json appeared: locate prefers the newest commit before it


def benchsmith(work: Path, log: Path, *argv: str) -> subprocess.CompletedProcess:
    completed = subprocess.run(
        [sys.executable, "-m", "benchsmith.cli", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, "BENCHSMITH_CACHE": str(work / "cache")},
    )
    log.write_text(completed.stdout + completed.stderr)
    if completed.returncode != 0:
        raise SystemExit(f"benchsmith {' '.join(argv[:2])} failed, see {log}: {completed.stderr.strip()[-500:]}")
    return completed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--from", dest="source", default="")
    parser.add_argument("--only", default=",".join(UPSTREAM))
    args = parser.parse_args()
    work = args.work.resolve()
    (work / "repos").mkdir(parents=True, exist_ok=True)
    source = Path(args.source) if args.source else work / "java_data.json"
    if not args.source:
        published = args.mirrors / "microsoft+repoclassbench" / "repo"
        text = subprocess.run(
            ["git", "-C", str(published), "show", "HEAD:data/input/java_data.json"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        source.write_text(text)
    for name, folder in UPSTREAM.items():
        link = work / "repos" / name
        if not link.exists():
            link.symlink_to((args.mirrors / folder / "repo").resolve())
    mapping, dataset, references = work / "mapping.json", work / "java.parquet", work / "references.jsonl"
    started = time.monotonic()
    benchsmith(
        work, work / "locate.log", "classbench", "locate", "--from", str(source), "--repos", str(work / "repos"),
        "--before", PUBLISHED_ON, "--out", str(mapping),
    )  # fmt: skip
    benchsmith(
        work, work / "import.log", "classbench", "import", "--from", str(source), "--repos", str(work / "repos"),
        "--commits", str(mapping), "--out", str(dataset),
    )  # fmt: skip
    benchsmith(
        work, work / "reference.log", "candidates", "reference", "--dataset", str(dataset), "--out", str(references)
    )
    print(f"located, imported, references written: {time.monotonic() - started:.0f} s", file=sys.stderr)
    card = json.loads(dataset.with_suffix(".card.json").read_text())
    tasks = {task.task_id: task for task in read_records(dataset, ClassBenchTask)}
    lines = references.read_text().splitlines()
    rows, reasons, failing = [], {}, {}
    for name in args.only.split(","):
        mine = [line for line in lines if json.loads(line)["instance_id"].startswith(f"{name}::")]
        candidates, results = work / f"{name}.jsonl", work / f"{name}.results.parquet"
        seconds = work / f"{name}.seconds"
        candidates.write_text("".join(f"{line}\n" for line in mine))
        started = time.monotonic()
        benchsmith(
            work, work / f"{name}.eval.log", "eval", "--dataset", str(dataset), "--candidates", str(candidates),
            "--workers", "1", "--out", str(results),
        )  # fmt: skip
        seconds.write_text(f"{time.monotonic() - started:.0f}")
        verdicts = defaultdict(dict)
        for result in read_records(results, Result):
            verdicts[result.instance_id][result.candidate_id] = result
        ids = [task_id for task_id in tasks if task_id.startswith(f"{name}::")]
        judged = [t for t in ids if t in verdicts and verdicts[t].get("gold") and verdicts[t]["gold"].status != "error"]
        for task_id in ids:
            gold = verdicts.get(task_id, {}).get("gold")
            if task_id not in judged:
                reasons[task_id] = card["tasks_not_buildable"].get(task_id) or (gold.reason if gold else "no verdict")
            elif gold.status != "plausible":
                failing[task_id] = f"{gold.status}: {gold.reason}"
        gold_passing = sum(verdicts[t]["gold"].status == "plausible" for t in judged)
        empty_passing = sum(v.get("empty") is not None and v["empty"].status == "plausible" for v in verdicts.values())
        empties = sum(v.get("empty") is not None and v["empty"].status != "error" for v in verdicts.values())
        commit = card["located_commits"].get(name, "")[:12]
        rows.append(
            [name, commit, len(ids), len(judged), gold_passing, f"{empty_passing} of {empties}", seconds.read_text()]
        )
        print(f"{name}: done", file=sys.stderr, flush=True)
    header = ["repository", "commit", "imported", "judged", "golds plausible", "empty plausible (of judged)", "eval s"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    total = [sum(row[i] for row in rows) for i in (2, 3, 4)]
    print(f"| all | | {total[0]} | {total[1]} | {total[2]} | | |")
    for title, listed in (("Not judged", reasons), ("Judged, the gold not plausible", failing)):
        if listed:
            print(f"\n{title}:")
            for task_id, why in listed.items():
                print(f"- {task_id}: {' '.join(why.split())[:400] if why else '(no reason given)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
