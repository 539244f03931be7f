"""Classbench builds from scratch, then again from an emptied cache: same locks, same tasks (issue 12's table).

For each repository: ``benchsmith classbench build`` with a cache of its own (round 1), the same build with
another, empty cache (round 2: the source, uv's downloads, the environment, the suite runs all made again), and
``benchsmith eval``
of round 1's dataset with its gold and empty classes in round 2's cache, so the environment comes from the lock the
dataset recorded. The table gives the tasks, the golds that pass in that evaluation, each round's seconds, the test
declarations the environment was resolved from, the as-of date, and whether the two rounds' locks and task ids are
identical.

    nice -n 10 python bench/env_rebuild_table.py --work /tmp/rebuild [--only tomlkit,cachetools] [--mirrors
    /work/.mirror]

Git repositories are cloned at run time from the bare mirrors the ``fetch`` tool brings (``<mirrors>/<owner>+<name>/
repo``). A repository already done in *work* is not built again (``--again`` redoes it); ``--markdown`` prints the
table for the README.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchsmith.core.schema import ClassBenchTask, Result, read_records  # noqa: E402


@dataclass(frozen=True)
class Target:
    label: str
    spec: str  # pypi:NAME==VERSION, or owner/name of a mirror
    commit: str = ""
    declares: str = ""  # how the repository declares its test dependencies (what the table's reader looks for)


TARGETS = [
    Target("requests", "pypi:requests==2.31.0", declares="sdist"),
    Target("click", "pypi:click==8.1.7", declares="sdist"),
    Target("marshmallow", "pypi:marshmallow==3.21.1", declares="sdist"),
    Target("tomlkit", "python-poetry/tomlkit", "d8ed1e3cdb024dfc2c6f12b45a0dfd4d4d91f727", "poetry group dev"),
    Target("dep-logic", "pdm-project/dep-logic", "b9faea551638070db4575d05f8a2a86fc8560519", "pdm dev-dependencies"),
    Target("marko", "frostming/marko", "0fa0b29b670feca15558652f327bc20c3baee91b", "pdm dev-dependencies"),
    Target("jupyter_core", "jupyter/jupyter_core", "2e63fd3928a979844fa0c2a247ee1937bbae9a99", "hatch env test"),
    Target("cachetools", "tkem/cachetools", "28d4506f2a49d781ffbcecb095fa7aba5bb80aff", "tox.ini deps"),
]


def benchsmith(cache: Path, log: Path, *args: str) -> tuple[int, float]:
    """One ``benchsmith`` command with *cache* as its cache, and uv's download cache inside it (so that an emptied
    cache downloads every distribution again); (exit status, seconds); its output in *log*."""
    started = time.monotonic()
    env = {**os.environ, "BENCHSMITH_CACHE": str(cache), "UV_CACHE_DIR": str(cache / "uv")}
    with log.open("w") as handle:
        completed = subprocess.run(
            [sys.executable, "-m", "benchsmith.cli", *args], cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT, env=env
        )
    return completed.returncode, time.monotonic() - started


def source_args(target: Target, work: Path, mirrors: Path) -> list[str]:
    if target.spec.startswith("pypi:"):
        return ["--repo", target.spec]
    clone = work / "repos" / f"{target.spec.split('/')[1]}.git"
    if not clone.exists():
        mirror = mirrors / target.spec.replace("/", "+") / "repo"
        subprocess.run(["git", "clone", "--bare", "--quiet", str(mirror), str(clone)], check=True)
    return ["--repo", str(clone), "--commit", target.commit]


def last_line(log: Path) -> str:
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def run(target: Target, work: Path, mirrors: Path) -> dict:
    folder = work / target.label
    folder.mkdir(parents=True, exist_ok=True)
    row: dict = {"label": target.label, "spec": target.spec, "commit": target.commit[:12], "declares": target.declares}
    rounds = []
    for number in (1, 2):
        cache = folder / f"cache-{number}"  # round 2 starts from nothing: no source, environment, download or run
        subprocess.run(["rm", "-rf", str(cache)], check=True)
        cache.mkdir(mode=0o755, parents=True)
        out = folder / f"round-{number}.parquet"
        status, seconds = benchsmith(
            cache,
            folder / f"build-{number}.log",
            "classbench",
            "build",
            *source_args(target, work, mirrors),
            "--out",
            str(out),
        )
        if status != 0:
            row["error"] = f"round {number}: {last_line(folder / f'build-{number}.log')}"
            return row
        card = json.loads(out.with_suffix(".card.json").read_text())
        rounds.append(
            {
                "seconds": round(seconds, 1),
                "card": card,
                "lock": Path(card["resolution"]["lock"]).read_text(),
                "tasks": sorted(t.task_id for t in read_records(out, ClassBenchTask)),
            }
        )
    first, second = rounds
    resolution = first["card"]["resolution"]
    row.update(
        {
            "as_of": resolution["as_of"],
            "python": resolution["python"],
            "declarations": resolution["declarations"],
            "dropped": [d["source"] for d in resolution["dropped"]],
            "tasks": len(first["tasks"]),
            "classes": first["card"]["classes"],
            "suite": first["card"]["test_suite"],
            "build_seconds": first["seconds"],
            "rebuild_seconds": second["seconds"],
            "locks_identical": first["lock"] == second["lock"],
            "locked_packages": first["lock"].count("=="),
            "installed_identical": first["card"]["environment"] == second["card"]["environment"],
            "tasks_identical": first["tasks"] == second["tasks"],
        }
    )
    if not row["tasks_identical"]:
        row["task_difference"] = sorted(set(first["tasks"]) ^ set(second["tasks"]))
    if first["tasks"]:  # round 1's dataset judged in round 2's cache: its environment made again from its lock
        row.update(judge(folder, folder / "cache-2", folder / "round-1.parquet"))
    return row


def judge(folder: Path, cache: Path, dataset: Path) -> dict:
    """``benchsmith eval`` of *dataset*'s gold and empty classes in *cache*: how many of each are plausible, the
    golds that are not with their reasons, and the seconds (or the evaluation's error)."""
    candidates = folder / "reference.jsonl"
    benchsmith(
        cache, folder / "reference.log", "candidates", "reference", "--dataset", str(dataset), "--out", str(candidates)
    )
    results = folder / "results.parquet"
    results.unlink(missing_ok=True)
    status, seconds = benchsmith(
        cache,
        folder / "eval.log",
        "eval",
        "--dataset",
        str(dataset),
        "--candidates",
        str(candidates),
        "--out",
        str(results),
        "--workers",
        "2",
    )
    if status != 0:
        return {"eval_error": last_line(folder / "eval.log")}
    verdicts = read_records(results, Result)
    return {
        "gold_plausible": sum(r.candidate_id == "gold" and r.status == "plausible" for r in verdicts),
        "empty_plausible": sum(r.candidate_id == "empty" and r.status == "plausible" for r in verdicts),
        "gold_failures": {
            r.instance_id: r.reason for r in verdicts if r.candidate_id == "gold" and r.status != "plausible"
        },
        "eval_seconds": round(seconds, 1),
    }


def table(rows: list[dict]) -> str:
    lines = [
        "| repository | test dependencies declared in | as of | tasks | gold passing | build s | rebuild s "
        "| same lock | same tasks |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for row in rows:
        name = row["spec"] + (f"@{row['commit']}" if row["commit"] else "")
        if "error" in row:
            lines.append(f"| {name} | {row['declares']} | | failed: {row['error']} | | | | | |")
            continue
        gold = f"{row['gold_plausible']}/{row['tasks']}" if "gold_plausible" in row else row.get("eval_error", "-")
        used = "; ".join(d for d in row["declarations"] if not d.startswith("benchsmith:")) or "none"
        lines.append(
            f"| {name} | {row['declares']} (read: {used}) | {(row['as_of'] or 'latest')[:10]} | {row['tasks']} "
            f"| {gold} | {row['build_seconds']:.0f} | {row['rebuild_seconds']:.0f} "
            f"| {'yes' if row['locks_identical'] else 'NO'} ({row['locked_packages']} pins) "
            f"| {'yes' if row['tasks_identical'] else 'NO'} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, required=True, help="where the clones, caches, datasets and logs go")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--only", default="", help="comma-separated labels (default: all)")
    parser.add_argument("--again", action="store_true", help="redo repositories already done in --work")
    parser.add_argument("--markdown", action="store_true", help="print only the table of what --work holds")
    args = parser.parse_args()
    args.work = args.work.resolve()
    (args.work / "repos").mkdir(parents=True, exist_ok=True)
    chosen = [t for t in TARGETS if not args.only or t.label in args.only.split(",")]
    rows = []
    for target in chosen:
        done = args.work / target.label / "row.json"
        if done.exists() and not args.again or args.markdown:
            if done.exists():
                rows.append(json.loads(done.read_text()))
            continue
        print(f"{target.label}: building twice ...", file=sys.stderr, flush=True)
        row = run(target, args.work, args.mirrors)
        done.write_text(json.dumps(row, indent=2) + "\n")
        print(json.dumps({k: v for k, v in row.items() if k not in ("declarations",)}), file=sys.stderr, flush=True)
        rows.append(row)
    print(table(rows))
    return 0 if all("error" not in r and r.get("locks_identical") and r.get("tasks_identical") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
