"""Any OpenAI-compatible chat endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp's server), via the official client.

Where to send requests comes from the environment, as the ``openai`` package
itself reads it:

* ``OPENAI_BASE_URL`` (default ``https://api.openai.com/v1``) and
  ``OPENAI_API_KEY``. A local server given by ``OPENAI_BASE_URL`` may go
  without a key.
* Azure OpenAI, used when ``AZURE_OPENAI_ENDPOINT`` is set and
  ``OPENAI_BASE_URL`` is not: ``AZURE_OPENAI_API_KEY`` and
  ``OPENAI_API_VERSION``; ``--model`` names the deployment.

Retries are the client's own: on connection errors, 408, 409, 429 and 5xx it
waits with exponential backoff (0.5 s doubling, at most 8 s) or what the
server's ``Retry-After`` asks (up to two minutes), at most ``max_retries``
times. Every answer is cached on disk (see ``benchsmith.generation.models.cache``).

Requests that carry ``tools`` are sent with them (the tools API), and the
``tool_calls`` of each choice come back beside its text; a server that refuses
tools (HTTP 400, 404 or 422 on such a request) raises :class:`ToolsUnsupported`,
so a caller can fall back to tools described in the prompt.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from benchsmith.core.errors import BenchsmithError
from benchsmith.generation.models.base import BackendBase, ChatRequest, ChatResponse, Message, ToolCall, Usage
from benchsmith.generation.models.cache import AnswerCache, endpoint_identity

log = logging.getLogger(__name__)
OPENAI_URL = "https://api.openai.com/v1"
DEFAULT_EMBEDDING_MODEL = "text-embedding-ada-002"  # the Defects4J-NL2Fix paper ranks patches with it
EMBED_BATCH = 128
_RETRIED_STATUSES = (408, 409, 429)
_TOOLS_REFUSED = (400, 404, 422)  # what servers without function calling answer a request carrying tools


class ToolsUnsupported(BenchsmithError):
    """The endpoint refused a request because it carried ``tools``."""


@dataclass(frozen=True)
class Endpoint:
    azure: bool
    url: str  # as configured; may carry credentials, so never printed
    api_key: str
    api_version: str | None = None

    @property
    def identity(self) -> str:
        """Host and path: what cache keys and messages name."""
        return endpoint_identity(self.url) + ("/openai" if self.azure else "")

    @property
    def display(self) -> str:
        return f"{urlsplit(self.url).scheme or 'https'}://{self.identity}"


def endpoint_from_env(env: Mapping[str, str] = os.environ) -> Endpoint:
    if env.get("AZURE_OPENAI_ENDPOINT") and not env.get("OPENAI_BASE_URL"):
        missing = [name for name in ("AZURE_OPENAI_API_KEY", "OPENAI_API_VERSION") if not env.get(name)]
        if missing:
            verb = "is" if len(missing) == 1 else "are"
            unset = " and ".join(missing)
            raise BenchsmithError(f"openai backend: AZURE_OPENAI_ENDPOINT is set but {unset} {verb} not")
        return Endpoint(True, env["AZURE_OPENAI_ENDPOINT"], env["AZURE_OPENAI_API_KEY"], env["OPENAI_API_VERSION"])
    url = env.get("OPENAI_BASE_URL") or OPENAI_URL
    key = env.get("OPENAI_API_KEY")
    if not key:
        if not env.get("OPENAI_BASE_URL"):
            raise BenchsmithError("openai backend: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)")
        key = "unused"  # vLLM, Ollama and llama.cpp accept any key, but the client insists on one
    return Endpoint(False, url, key)


class OpenAIBackend(BackendBase):
    name = "openai"
    supports_tools = True

    def __init__(
        self,
        model: str,
        *,
        max_retries: int = 5,
        price_input: float = 0.0,
        price_output: float = 0.0,
        embedding_model: str = DEFAULT_EMBEDDING_MODEL,
        timeout: float = 300.0,
        use_cache: bool = True,
        endpoint: Endpoint | None = None,
    ) -> None:
        if not model:
            raise BenchsmithError("openai backend: --model is required")
        if max_retries < 0:
            raise BenchsmithError(f"openai backend: --max-retries must be 0 or more, got {max_retries}")
        if price_input < 0 or price_output < 0:
            raise BenchsmithError("openai backend: prices must not be negative")
        super().__init__()
        self.model = model
        self.max_retries = max_retries
        self.price_input = price_input  # USD per million prompt tokens
        self.price_output = price_output  # USD per million completion tokens
        self.embedding_model = embedding_model
        self.timeout = timeout
        self.use_cache = use_cache
        self.endpoint = endpoint or endpoint_from_env()
        self._cache = AnswerCache(self.name)
        self._lock = threading.Lock()
        self._client: Any = None

    @property
    def priced(self) -> bool:
        return self.price_input > 0 or self.price_output > 0

    def complete(self, request: ChatRequest) -> ChatResponse:
        if request.n < 1:
            raise BenchsmithError(f"{request.item_id or 'request'}: n must be at least 1, got {request.n}")
        payload = {
            "kind": "chat",
            "endpoint": self.endpoint.identity,
            "model": self.model,
            "messages": [_cache_message(m) for m in request.messages],
            "n": request.n,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.tools:  # absent otherwise, so the keys of requests without tools stay what they were
            payload["tools"] = [dict(tool) for tool in request.tools]
        cached = self._cache.get(payload, {"texts": list, "model": str}) if self.use_cache else None
        if cached is not None:
            usage = Usage(cache_hits=1)
            self._account(usage)
            texts = [str(text) for text in cached["texts"]]
            calls = [tuple(ToolCall(*call) for call in sample) for sample in cached.get("tool_calls", [])]
            return ChatResponse(texts=texts, model=cached["model"], usage=usage, cached=True, tool_calls=calls)

        texts: list[str] = []
        calls: list[tuple[ToolCall, ...]] = []
        usage = Usage()
        served_by = self.model
        # Some servers (llama.cpp, older Ollama) ignore n and return one choice: ask again for the rest.
        while len(texts) < request.n:
            wanted = request.n - len(texts)
            completion = self._create_chat(request, wanted)
            choices = sorted(completion.choices or [], key=lambda c: c.index)[:wanted]
            if not choices:
                raise BenchsmithError(f"{self._url('chat/completions')}: the server returned no choices")
            if len(choices) < wanted:
                log.debug(
                    "%s returned %d of the %d samples asked for; asking again for the rest",
                    self._url("chat/completions"),
                    len(choices),
                    wanted,
                )
            texts += [choice.message.content or "" for choice in choices]
            calls += [_tool_calls(choice.message) for choice in choices]
            served_by = completion.model or served_by
            usage.requests += 1
            if completion.usage is not None:
                usage.prompt_tokens += completion.usage.prompt_tokens or 0
                usage.completion_tokens += completion.usage.completion_tokens or 0
        usage.cost_usd = self._cost(usage.prompt_tokens, usage.completion_tokens)
        entry: dict[str, Any] = {
            "model": served_by,
            "texts": texts,
            "requests": usage.requests,
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
        }
        if any(calls):
            entry["tool_calls"] = [[[c.id, c.name, c.arguments] for c in sample] for sample in calls]
        self._cache.put(payload, entry)
        self._account(usage)
        return ChatResponse(texts=texts, model=served_by, usage=usage, tool_calls=calls if any(calls) else [])

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, from the embeddings endpoint and model ``embedding_model``; cached per text.

        Embedding tokens count in ``usage.prompt_tokens`` but not in its cost:
        the chat prices do not apply to embedding models.
        """
        vectors: dict[str, list[float]] = {}
        hits = 0
        for text in dict.fromkeys(texts):
            cached = self._cache.get(self._embed_payload(text), {"embedding": list}) if self.use_cache else None
            if cached is not None:
                vectors[text] = [float(x) for x in cached["embedding"]]
                hits += 1
        missing = [text for text in dict.fromkeys(texts) if text not in vectors]
        usage = Usage(cache_hits=hits)
        for start in range(0, len(missing), EMBED_BATCH):
            batch = missing[start : start + EMBED_BATCH]
            answer = self._call(
                "embeddings",
                lambda c, b=batch: c.embeddings.create(model=self.embedding_model, input=b, encoding_format="float"),
            )
            data = sorted(answer.data or [], key=lambda item: item.index)
            if len(data) != len(batch):
                raise BenchsmithError(f"{self._url('embeddings')}: {len(data)} embeddings for {len(batch)} inputs")
            usage.requests += 1
            usage.prompt_tokens += answer.usage.prompt_tokens if answer.usage is not None else 0
            for text, item in zip(batch, data):
                vectors[text] = [float(x) for x in item.embedding]
                self._cache.put(
                    self._embed_payload(text),
                    {"model": answer.model or self.embedding_model, "embedding": vectors[text]},
                )
        self._account(usage)
        return [vectors[text] for text in texts]

    def _embed_payload(self, text: str) -> dict[str, Any]:
        return {"kind": "embed", "endpoint": self.endpoint.identity, "model": self.embedding_model, "input": text}

    def _create_chat(self, request: ChatRequest, n: int) -> Any:
        arguments: dict[str, Any] = {
            "model": self.model,
            "messages": [_api_message(m) for m in request.messages],
            "temperature": request.temperature,
        }
        if request.tools:
            arguments["tools"] = [dict(tool) for tool in request.tools]
        if n > 1:  # servers that reject or ignore n still answer a request without it
            arguments["n"] = n
        if request.max_tokens is not None:
            arguments["max_tokens"] = request.max_tokens
        return self._call(
            "chat/completions",
            lambda client: client.chat.completions.create(**arguments),
            with_tools=bool(request.tools),
        )

    def _call(self, route: str, send: Any, with_tools: bool = False) -> Any:
        import openai

        try:
            return send(self._openai_client())
        except openai.APIStatusError as exc:
            retried = exc.status_code in _RETRIED_STATUSES or exc.status_code >= 500
            after = f" after {self.max_retries} retries" if retried else ""
            message = re.sub(r"^Error code: \d+ - ", "", " ".join(str(exc.message).split()))[:200]
            error = ToolsUnsupported if with_tools and exc.status_code in _TOOLS_REFUSED else BenchsmithError
            raise error(f"{self._url(route)}: HTTP {exc.status_code}{after}: {message}") from None
        except openai.APIConnectionError as exc:
            raise BenchsmithError(f"{self._url(route)}: no answer after {self.max_retries} retries ({exc})") from None

    def _openai_client(self) -> Any:
        with self._lock:
            if self._client is None:
                import openai  # here, not at import: importing benchsmith must stay cheap and offline

                common = {"api_key": self.endpoint.api_key, "max_retries": self.max_retries, "timeout": self.timeout}
                if self.endpoint.azure:
                    self._client = openai.AzureOpenAI(
                        azure_endpoint=self.endpoint.url, api_version=self.endpoint.api_version, **common
                    )
                else:
                    self._client = openai.OpenAI(base_url=self.endpoint.url, **common)
            return self._client

    def _url(self, route: str) -> str:
        return f"{self.endpoint.display}/{route}"

    def _cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.price_input + completion_tokens * self.price_output) / 1_000_000

    def _account(self, usage: Usage) -> None:
        with self._lock:
            self.usage.add(usage)


def _cache_message(message: Message) -> list[Any]:
    """A message in a cache key: ``[role, content]`` as ever, plus its tool calls or the call it answers."""
    key: list[Any] = [message.role, message.content]
    if message.tool_calls:
        key.append([[c.id, c.name, c.arguments] for c in message.tool_calls])
    if message.tool_call_id:
        key.append(message.tool_call_id)
    return key


def _api_message(message: Message) -> dict[str, Any]:
    """A message as the chat completions API takes it."""
    sent: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        sent["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ]
    if message.tool_call_id:
        sent["tool_call_id"] = message.tool_call_id
    return sent


def _tool_calls(message: Any) -> tuple[ToolCall, ...]:
    """The function calls of a choice's message (other kinds of tool call are not ours to answer)."""
    return tuple(
        ToolCall(call.id or "", call.function.name or "", call.function.arguments or "")
        for call in (message.tool_calls or [])
        if getattr(call, "function", None) is not None
    )


def create(model: str | None = None, **options: Any) -> OpenAIBackend:
    """The registry's factory: *model* is required; *options* are :class:`OpenAIBackend`'s keywords."""
    if not model:
        raise BenchsmithError("the openai backend needs --model")
    return OpenAIBackend(model, **options)
