"""Classbench builds from scratch of PyPI releases whose test dependencies bind a system library (issue 41's table).

For each release: ``benchsmith classbench build`` without ``--system-deps`` (a dependency that does not build is left
out, and the card names the Debian package that would have helped), then with it (that package installed, the
build tried again), each with a cache of its own; then ``benchsmith eval`` of each dataset's gold and empty classes.
The round without the option runs first: the one with it installs Debian packages on this machine for good.

    nice -n 10 .venv/bin/python bench/system_deps_table.py --work /tmp/sysdeps [--only transitions]

Per round the table gives what was left out and why, the Debian packages named or installed, the tests collected,
run and not runnable, the tasks, golds and empty classes passing, and the build's seconds.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from env_rebuild_table import Target, benchsmith, judge, last_line, source_args  # noqa: E402

TARGETS = [
    Target("transitions", "pypi:transitions==0.9.2", declares="extra diagrams: pygraphviz"),
    Target("networkx", "pypi:networkx==3.4.2", declares="extra extra: pygraphviz"),
    Target("django-auth-ldap", "pypi:django-auth-ldap==4.6.0", declares="install_requires: python-ldap"),
]
ROUNDS = (("without", []), ("with", ["--system-deps"]))


def run(target: Target, work: Path, mirrors: Path, rounds: tuple = ROUNDS) -> list[dict]:
    rows = []
    for label, options in rounds:
        folder = work / target.label / label
        cache = folder / "cache"
        subprocess.run(["rm", "-rf", str(folder)], check=True)
        cache.mkdir(mode=0o755, parents=True)
        out = folder / "dataset.parquet"
        status, seconds = benchsmith(
            cache,
            folder / "build.log",
            "classbench",
            "build",
            *source_args(target, work, mirrors),
            *options,
            "--out",
            str(out),
        )
        (folder / "status.json").write_text(json.dumps({"status": status, "seconds": round(seconds, 1)}))
        if status == 0 and json.loads(out.with_suffix(".card.json").read_text())["tasks"]:
            (folder / "judged.json").write_text(json.dumps(judge(folder, cache, out)))
        rows.append(row_of(target, label, folder))
    return rows


def row_of(target: Target, label: str, folder: Path) -> dict:
    """A round's row, from what it left in *folder*: its exit status and seconds, its card, its evaluation."""
    ended = json.loads((folder / "status.json").read_text())
    row: dict = {"label": target.label, "spec": target.spec, "round": label, "build_seconds": ended["seconds"]}
    if ended["status"] != 0:
        row["error"] = last_line(folder / "build.log")
        return row
    card = json.loads((folder / "dataset.card.json").read_text())
    resolution = card["resolution"]
    lost = card.get("not_runnable", {})
    row.update(
        {
            "python": resolution["python"],
            "not_built": [
                f"{d['requirement']}: {d['error']}"
                + (f" (Debian: {d['debian_package']})" if d["debian_package"] else "")
                for d in resolution.get("not_built", [])
            ],
            "system_packages": [f"{d['package']} for {d['for']}" for d in resolution.get("system_packages", [])],
            "unimportable": sorted(resolution.get("unimportable", {})),
            "declarations_dropped": [d["source"] for d in resolution["dropped"]],
            "collected": card["suite_run"]["collected"],
            "suite": card["test_suite"],
            "not_runnable_tests": lost.get("tests", 0),
            "not_runnable_modules": lost.get("modules_not_collected", 0),
            "not_runnable_by_module": {
                m: e["tests"] + len(e["modules_not_collected"]) for m, e in lost.get("by_module", {}).items()
            },
            "classes": card["classes"],
            "tasks": card["tasks"],
            "card_seconds": card["seconds"],
        }
    )
    if (folder / "judged.json").exists():
        row.update(json.loads((folder / "judged.json").read_text()))
    return row


def table(rows: list[dict]) -> str:
    lines = [
        "| release | --system-deps | left out (why) | Debian packages | collected | run | not runnable (tests + "
        "modules) | tasks | golds passing | empty passing | build s |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        if "error" in row:
            lines.append(
                f"| {row['spec']} | {row['round']} | failed: {row['error']} | | | | | | | "
                f"| {row['build_seconds']:.0f} |"
            )
            continue
        ran = sum(n for outcome, n in row["suite"].items() if outcome not in ("not runnable", "crashed", "timed out"))
        gold = f"{row['gold_plausible']}/{row['tasks']}" if "gold_plausible" in row else row.get("eval_error", "-")
        empty = f"{row['empty_plausible']}/{row['tasks']}" if "empty_plausible" in row else "-"
        named = "; ".join(row["system_packages"]) if row["round"] == "with" else ""
        lines.append(
            f"| {row['spec']} | {row['round']} | {'; '.join(row['not_built']) or 'nothing'} | {named or '-'} "
            f"| {row['collected']} | {ran} | {row['not_runnable_tests']} + {row['not_runnable_modules']} "
            f"| {row['tasks']} | {gold} | {empty} | {row['build_seconds']:.0f} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, required=True, help="where the caches, datasets and logs go")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--only", default="", help="comma-separated labels (default: all)")
    parser.add_argument("--round", choices=[r for r, _ in ROUNDS], help="only this round (default: both, in order)")
    parser.add_argument("--markdown", action="store_true", help="print only the table of what --work holds")
    args = parser.parse_args()
    args.work = args.work.resolve()
    (args.work / "repos").mkdir(parents=True, exist_ok=True)
    rounds = tuple(r for r in ROUNDS if not args.round or r[0] == args.round)
    rows = []
    for target in [t for t in TARGETS if not args.only or t.label in args.only.split(",")]:
        if not args.markdown:
            print(f"{target.label}: building {', '.join(r for r, _ in rounds)} --system-deps", file=sys.stderr)
            run(target, args.work, args.mirrors, rounds)
        for label, _ in rounds:
            if (args.work / target.label / label / "status.json").exists():
                rows.append(row_of(target, label, args.work / target.label / label))
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
