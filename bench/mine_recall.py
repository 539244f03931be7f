"""Recall of ``nl2fix mine`` against Defects4J: of Defects4J's single-method bugs of a project, which the miner found
with the same fixed commit, and why it missed each other one.

    python bench/mine_recall.py --defects4j D4J_ROOT --repos DIR --project Cli --mined MINED_DIR [--dataset D4J.parquet]

*MINED_DIR* is the output of ``nl2fix mine`` over the project's upstream history (its ``mine.json``). The single-method
bugs are those ``nl2fix build`` keeps (the lenient rule); *--dataset* names its Parquet, else it is built here.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def _single_method_bugs(args) -> list[dict]:
    from benchsmith.core.schema import NL2FixInstance, read_records

    dataset = args.dataset
    if dataset is None:
        dataset = Path(tempfile.mkdtemp(prefix="mine-recall-")) / f"{args.project}.parquet"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "benchsmith.cli",
                "nl2fix",
                "build",
                "--defects4j",
                str(args.defects4j),
                "--repos",
                str(args.repos),
                "--projects",
                args.project,
                "--no-scrape",
                "--out",
                str(dataset),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return [
        {"bug": r.instance_id, "fixed": r.revision_fixed, "report": r.report_id}
        for r in read_records(dataset, NL2FixInstance)
        if r.project == args.project
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--defects4j", type=Path, required=True)
    parser.add_argument("--repos", type=Path, required=True)
    parser.add_argument("--project", required=True)
    parser.add_argument("--mined", type=Path, required=True)
    parser.add_argument("--dataset", type=Path)
    args = parser.parse_args()
    card = json.loads((args.mined / "mine.json").read_text())
    steps = {s["sha"]: s for s in card["steps"]}
    git_dir = Path(card["git_dir"])
    found, rows = 0, []
    for bug in _single_method_bugs(args):
        step = steps.get(bug["fixed"])
        if step is not None and not step["reason"] and step["bug_id"]:
            found += 1
            rows.append((bug["bug"], bug["fixed"][:12], "found", f"{card['project']}-{step['bug_id']}"))
            continue
        if step is not None:
            why = (
                f"{step['reason']}: {step['detail'][:160]}"
                if step["reason"] != "no issue reference"
                else f"no issue reference (report {bug['report']} not named in the message)"
            )
        else:
            shown = subprocess.run(
                ["git", "--git-dir", str(git_dir), "show", "-s", "--format=%cI", bug["fixed"]],
                capture_output=True,
                text=True,
            )
            date = shown.stdout.strip()
            if shown.returncode != 0:
                why = "commit not in the history"
            elif (card["since"] and date < card["since"]) or (card["until"] and date > card["until"]):
                why = f"outside the range scanned (committed {date[:10]})"
            else:
                why = "not scanned (not reachable from the scanned head)"
        rows.append((bug["bug"], bug["fixed"][:12], "missed", why.replace("|", "\\|").replace("\n", " ")))
    print(f"{args.project}: {found} of {len(rows)} single-method Defects4J bugs found with the same fixed commit\n")
    print("| bug | fixed commit | miner | why |\n| --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
