"""benchsmith: rebuild Defects4J-NL2Fix and RepoClassBench from real repositories and score models by running tests.

The command line, one module per command group (its options beside its handler); this package composes them. It is
the top layer: the only place that composes whole stages.
"""

from __future__ import annotations

import argparse
import sys

from benchsmith import __version__
from benchsmith.cli import agent, classbench, evaluate, generation, nl2fix, paraphrase, scoring, scrape, serve, view
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.progress import setup_logging


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="benchsmith", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"benchsmith {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages (cache misses, ...)")
    commands = parser.add_subparsers(dest="command", required=True)
    for register in (
        nl2fix.register_nl2fix,
        classbench.register,
        paraphrase.register,
        nl2fix.register_validate,
        evaluate.register,
        serve.register,
        scrape.register,
        generation.register_candidates,
        generation.register_describe,
        generation.register_generate,
        agent.register,
        scoring.register_rank,
        scoring.register_report,
        view.register,
    ):
        register(commands)
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
