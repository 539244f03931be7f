"""The model backends behind one registry: ``openai`` (any OpenAI-compatible endpoint), ``replay``, ``scripted``,
``template``.

Commands that talk to models (``benchsmith describe``, ``benchsmith generate``)
add the shared options with :func:`add_backend_arguments` and build the
backend with :func:`backend_from_args`; code builds one with
:func:`get_backend`. Each backend module is imported only when chosen, so
importing this package never imports ``openai``.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchsmith.core.errors import BenchsmithError
from harness.models.base import DEFAULT_CONCURRENCY, Backend, complete_many


@dataclass(frozen=True)
class BackendEntry:
    """A registered backend: where its factory lives (imported only when chosen) and what it accepts."""

    module: str  # the module holding ``create``, the factory
    options: frozenset[str]  # the keywords ``create`` takes; "model" among them when the backend uses --model
    help: str

    def factory(self) -> Callable[..., Backend]:
        return importlib.import_module(self.module).create


REGISTRY: Mapping[str, BackendEntry] = {
    "openai": BackendEntry(
        "harness.models.openai_backend",
        frozenset({"model", "max_retries", "price_input", "price_output", "embedding_model", "timeout", "use_cache"}),
        "an OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY, or Azure's AZURE_OPENAI_ENDPOINT, "
        "AZURE_OPENAI_API_KEY, OPENAI_API_VERSION)",
    ),
    "replay": BackendEntry("harness.models.replay", frozenset({"model", "replay"}), "answers recorded in a JSONL file"),
    "scripted": BackendEntry("harness.models.scripted", frozenset({"model", "script"}),
                             "the model's side of conversations (agent turns, tool calls) replayed from a JSONL script"),
    "template": BackendEntry("harness.models.template", frozenset(), "descriptions rendered from metadata"),
}
BACKENDS = tuple(REGISTRY)

# The options of add_backend_arguments (beside --model), as backend keywords; each backend gets those its entry names.
_FROM_ARGS: Mapping[str, Callable[[argparse.Namespace], Any]] = {
    "max_retries": lambda args: args.max_retries,
    "price_input": lambda args: args.price_input,
    "price_output": lambda args: args.price_output,
    "use_cache": lambda args: not args.no_cache,
    "replay": lambda args: args.replay,
    "script": lambda args: args.script,
}

__all__ = ["BACKENDS", "REGISTRY", "add_backend_arguments", "backend_from_args", "complete_many", "format_usage",
           "get_backend"]  # fmt: skip


def get_backend(name: str, model: str | None = None, **options: Any) -> Backend:
    """The backend registered as *name*; options set to None count as not given.

    openai: *model* is required; options max_retries, price_input and
    price_output (USD per million tokens), embedding_model, timeout, use_cache.
    replay: option ``replay`` (the JSONL file) is required; *model* overrides
    the model the file names. scripted: option ``script`` (the JSONL script) is
    required. template: no options (and no model: it is its own).
    """
    entry = REGISTRY.get(name)
    if entry is None:
        raise BenchsmithError(f"unknown model backend {name!r} (choose from {', '.join(BACKENDS)})")
    given = {key: value for key, value in options.items() if value is not None}
    unknown = sorted(set(given) - entry.options)
    if unknown:
        raise BenchsmithError(f"the {name} backend takes no option {', '.join(unknown)}")
    if model and "model" in entry.options:
        given["model"] = model
    return entry.factory()(**given)


def add_backend_arguments(parser: argparse.ArgumentParser, default_backend: str | None = None) -> None:
    """The options every model-using command shares."""
    group = parser.add_argument_group("model backend")
    described = "; ".join(f"{name}: {entry.help}" for name, entry in REGISTRY.items())
    group.add_argument("--backend", choices=BACKENDS, default=default_backend,
                       help=described + (f" (default {default_backend})" if default_backend else ""))  # fmt: skip
    group.add_argument("--model", help="the model (Azure: the deployment) for the openai backend")
    group.add_argument("--replay", metavar="FILE", type=Path, help="the JSONL file the replay backend answers from")
    group.add_argument("--script", metavar="FILE", type=Path,
                       help="the JSONL script (or agent transcripts) the scripted backend answers from")  # fmt: skip
    group.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY,
                       help=f"requests in flight at once (default {DEFAULT_CONCURRENCY})")  # fmt: skip
    group.add_argument("--max-retries", type=int, default=5,
                       help="retries of a request after 429, 5xx or a connection error (default 5)")  # fmt: skip
    group.add_argument("--price-input", type=float, default=0.0, metavar="USD",
                       help="USD per million prompt tokens, for the cost report (default 0: unknown)")  # fmt: skip
    group.add_argument("--price-output", type=float, default=0.0, metavar="USD",
                       help="USD per million completion tokens (default 0: unknown)")  # fmt: skip
    group.add_argument("--no-cache", action="store_true",
                       help="ask the model again instead of reusing cached answers, and replace them")  # fmt: skip


def backend_from_args(args: argparse.Namespace) -> Backend:
    """The backend the options of :func:`add_backend_arguments` chose; its ``default_concurrency`` is --concurrency."""
    if not args.backend:
        raise BenchsmithError(f"choose a model backend with --backend ({', '.join(BACKENDS)})")
    if args.concurrency < 1:
        raise BenchsmithError(f"--concurrency must be at least 1, got {args.concurrency}")
    entry = REGISTRY[args.backend]
    options = {key: value(args) for key, value in _FROM_ARGS.items() if key in entry.options}
    backend = get_backend(args.backend, args.model, **options)
    backend.default_concurrency = args.concurrency
    return backend


def format_usage(backend: Backend) -> str:
    """One line for the end of a run: requests, cache hits, tokens and cost (unknown without prices)."""
    usage = backend.usage
    line = (f"{backend.name} {backend.model}: {usage.requests} requests, {usage.cache_hits} cache hits, "
            f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens")  # fmt: skip
    return line + (f", cost ${usage.cost_usd:.4f}" if backend.priced else ", cost unknown (no --price-input/--price-output)")
