"""``benchsmith eval``: candidates judged by running the tests."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchsmith.cli.options import add_execution_options, executor_of, limits
from benchsmith.core.verdict import Status


def _eval(args: argparse.Namespace) -> int:
    from benchsmith.benchmarks import EvalOptions
    from benchsmith.scoring.evaluate import evaluate

    results = evaluate(
        EvalOptions(
            dataset=args.dataset,
            candidates=args.candidates,
            out=args.out,
            defects4j=args.defects4j,
            repos=args.repos,
            workers=args.workers,
            limits=limits(args),
            fast=not args.plain,
            regression=args.regression,
            second_opinion=args.second_opinion,
        ),
        executor_of(args),
    )
    statuses = {s.value: sum(r.status == s for r in results) for s in Status}
    print(f"{args.out}: {len(results)} results ({', '.join(f'{s} {n}' for s, n in statuses.items())})")
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    evaluate = commands.add_parser("eval", help="judge candidates by running the tests")
    evaluate.add_argument("--dataset", type=Path, required=True)
    evaluate.add_argument(
        "--candidates", type=Path, required=True, help="JSON Lines: instance_id, candidate_id, code, ..."
    )
    add_execution_options(evaluate, d4j_required=False)
    evaluate.add_argument("--plain", action="store_true", help="skip the warm JVM: fresh copy, full javac, fresh JVM")
    evaluate.add_argument(
        "--regression", action="store_true", help="run the relevant tests even after a trigger test fails"
    )
    evaluate.add_argument(
        "--second-opinion",
        action="store_true",
        help="Python classbench: judge a plausible candidate again, in a run arranged otherwise",
    )
    evaluate.add_argument("--out", type=Path, required=True, help="results.parquet")
    evaluate.set_defaults(handler=_eval)
