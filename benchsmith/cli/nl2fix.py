"""``benchsmith nl2fix build`` and ``benchsmith validate``: the Defects4J-NL2Fix dataset and its proof."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from benchsmith.cli.options import add_execution_options, executor_of, limits
from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.journal import Journal
from benchsmith.core.schema import NL2FixInstance, read_records


def _nl2fix_build(args: argparse.Namespace) -> int:
    from benchsmith.builders.nl2fix import BuildOptions, build

    started = time.monotonic()
    card = build(
        BuildOptions(
            defects4j=args.defects4j,
            out=args.out,
            repos=args.repos,
            projects=args.projects,
            scrape=not args.no_scrape,
            workers=args.workers,
            validate=args.validate,
            timeout=args.timeout,
            **({"selection": args.selection} if args.selection else {}),
            bugs=args.bugs,
        )
    )
    per_project = ", ".join(f"{p} {s['selected']}/{s['bugs']}" for p, s in card["projects"].items())
    print(
        f"{args.out}: {card['instances']} instances ({card['selection']} rule, {card['near_misses']} near misses) "
        f"from {card['bugs']} bugs ({per_project}) in {time.monotonic() - started:.1f}s"
    )
    if args.bugs is not None:  # a published list: say which of its bugs the rule rejects, and why
        for rejection in card["rejections"]:
            print(f"rejected {rejection['bug']}: {rejection['reason']} ({rejection['detail']})")
    for project, reason in card["skipped_projects"].items():
        print(f"skipped {project}: {reason}")
    return 0


def _nl2fix_mine(args: argparse.Namespace) -> int:
    from benchsmith.builders.mine.run import MineOptions, mine

    card = mine(
        MineOptions(
            repo=args.repo,
            out=args.out,
            since=args.since,
            until=args.until,
            name=args.name,
            **({"selection": args.selection} if args.selection else {}),
            jira=args.jira or "",
            github=args.github or "",
            scrape=not args.no_scrape,
            timeout=args.timeout,
            limit=args.limit,
            runs=args.runs,
            finish=args.finish,
        )
    )
    counts = card["counts"]
    print(
        f"{args.out}/framework/projects/{card['project']}: {counts['instances']} instances from {counts['scanned']} "
        f"commits ({counts['referencing_issue']} referencing an issue, single-method {counts['single_method_strict']} "
        f"strict / {counts['single_method_lenient']} lenient, {counts['with_flaky_tests']} with flaky tests dropped) "
        f"in {card['seconds']}s; card: {args.out}/MINE.md"
    )
    return 0


def _validate(args: argparse.Namespace) -> int:
    from benchsmith.builders.validate import summary, validate_all
    from benchsmith.sources.defects4j import Defects4JRoot

    instances = read_records(args.dataset, NL2FixInstance)
    outcomes = validate_all(
        instances,
        Defects4JRoot(args.defects4j.resolve()),
        args.repos,
        args.workers,
        limits(args),
        args.out.with_name(args.out.name + ".logs"),
        executor_of(args),
        out=args.out,
    )
    from benchsmith.runners.java.toolchain import defects4j_runtime

    runtime = defects4j_runtime().describe()
    report = {
        "summary": summary(outcomes),
        "test_runtime": runtime,
        "instances": {i: {"status": v.status, "reason": v.reason} for i, v in outcomes.items()},
    }
    write_text_atomic(args.out, json.dumps(report, indent=2) + "\n")
    Journal(args.out).remove()
    counts = report["summary"]
    print(
        f"{args.out}: {counts.get('reproduced', 0)} of {counts['instances']} instances reproduced (tests on {runtime})"
    )
    for instance_id, validation in outcomes.items():
        if validation.status != "reproduced":
            print(f"  {instance_id}: {validation.reason}")
    return 0


def register_nl2fix(commands: argparse._SubParsersAction) -> None:
    nl2fix = commands.add_parser("nl2fix", help="the Defects4J-NL2Fix benchmark")
    nl2fix_commands = nl2fix.add_subparsers(dest="nl2fix_command", required=True)
    nl2fix_build = nl2fix_commands.add_parser("build", help="Defects4J → single-method instances (Parquet)")
    nl2fix_build.add_argument("--defects4j", type=Path, required=True, metavar="D4J_ROOT", help="a Defects4J checkout")
    nl2fix_build.add_argument("--repos", type=Path, metavar="DIR", help="upstream git repositories as DIR/<Project>")
    nl2fix_build.add_argument(
        "--projects", metavar="P,Q", help="comma-separated projects, or 'all' (default: the paper's twelve)"
    )
    nl2fix_build.add_argument(
        "--selection",
        choices=["strict", "lenient"],  # builders/selection.py SELECTIONS
        help="strict: the fix changes one method only; lenient (the default): also fields and "
        "helper methods, recorded as each instance's extra_changes",
    )
    nl2fix_build.add_argument(
        "--bugs",
        type=Path,
        metavar="FILE",
        help="build exactly these bugs (ids like Cli-5, one a line); rejected ones are listed",
    )
    nl2fix_build.add_argument("--no-scrape", action="store_true", help="leave the issue columns empty")
    nl2fix_build.add_argument(
        "--workers", type=int, default=min(2, os.cpu_count() or 1), help="parallel analysis processes"
    )
    nl2fix_build.add_argument(
        "--validate", action="store_true", help="execute gold and buggy; fill the validation column"
    )
    nl2fix_build.add_argument("--timeout", type=float, default=120.0, help="wall-clock seconds per run when validating")
    nl2fix_build.add_argument("--out", type=Path, required=True, help="the Parquet file to write")
    nl2fix_build.set_defaults(handler=_nl2fix_build)
    nl2fix_mine = nl2fix_commands.add_parser(
        "mine",
        help="a Java repository's history → a Defects4J-shaped project "
        "of fresh single-method bugs (docs/nl2fix-mine.md)",
    )
    nl2fix_mine.add_argument("--repo", required=True, metavar="SPEC", help="a git URL or a local repository")
    nl2fix_mine.add_argument("--since", metavar="DATE", help="only fixes committed on or after DATE (the cut-off)")
    nl2fix_mine.add_argument("--until", metavar="DATE", help="only fixes committed up to DATE")
    nl2fix_mine.add_argument("--name", help="the Defects4J project name (default: from the repository's name)")
    nl2fix_mine.add_argument(
        "--selection", choices=["strict", "lenient"], help="the single-method rule (default lenient)"
    )
    nl2fix_mine.add_argument(
        "--jira", metavar="URL", help="the Jira project, https://.../browse/KEY (default: the pom's)"
    )
    nl2fix_mine.add_argument(
        "--github", metavar="OWNER/NAME", help="the GitHub project #N refers to (default: the pom's)"
    )
    nl2fix_mine.add_argument("--limit", type=int, metavar="N", help="scan only the newest N steps")
    nl2fix_mine.add_argument("--runs", type=int, default=3, help="runs of each version's tests (at least 3)")
    nl2fix_mine.add_argument(
        "--finish",
        action="store_true",
        help="export what an interrupted scan journalled, scanning no further (the range ends there)",
    )
    nl2fix_mine.add_argument("--no-scrape", action="store_true", help="do not fetch the instances' issue reports")
    nl2fix_mine.add_argument("--timeout", type=float, default=120.0, help="wall-clock seconds per test run")
    nl2fix_mine.add_argument("--out", type=Path, required=True, metavar="DIR", help="the Defects4J root to write")
    nl2fix_mine.set_defaults(handler=_nl2fix_mine)


def register_validate(commands: argparse._SubParsersAction) -> None:
    validate = commands.add_parser("validate", help="prove each instance: gold passes, buggy fails the trigger tests")
    validate.add_argument("--dataset", type=Path, required=True)
    add_execution_options(validate)
    validate.add_argument("--out", type=Path, required=True, help="report.json")
    validate.set_defaults(handler=_validate)
