"""benchsmith: rebuild Defects4J-NL2Fix and RepoClassBench from real repositories and score models by running tests.

The command line, one module per command group (its options beside its handler); this package composes them. It is
the top layer: the only place that composes whole stages.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from benchsmith import __version__
from benchsmith.cli import agent, classbench, evaluate, generation, nl2fix, paraphrase, scoring, scrape, serve, view
from benchsmith.core.errors import BenchsmithError, Terminated
from benchsmith.core.progress import setup_logging
from benchsmith.runners.sandbox import jail as sandbox


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
    # serve stops on SIGTERM in its own way: the jobs being judged are queued again
    with _stopped_cleanly(args.command != "serve"):
        try:
            return args.handler(args)
        except BenchsmithError as exc:
            print(f"benchsmith: error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt as exc:
            sandbox.clean_up_runs()
            by_sigterm = isinstance(exc, Terminated) and exc.args[:1] == ("SIGTERM",)
            how = "stopped by SIGTERM" if by_sigterm else "interrupted"
            print(f"benchsmith: {how}; finished work is cached, run the same command again to resume", file=sys.stderr)
            return 128 + signal.SIGTERM if by_sigterm else 130


@contextmanager
def _stopped_cleanly(wanted: bool) -> Iterator[None]:
    """SIGTERM and Ctrl-C kill the runs still going (a trusted run's servers among them) and unwind the command as
    Ctrl-C does, so that each run's clean-up runs (its process group, its uid's leftovers, its folders); the default
    SIGTERM ends the process at once and leaves them all behind. A second signal does not cut the clean-up short."""
    if not wanted or threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(number: int, frame: object) -> None:
        if sandbox.terminating():
            return
        sandbox.terminate_runs()
        raise Terminated(signal.Signals(number).name)

    # a signal ignored from the start stays ignored (a shell starts background jobs with SIGINT ignored)
    previous = {
        number: signal.signal(number, stop)
        for number in (signal.SIGTERM, signal.SIGINT)
        if signal.getsignal(number) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        if not sandbox.terminating():  # else kept: the interpreter's exit still waits for the workers' clean-up
            for number, handler in previous.items():
                signal.signal(number, handler)
