"""``benchsmith serve``: verdicts over HTTP, judged as ``eval`` judges (docs/serve.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchsmith.cli.options import add_judging_options, eval_options_of, executor_of


def _serve(args: argparse.Namespace) -> int:
    from benchsmith.serve.app import Limits
    from benchsmith.serve.server import ServeConfig, serve

    # serve reads no candidates file and writes no results file: the first dataset and the store stand in for both
    options = eval_options_of(args, args.dataset[0], args.dataset[0], args.store)
    config = ServeConfig(
        datasets=args.dataset,
        token_file=args.token_file,
        store=args.store,
        options=options,
        host=args.host,
        port=args.port,
        batch=args.batch,
        reward=args.reward,
        limits=Limits(max_queue=args.max_queue, max_per_client=args.max_per_token, judge_wait=args.judge_wait),
        max_body_bytes=args.max_body,
        rate=args.rate,
        burst=max(args.rate * 2, 1.0),
        max_connections=args.max_connections,
    )
    serve(config, executor_of(args))
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    serve = commands.add_parser("serve", help="judge candidates over HTTP, for trainers (docs/serve.md)")
    serve.add_argument("--dataset", type=Path, action="append", required=True, help="a dataset to judge (repeatable)")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: loopback only)")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--token-file", type=Path, required=True, help="bearer tokens, one a line")
    serve.add_argument("--store", type=Path, required=True, metavar="DIR", help="the jobs database and runs' logs")
    add_judging_options(serve)
    serve.add_argument(
        "--reward",
        choices=["plausible", "pass-rate"],
        default="plausible",
        help="classbench's reward when a request names none: 1 for plausible only, or the share of tests passed",
    )
    serve.add_argument("--batch", type=int, default=16, help="queued jobs of one instance judged on one runner")
    serve.add_argument("--max-queue", type=int, default=10_000, help="queued jobs before submissions get 429")
    serve.add_argument("--max-per-token", type=int, default=2_000, help="one token's unanswered jobs at most")
    serve.add_argument("--judge-wait", type=float, default=600.0, help="seconds POST /v1/judge waits, then 202")
    serve.add_argument("--max-body", type=int, default=8 * 1024 * 1024, help="request body bytes at most")
    serve.add_argument("--rate", type=float, default=200.0, help="requests a second per token (bursts of twice it)")
    serve.add_argument("--max-connections", type=int, default=1000, help="open connections at once (503 beyond)")
    serve.set_defaults(handler=_serve)
