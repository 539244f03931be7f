"""``benchsmith eval``: candidates judged by running the tests."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchsmith.cli.options import add_judging_options, eval_options_of, executor_of
from benchsmith.core.verdict import Status


def _eval(args: argparse.Namespace) -> int:
    from benchsmith.scoring.evaluate import evaluate

    executor = executor_of(args)
    results = evaluate(eval_options_of(args, args.dataset, args.candidates, args.out), executor)
    statuses = {s.value: sum(r.status == s for r in results) for s in Status}
    on = f"; judged on the {executor.name} executor, instead of {executor.instead_of}" if executor.instead_of else ""
    print(f"{args.out}: {len(results)} results ({', '.join(f'{s} {n}' for s, n in statuses.items())}){on}")
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    evaluate = commands.add_parser("eval", help="judge candidates by running the tests")
    evaluate.add_argument("--dataset", type=Path, required=True)
    evaluate.add_argument(
        "--candidates", type=Path, required=True, help="JSON Lines: instance_id, candidate_id, code, ..."
    )
    add_judging_options(evaluate)
    evaluate.add_argument("--out", type=Path, required=True, help="results.parquet")
    evaluate.set_defaults(handler=_eval)
