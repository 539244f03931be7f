"""Options several commands share: where candidates run, for how long, on how many workers."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def limits(args: argparse.Namespace):
    from benchsmith.runners.sandbox.jail import Limits

    return Limits(wall_seconds=args.timeout)


def add_execution_options(parser: argparse.ArgumentParser, d4j_required: bool = True) -> None:
    parser.add_argument(
        "--defects4j",
        type=Path,
        required=d4j_required,
        metavar="D4J_ROOT",
        help="the Defects4J checkout an NL2Fix dataset came from",
    )
    parser.add_argument("--repos", type=Path, metavar="DIR", help="upstream git repositories as DIR/<Project>")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1), help="instances run in parallel")
    parser.add_argument("--timeout", type=float, default=120.0, help="wall-clock seconds per candidate run")
    add_executor_options(parser)


def add_judging_options(parser: argparse.ArgumentParser) -> None:
    """What ``eval`` and ``serve`` both take to judge candidates: the execution options and how to judge."""
    add_execution_options(parser, d4j_required=False)
    parser.add_argument("--plain", action="store_true", help="skip the warm JVM: fresh copy, full javac, fresh JVM")
    parser.add_argument(
        "--regression", action="store_true", help="run the relevant tests even after a trigger test fails"
    )
    parser.add_argument(
        "--second-opinion",
        action="store_true",
        help="Python classbench: judge a plausible candidate again, in a run arranged otherwise",
    )


def add_executor_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--executor",
        choices=["local", "ray"],
        default="local",
        help="where instances run: threads here (--workers of them) or a Ray cluster",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="the Ray cluster to join (host:port or 'auto'); default: RAY_ADDRESS, else a new local one",
    )


def eval_options_of(args: argparse.Namespace, dataset: Path, candidates: Path, out: Path):
    """The judging options ``add_judging_options`` parsed, as the ``EvalOptions`` eval and serve both judge with."""
    from benchsmith.benchmarks import EvalOptions

    return EvalOptions(
        dataset=dataset,
        candidates=candidates,
        out=out,
        defects4j=args.defects4j,
        repos=args.repos,
        workers=args.workers,
        limits=limits(args),
        fast=not args.plain,
        regression=args.regression,
        second_opinion=args.second_opinion,
    )


def executor_of(args: argparse.Namespace):
    from benchsmith.runners.sandbox.executors import executor

    return executor(args.executor, args.workers, args.ray_address)
