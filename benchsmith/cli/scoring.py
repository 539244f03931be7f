"""``benchsmith rank`` and ``report``: candidates ranked by embedding similarity, and the metrics of results."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.generation.models import EMBEDDERS


def _rank(args: argparse.Namespace) -> int:
    from benchsmith.scoring.ranking import parse_threshold, rank_to_file

    records = rank_to_file(args.dataset, args.candidates, args.out, args.embedder, parse_threshold(args.threshold))
    kept = sum(not r.pruned for r in records)
    print(f"{args.out}: {len(records)} candidates ranked, {kept} above the threshold, {len(records) - kept} pruned")
    return 0


def _report(args: argparse.Namespace) -> int:
    from benchsmith.benchmarks import get
    from benchsmith.core.schema import RankedCandidate, Result, json_objects, read_records, read_stamp
    from benchsmith.scoring.report import METRIC_COLUMNS, plot, render_table, summarise

    ks = [int(k) for k in args.k.split(",")]
    results = read_records(args.results, Result)
    stamp = read_stamp(args.results)
    columns = get(stamp.benchmark).report_columns if stamp and stamp.benchmark else METRIC_COLUMNS
    ranking = read_records(args.ranking, RankedCandidate) if args.ranking else None
    transcripts = []
    for path in args.transcripts or []:
        for where, row in json_objects(path, "transcripts"):
            if not isinstance(row.get("task_id"), str) or not isinstance(row.get("events"), list):
                raise BenchsmithError(f"{where}: not an agent transcript (no task_id and events)")
            transcripts.append(row)
    summary = summarise(results, ks, ranking, transcripts)
    if args.plots:
        for path in plot(summary, args.plots, ks):
            print(f"wrote {path}", file=sys.stderr)
    print(json.dumps(summary, indent=2) if args.json else render_table(summary, ks, columns))
    return 0


def register_rank(commands: argparse._SubParsersAction) -> None:
    rank = commands.add_parser("rank", help="rank each bug's candidates by embedding similarity to its buggy method")
    rank.add_argument("--dataset", type=Path, required=True, help="an NL2Fix dataset")
    rank.add_argument("--candidates", type=Path, required=True, help="JSON Lines: instance_id, candidate_id, code, ...")
    rank.add_argument(
        "--embedder",
        choices=EMBEDDERS.names(),
        default="minilm",
        help="minilm (all-MiniLM-L6-v2) runs offline; openai asks for the paper's text-embedding-ada-002",
    )
    rank.add_argument(
        "--threshold",
        default="median",
        metavar="median|COSINE",
        help="prune candidates less similar than this: the median over the file (default; the paper's "
        "came out at 0.95 with ada-002 and was then fixed), or a cosine such as 0.95",
    )
    rank.add_argument("--out", type=Path, required=True, help="ranking.parquet")
    rank.set_defaults(handler=_rank)


def register_report(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser("report", help="pass@k, per project, Table 2 statistics, plots")
    report.add_argument("--results", type=Path, required=True)
    report.add_argument("--k", default="1,5,10,100", help="comma-separated k values")
    report.add_argument("--json", action="store_true", help="print JSON instead of a table")
    report.add_argument("--plots", type=Path, metavar="DIR", help="write PNG plots here")
    report.add_argument(
        "--ranking", type=Path, metavar="FILE", help="ranking.parquet from `benchsmith rank`: adds r.pass@k"
    )
    report.add_argument(
        "--transcripts",
        type=Path,
        metavar="FILE",
        action="append",
        help="an agent run's transcripts (repeatable): adds its tool-call frequencies",
    )
    report.set_defaults(handler=_report)
