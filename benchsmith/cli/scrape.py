"""``benchsmith scrape``: issue reports' text from their trackers."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchsmith.core.errors import BenchsmithError


def _scrape(args: argparse.Namespace) -> int:
    from benchsmith.scrapers.scrape import run

    if args.workers < 1:
        raise BenchsmithError(f"--workers {args.workers}: must be at least 1")
    summary = run(args.urls, args.out, workers=args.workers)
    missing = ", ".join(f"{reason}: {count}" for reason, count in summary.missing.items()) or "none"
    print(
        f"{args.out}: {summary.filled} of {summary.urls} issues filled; missing: {missing} "
        f"({summary.network_requests} requests, {summary.cache_hits} answered from the cache)"
    )
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    scrape = commands.add_parser("scrape", help="issue report URLs → title, description, comments (Parquet)")
    scrape.add_argument("--urls", type=Path, required=True, metavar="FILE", help="one issue URL a line")
    scrape.add_argument(
        "--workers", type=int, default=4, help="issues fetched in parallel (per-host limits still apply)"
    )
    scrape.add_argument("--out", type=Path, required=True, help="issues.parquet")
    scrape.set_defaults(handler=_scrape)
