"""The ``benchsmith`` command line (its shape is a contract: see DESIGN.md)."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

from benchsmith import __version__
from benchsmith.errors import BenchsmithError
from benchsmith.progress import setup_logging

log = logging.getLogger("benchsmith")


def _nl2fix_build(args: argparse.Namespace) -> int:
    from builders.nl2fix import BuildOptions, build

    started = time.monotonic()
    card = build(
        BuildOptions(
            defects4j=args.defects4j,
            out=args.out,
            repos=args.repos,
            projects=args.projects,
            scrape=not args.no_scrape,
            workers=args.workers,
        )
    )
    per_project = ", ".join(f"{p} {s['selected']}/{s['bugs']}" for p, s in card["projects"].items())
    print(f"{args.out}: {card['instances']} instances from {card['bugs']} bugs ({per_project}) in {time.monotonic() - started:.1f}s")
    for project, reason in card["skipped_projects"].items():
        print(f"skipped {project}: {reason}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="benchsmith", description=__doc__)
    parser.add_argument("--version", action="version", version=f"benchsmith {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages (cache misses, ...)")
    commands = parser.add_subparsers(dest="command", required=True)

    nl2fix = commands.add_parser("nl2fix", help="the Defects4J-NL2Fix benchmark")
    nl2fix_commands = nl2fix.add_subparsers(dest="nl2fix_command", required=True)
    nl2fix_build = nl2fix_commands.add_parser("build", help="Defects4J → single-method instances (Parquet)")
    nl2fix_build.add_argument("--defects4j", type=Path, required=True, metavar="D4J_ROOT", help="a Defects4J checkout")
    nl2fix_build.add_argument("--repos", type=Path, metavar="DIR", help="upstream git repositories as DIR/<Project>")
    nl2fix_build.add_argument("--projects", metavar="P,Q", help="comma-separated projects, or 'all' (default: the paper's twelve)")
    nl2fix_build.add_argument("--no-scrape", action="store_true", help="leave the issue columns empty")
    nl2fix_build.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1), help="parallel analysis processes")
    nl2fix_build.add_argument("--out", type=Path, required=True, help="the Parquet file to write")
    nl2fix_build.set_defaults(handler=_nl2fix_build)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    setup_logging(args.verbose)
    try:
        return args.handler(args)
    except BenchsmithError as exc:
        print(f"benchsmith: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("benchsmith: interrupted; finished work is cached, run the same command again to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
