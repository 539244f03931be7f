"""A local server speaking OpenAI's REST format, scripted per test, for the real client to talk to.

It answers POST ``…/chat/completions`` (also Azure's
``/openai/deployments/<name>/chat/completions``) and ``…/embeddings`` with
the JSON OpenAI documents. A test scripts it: canned completions keyed by a
substring of the last user message (or a queue), injected errors with an
optional Retry-After, a delay per request, and servers that ignore ``n``. A
completion is a text or a :class:`Reply`, which may call tools: its
``tool_calls`` come back in the API's format (``finish_reason`` "tool_calls",
``content`` null when there is no text). ``refuse_tools`` makes it answer a
request carrying ``tools`` as servers without function calling do (HTTP 400).
It records every request and the largest number it held in flight at once.

Token counts are whitespace-separated words, so tests can predict them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

EMBEDDING_DIMENSIONS = 8


@dataclass
class ReceivedRequest:
    path: str
    headers: dict[str, str]  # names in lower case
    body: dict[str, Any]


@dataclass
class InjectedError:
    status: int
    retry_after: str | None = None  # the Retry-After header, in seconds
    retry_after_ms: str | None = None  # OpenAI's retry-after-ms header


@dataclass(frozen=True)
class Reply:
    """A completion that may call tools: each call is ``(name, arguments)``, the arguments a dict or raw JSON text."""

    content: str | None = None
    tool_calls: tuple[tuple[str, Any], ...] = ()


@dataclass
class Script:
    replies: dict[str, list[str | Reply]] = field(default_factory=dict)  # substring of the last user message -> texts
    queue: deque[str | Reply] = field(default_factory=deque)  # served in order when no substring matches
    errors: deque[InjectedError] = field(default_factory=deque)  # served before any answer
    delay: float = 0.0
    ignore_n: bool = False
    refuse_tools: bool = False  # answer requests that carry tools with HTTP 400, as servers without function calling


def embedding_of(text: str) -> list[float]:
    """The deterministic vector this server gives *text* (exact in float32)."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [(byte - 128) / 128 for byte in digest[:EMBEDDING_DIMENSIONS]]


def words(text: str) -> int:
    return len(text.split())


class OpenAIServer:
    """``with OpenAIServer() as server:`` … point OPENAI_BASE_URL at ``server.base_url``."""

    def __init__(self) -> None:
        self.script = Script()
        self.requests: list[ReceivedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._counter = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def reply(self, substring: str, *texts: str) -> None:
        self.script.replies[substring] = list(texts)

    def fail(self, status: int, times: int = 1, retry_after: str | None = None, retry_after_ms: str | None = None):
        for _ in range(times):
            self.script.errors.append(InjectedError(status, retry_after, retry_after_ms))

    def chat_requests(self) -> list[ReceivedRequest]:
        return [r for r in self.requests if r.path.split("?")[0].endswith("/chat/completions")]

    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    headers = {name.lower(): value for name, value in self.headers.items()}
                    server.requests.append(ReceivedRequest(self.path, headers, body))
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    error = server.script.errors.popleft() if server.script.errors else None
                try:
                    time.sleep(server.script.delay)
                    if error is not None:
                        self._send_error(error)
                    elif server.script.refuse_tools and body.get("tools"):
                        self._send(
                            400,
                            {
                                "error": {
                                    "message": "tools is not supported by this model",
                                    "type": "invalid_request_error",
                                }
                            },
                        )
                    elif self.path.split("?")[0].endswith("/chat/completions"):
                        self._send(200, server._chat(body))
                    elif self.path.split("?")[0].endswith("/embeddings"):
                        self._send(200, server._embeddings(body))
                    else:
                        self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _send_error(self, error: InjectedError) -> None:
                headers = {}
                if error.retry_after is not None:
                    headers["Retry-After"] = error.retry_after
                if error.retry_after_ms is not None:
                    headers["retry-after-ms"] = error.retry_after_ms
                kind = "rate_limit_exceeded" if error.status == 429 else "server_error"
                self._send(error.status, {"error": {"message": f"injected {error.status}", "type": kind}}, headers)

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def _next_texts(self, last_user: str, n: int, number: int) -> list[str | Reply]:
        with self._lock:
            for substring, texts in self.script.replies.items():
                if substring in last_user:
                    return [texts[i % len(texts)] for i in range(n)]
            if self.script.queue:
                return [self.script.queue.popleft() for _ in range(min(n, len(self.script.queue)))]
        return [f"answer {number}.{i}" for i in range(n)]

    def _chat(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._counter += 1
            number = self._counter
        messages = body.get("messages", [])
        last_user = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
        n = 1 if self.script.ignore_n else int(body.get("n", 1))
        texts = self._next_texts(last_user, n, number)
        prompt_tokens = sum(words(m.get("content") or "") for m in messages)
        completion_tokens = sum(
            words(_content(t) or "") + sum(words(json.dumps(a)) for _, a in _calls(t)) for t in texts
        )
        return {
            "id": f"chatcmpl-test{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [_choice(i, text, number) for i, text in enumerate(texts)],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = []
        for index, text in enumerate(inputs):
            vector: Any = embedding_of(text)
            if body.get("encoding_format") == "base64":
                vector = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
            data.append({"object": "embedding", "index": index, "embedding": vector})
        tokens = sum(words(text) for text in inputs)
        return {
            "object": "list",
            "data": data,
            "model": body.get("model", ""),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }


def _content(reply: str | Reply) -> str | None:
    return reply.content if isinstance(reply, Reply) else reply


def _calls(reply: str | Reply) -> tuple[tuple[str, Any], ...]:
    return reply.tool_calls if isinstance(reply, Reply) else ()


def _choice(index: int, reply: str | Reply, number: int) -> dict[str, Any]:
    """A choice as the API sends it: tool calls with ids, their arguments as JSON text."""
    message: dict[str, Any] = {"role": "assistant", "content": _content(reply)}
    calls = _calls(reply)
    if calls:
        message["tool_calls"] = [
            {
                "id": f"call_{number}_{i}",
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                },
            }
            for i, (name, arguments) in enumerate(calls)
        ]
    return {"index": index, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
