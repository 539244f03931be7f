"""``benchsmith candidates reference``, ``describe`` and ``generate``: descriptions and candidates, with or without a
model."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchsmith.generation.models import add_backend_arguments  # argparse only: no backend module is imported
from benchsmith.generation.prompts import STRATEGIES


def _reference_candidates(args: argparse.Namespace) -> int:
    from benchsmith.generation.candidates.reference import write_reference_candidates

    count = write_reference_candidates(args.dataset, args.out, args.mutants)
    print(f"{args.out}: {count} reference candidates")
    return 0


def _describe(args: argparse.Namespace) -> int:
    from benchsmith.builders.describe import describe
    from benchsmith.generation.models import backend_from_args, format_usage

    backend = backend_from_args(args)
    summary = describe(args.dataset, backend, args.out)
    print(
        f"{args.out or args.dataset}: {summary.described} of {summary.tasks} tasks described by {backend.name} "
        f"({summary.skipped} already were, {summary.resumed} by an interrupted run, "
        f"{len(summary.without_answers)} without an answer)"
    )
    print(format_usage(backend), file=sys.stderr)
    return 0


def _generate(args: argparse.Namespace) -> int:
    from benchsmith.generation.candidates.generate import generate
    from benchsmith.generation.models import backend_from_args, format_usage

    backend = backend_from_args(args)
    summary = generate(
        args.dataset,
        args.strategy,
        backend,
        args.n,
        args.temperature,
        args.out,
        description=args.description,
        max_tokens=args.max_tokens,
    )
    print(
        f"{args.out}: {summary.candidates} candidates for {summary.items} items ({summary.resumed} from an interrupted "
        f"run, "
        f"{len(summary.without_answers)} without an answer, {summary.not_extracted} with no code found)"
    )
    print(format_usage(backend), file=sys.stderr)
    return 0


def register_candidates(commands: argparse._SubParsersAction) -> None:
    candidates = commands.add_parser("candidates", help="candidate files made without a model")
    candidates_commands = candidates.add_subparsers(dest="candidates_command", required=True)
    reference = candidates_commands.add_parser(
        "reference", help="gold, the unchanged buggy code and mutants of the gold"
    )
    reference.add_argument("--dataset", type=Path, required=True)
    reference.add_argument("--mutants", type=int, default=8, help="mutants of the gold per NL2Fix instance")
    reference.add_argument("--out", type=Path, required=True, help="candidates JSONL")
    reference.set_defaults(handler=_reference_candidates)


def register_describe(commands: argparse._SubParsersAction) -> None:
    describe = commands.add_parser("describe", help="write each classbench task's DETAILED and SKETCHY descriptions")
    describe.add_argument("--dataset", type=Path, required=True, help="a classbench dataset")
    add_backend_arguments(describe, default_backend="template")
    describe.add_argument("--out", type=Path, help="the dataset to write (default: --dataset, in place)")
    describe.set_defaults(handler=_describe)


def register_generate(commands: argparse._SubParsersAction) -> None:
    generate = commands.add_parser("generate", help="prompt a model for candidates (JSON Lines)")
    generate.add_argument("--dataset", type=Path, required=True)
    generate.add_argument(
        "--strategy",
        required=True,
        metavar="{" + ",".join(STRATEGIES) + "}",
        help="NL2Fix: zero-shot, title-only, one-shot, reasoning; classbench: basic; a plugin benchmark: its own",
    )
    generate.add_argument("--n", type=int, default=10, help="samples per instance (the paper: 100)")
    generate.add_argument("--temperature", type=float, default=0.8, help="the paper: 0.8 and 0.2")
    generate.add_argument(
        "--description",
        choices=["detailed", "sketchy"],
        help="classbench: which description to prompt with (default detailed)",
    )
    generate.add_argument("--max-tokens", type=int, help="cap on each answer's length")
    add_backend_arguments(generate)
    generate.add_argument("--out", type=Path, required=True, help="candidates JSONL")
    generate.set_defaults(handler=_generate)
