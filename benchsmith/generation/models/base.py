"""The one interface every model backend implements, and the records that cross it.

A backend answers chat requests (``complete``); a request says what it is
for (``item_id`` and ``purpose``) so that backends which do not talk to a
model — ``replay`` reads answers from a file, ``template`` renders metadata
into prose — can answer it too. Backends that can embed text implement
``embed`` as well.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from benchsmith.core.errors import BenchsmithError

DEFAULT_CONCURRENCY = 4


@dataclass(frozen=True)
class ToolCall:
    """A function call the model asked for (the OpenAI tools API's ``tool_calls``); *arguments* is its raw JSON text,
    which a model may get wrong."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Message:
    role: str  # "system", "user", "assistant" or "tool"
    content: str
    tool_calls: tuple[ToolCall, ...] = ()  # an assistant message that called tools
    tool_call_id: str = ""  # a "tool" message: the call it answers


@dataclass(frozen=True)
class ChatRequest:
    messages: tuple[Message, ...]
    n: int = 1
    temperature: float = 0.0
    max_tokens: int | None = None
    item_id: str = ""  # the instance_id or task_id the request is about
    purpose: str = ""  # "generate/zero-shot", "generate/reasoning/turn-2", "describe/detailed", ...
    context: Mapping[str, str] = field(default_factory=dict)  # what a non-model backend needs (e.g. the metadata)
    # Functions the model may call (the OpenAI tools API's ``tools``: {"type": "function", "function": {...}});
    # only backends whose ``supports_tools`` is true accept them.
    tools: tuple[Mapping[str, object], ...] = ()


@dataclass
class Usage:
    requests: int = 0  # sent to the service (cache hits not counted)
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, other: Usage) -> None:
        self.requests += other.requests
        self.cache_hits += other.cache_hits
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd


@dataclass
class ChatResponse:
    texts: list[str]  # one per sample (``request.n`` of them)
    model: str
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    tool_calls: list[tuple[ToolCall, ...]] = field(default_factory=list)  # per sample, beside ``texts``; [] when none


@runtime_checkable
class Backend(Protocol):
    """What every backend declares beside answering: what it spent, whether that has a price, how many at once."""

    name: str  # the registry name: "openai", "replay", "template"
    model: str  # what produced the answers ("gpt-4o-mini", "template-v1", the replay file's model)
    default_concurrency: int  # requests in flight when the caller names no number (--concurrency sets it)

    @property
    def usage(self) -> Usage:
        """Requests, cache hits, tokens and cost so far; zero for backends that send nothing."""
        ...

    @property
    def priced(self) -> bool:
        """Whether ``usage.cost_usd`` is known (prices were given)."""
        ...

    def complete(self, request: ChatRequest) -> ChatResponse: ...


@runtime_checkable
class Embedder(Protocol):
    name: str
    model: str

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def complete_many(
    backend: Backend, requests: Sequence[ChatRequest], concurrency: int = DEFAULT_CONCURRENCY
) -> Iterator[tuple[int, ChatResponse]]:
    """Answer *requests* with at most *concurrency* in flight; yield ``(index, response)`` as each finishes.

    Threads suffice: backends wait on the network or read files. The first
    failure propagates after the requests not yet started are cancelled.
    """
    if concurrency < 1:
        raise BenchsmithError(f"concurrency must be at least 1, got {concurrency}")
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=f"{backend.name}-backend") as pool:
        futures = {pool.submit(backend.complete, request): index for index, request in enumerate(requests)}
        pending = set(futures)
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                # Successes first: an answer that finished beside a failure is not lost.
                for future in sorted(done, key=lambda f: f.exception() is not None):
                    yield futures[future], future.result()
        finally:
            for future in pending:
                future.cancel()


class BackendBase:
    """The declarations of :class:`Backend` with their usual values: nothing spent, no price, the default
    concurrency."""

    name: str
    model: str
    default_concurrency: int = DEFAULT_CONCURRENCY
    supports_tools: bool = False  # answers requests that carry ``tools`` with ``tool_calls``

    def __init__(self) -> None:
        self.usage = Usage()  # stays zero unless the backend sends requests somewhere

    @property
    def priced(self) -> bool:
        return False
