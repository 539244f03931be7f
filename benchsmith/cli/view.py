"""``benchsmith view``: a static site of a run, from its summary down to one candidate's failing assertion."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchsmith.core.errors import BenchsmithError


def _view(args: argparse.Namespace) -> int:
    from benchsmith.view.inputs import read_inputs
    from benchsmith.view.site import write_site

    try:
        ks = [int(k) for k in args.k.split(",")] if args.k else None
    except ValueError:
        raise BenchsmithError(f"--k {args.k!r}: not comma-separated whole numbers") from None
    inputs = read_inputs(
        args.results, args.candidates, args.dataset, args.ranking, args.transcripts, ground_truth=args.ground_truth
    )
    written = write_site(inputs, args.out, ks)
    print(
        f"{written.out}/index.html: {written.candidates} candidates of {written.runs} results files, "
        f"{written.transcripts} transcripts, {len(written.notices)} notices"
    )
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    view = commands.add_parser(
        "view", help="a static site of a run: summary, instances, each candidate's diff, verdict and log, transcripts"
    )
    view.add_argument(
        "--results", type=Path, action="append", required=True, help="results.parquet from `eval` (repeatable)"
    )
    view.add_argument(
        "--candidates",
        type=Path,
        action="append",
        help="the candidates JSONL that was evaluated (repeatable): the code each candidate's page shows",
    )
    view.add_argument(
        "--dataset",
        type=Path,
        action="append",
        help="the dataset the results answer (repeatable): what code is diffed against",
    )
    view.add_argument("--ranking", type=Path, action="append", help="ranking.parquet from `rank`: r.pass@k and ranks")
    view.add_argument("--transcripts", type=Path, action="append", help="an agent run's transcripts JSONL (repeatable)")
    view.add_argument(
        "--ground-truth",
        action="store_true",
        help="diff classbench candidates against the ground truth class (a page that shows it spoils the benchmark)",
    )
    view.add_argument(
        "--k", help="comma-separated k for pass@k (default: 1, 5, 10, 100 up to the samples per instance)"
    )
    view.add_argument("--out", type=Path, required=True, help="the site's folder (index.html and data/)")
    view.set_defaults(handler=_view)
