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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.registry import Registry
from benchsmith.generation.models.base import DEFAULT_CONCURRENCY, Backend, complete_many

# A backend's target is a factory ``create(model=None, **options)`` or a class taking the same keywords; ``options``
# names the keywords it takes ("model" among them when the backend uses --model). Third-party backends join through
# the entry point group "benchsmith.backends"; theirs take --model only, unless the target declares ``options``.
BACKENDS: Registry = Registry(
    "model backend", "benchsmith.backends", base="benchsmith.generation.models.base:BackendBase"
)
BACKENDS.add(
    "openai",
    "benchsmith.generation.models.openai_backend:create",
    "an OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY, or Azure's AZURE_OPENAI_ENDPOINT, "
    "AZURE_OPENAI_API_KEY, OPENAI_API_VERSION)",
    options=frozenset(
        {"model", "max_retries", "price_input", "price_output", "embedding_model", "timeout", "use_cache"}
    ),
)
BACKENDS.add(
    "replay",
    "benchsmith.generation.models.replay:create",
    "answers recorded in a JSONL file",
    options=frozenset({"model", "replay"}),
)
BACKENDS.add(
    "scripted",
    "benchsmith.generation.models.scripted:create",
    "the model's side of conversations (agent turns, tool calls) replayed from a JSONL script",
    options=frozenset({"model", "script"}),
)
BACKENDS.add(
    "template",
    "benchsmith.generation.models.template:create",
    "descriptions rendered from metadata",
    options=frozenset(),
)

# Text embedders for ranking and retrieval (``benchsmith rank --embedder``); plugins: group "benchsmith.embedders".
EMBEDDERS: Registry = Registry("embedder", "benchsmith.embedders", base="benchsmith.generation.models.base:Embedder")
EMBEDDERS.add("minilm", "benchsmith.generation.models.embeddings:MiniLMEmbedder", "all-MiniLM-L6-v2, offline")
EMBEDDERS.add("openai", "benchsmith.generation.models.embeddings:OpenAIEmbedder", "the paper's text-embedding-ada-002")


def backend_options(name: str) -> frozenset[str]:
    """The keywords the backend registered as *name* takes (a plugin's: its target's ``options``, else the model)."""
    entry = BACKENDS.entry(name)
    if "options" in entry.extra:
        return entry.extra["options"]
    return frozenset(getattr(BACKENDS.load(name), "options", {"model"}))


# The options of add_backend_arguments (beside --model), as backend keywords; each backend gets those its entry names.
_FROM_ARGS: Mapping[str, Callable[[argparse.Namespace], Any]] = {
    "max_retries": lambda args: args.max_retries,
    "price_input": lambda args: args.price_input,
    "price_output": lambda args: args.price_output,
    "use_cache": lambda args: not args.no_cache,
    "replay": lambda args: args.replay,
    "script": lambda args: args.script,
}

__all__ = [
    "BACKENDS",
    "EMBEDDERS",
    "add_backend_arguments",
    "backend_from_args",
    "backend_options",
    "complete_many",
    "format_usage",
    "get_backend",
]


def get_backend(name: str, model: str | None = None, **options: Any) -> Backend:
    """The backend registered as *name*; options set to None count as not given.

    openai: *model* is required; options max_retries, price_input and
    price_output (USD per million tokens), embedding_model, timeout, use_cache.
    replay: option ``replay`` (the JSONL file) is required; *model* overrides
    the model the file names. scripted: option ``script`` (the JSONL script) is
    required. template: no options (and no model: it is its own).
    """
    accepted = backend_options(name)
    given = {key: value for key, value in options.items() if value is not None}
    unknown = sorted(set(given) - accepted)
    if unknown:
        raise BenchsmithError(f"the {name} backend takes no option {', '.join(unknown)}")
    if model and "model" in accepted:
        given["model"] = model
    return BACKENDS.create(name, **given)


def add_backend_arguments(parser: argparse.ArgumentParser, default_backend: str | None = None) -> None:
    """The options every model-using command shares."""
    group = parser.add_argument_group("model backend")
    described = "; ".join(f"{name}: {entry.help}" for name, entry in BACKENDS.entries().items())
    group.add_argument(
        "--backend",
        choices=BACKENDS.names(),
        default=default_backend,
        help=described + (f" (default {default_backend})" if default_backend else ""),
    )
    group.add_argument("--model", help="the model (Azure: the deployment) for the openai backend")
    group.add_argument("--replay", metavar="FILE", type=Path, help="the JSONL file the replay backend answers from")
    group.add_argument(
        "--script",
        metavar="FILE",
        type=Path,
        help="the JSONL script (or agent transcripts) the scripted backend answers from",
    )
    group.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        help=f"requests in flight at once (default {DEFAULT_CONCURRENCY})",
    )
    group.add_argument(
        "--max-retries",
        type=int,
        default=5,
        help="retries of a request after 429, 5xx or a connection error (default 5)",
    )
    group.add_argument(
        "--price-input",
        type=float,
        default=0.0,
        metavar="USD",
        help="USD per million prompt tokens, for the cost report (default 0: unknown)",
    )
    group.add_argument(
        "--price-output",
        type=float,
        default=0.0,
        metavar="USD",
        help="USD per million completion tokens (default 0: unknown)",
    )
    group.add_argument(
        "--no-cache",
        action="store_true",
        help="ask the model again instead of reusing cached answers, and replace them",
    )


def backend_from_args(args: argparse.Namespace) -> Backend:
    """The backend the options of :func:`add_backend_arguments` chose; its ``default_concurrency`` is --concurrency."""
    if not args.backend:
        raise BenchsmithError(f"choose a model backend with --backend ({', '.join(BACKENDS.names())})")
    if args.concurrency < 1:
        raise BenchsmithError(f"--concurrency must be at least 1, got {args.concurrency}")
    accepted = backend_options(args.backend)
    options = {key: value(args) for key, value in _FROM_ARGS.items() if key in accepted}
    backend = get_backend(args.backend, args.model, **options)
    backend.default_concurrency = args.concurrency
    return backend


def format_usage(backend: Backend) -> str:
    """One line for the end of a run: requests, cache hits, tokens and cost (unknown without prices)."""
    usage = backend.usage
    line = (
        f"{backend.name} {backend.model}: {usage.requests} requests, {usage.cache_hits} cache hits, "
        f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens"
    )
    return line + (
        f", cost ${usage.cost_usd:.4f}" if backend.priced else ", cost unknown (no --price-input/--price-output)"
    )
