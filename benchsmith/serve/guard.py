"""The server's gate, before any handler runs: bearer tokens, body size and read time, UTF-8, per-token rates.

A pure ASGI middleware, so a request refused here never has its body parsed: without the right token, a client learns
nothing but 401; a body over the cap is refused from its ``Content-Length`` or as soon as it grows past it (413); a
body that is not UTF-8 is refused with the offset of its first bad byte (400); a body that does not arrive within the
read timeout is refused (408); a token over its rate waits (429 with ``Retry-After``).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import math
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.core.errors import BenchsmithError

OPEN_PATHS = ("/v1/health",)  # the only paths served without a token
# The routes' methods, so a method a route does not take is refused (405, naming those it does) before its body is
# read, and the bodies read are those of the routes that take one.
METHODS = {
    "/v1/health": ("GET",),
    "/v1/judge": ("POST",),
    "/v1/jobs": ("POST",),
    "/v1/jobs/results": ("POST",),
    "/v1/jobs/stream": ("POST",),
    "/metrics": ("GET",),
    "/openapi.json": ("GET",),
}
JOB_METHODS = ("GET",)  # /v1/jobs/{job_id}


def read_tokens(path: Path) -> list[str]:
    """The tokens in *path*: one a line; blank lines and lines starting with # are skipped."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchsmithError(f"--token-file {path}: cannot read it ({exc})") from None
    tokens = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not tokens:
        raise BenchsmithError(f"--token-file {path}: holds no token (one a line)")
    short = [n for n, token in enumerate(tokens, 1) if len(token) < 16]
    if short:
        raise BenchsmithError(f"--token-file {path}: token {short[0]} is shorter than 16 characters")
    return tokens


def client_of(token: str) -> str:
    """The name a token's jobs are stored under: a hash, so the store holds no token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()[:24]


@dataclass
class Bucket:
    tokens: float
    stamp: float


@dataclass
class GuardSettings:
    tokens: list[str]
    max_body_bytes: int = 8 * 1024 * 1024
    read_timeout: float = 30.0
    rate: float = 200.0  # requests a second, per token
    burst: float = 400.0
    buckets: dict[str, Bucket] = field(default_factory=dict)


class Guard:
    """The ASGI middleware; *on_response* is called with (path, method, status, seconds) for the metrics."""

    def __init__(self, app, settings: GuardSettings, on_response):
        self.app = app
        self.settings = settings
        self.on_response = on_response
        self._lock = threading.Lock()
        self._clients = {token: client_of(token) for token in settings.tokens}

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        path = scope.get("path", "")
        status_sent: list[int] = []

        async def sending(message) -> None:
            if message["type"] == "http.response.start":
                status_sent.append(message["status"])
            await send(message)

        try:
            refusal = await self._admit(scope, receive, path)
            if isinstance(refusal, Refusal):
                await refusal.send(sending)
            else:
                await self.app(scope, refusal, sending)
        finally:
            self.on_response(
                path, scope.get("method", ""), status_sent[0] if status_sent else 0, time.perf_counter() - started
            )

    async def _admit(self, scope, receive, path: str):
        headers = {name.decode("latin-1").lower(): value for name, value in scope.get("headers", [])}
        if path not in OPEN_PATHS:
            client = self._authenticate(headers.get("authorization", b""))
            if client is None:
                return Refusal(
                    401,
                    "a bearer token from the server's --token-file is required (Authorization: Bearer <token>)",
                    {"WWW-Authenticate": "Bearer"},
                )
            scope.setdefault("state", {})["client"] = client
            wait = self._take(client)
            if wait > 0:
                return Refusal(
                    429,
                    f"this token is over its rate of {self.settings.rate:g} requests a second",
                    {"Retry-After": str(max(1, math.ceil(wait)))},
                )
        allowed = METHODS.get(path, JOB_METHODS if path.startswith("/v1/jobs/") else None)
        method = scope.get("method", "")
        if allowed is not None and method not in allowed and not (method == "HEAD" and "GET" in allowed):
            return Refusal(405, f"{path} takes {', '.join(allowed)}, not {method}", {"Allow": ", ".join(allowed)})
        if method != "POST":
            return receive
        length = headers.get("content-length")
        cap = self.settings.max_body_bytes
        if length is not None:
            if not length.isdigit():
                return Refusal(400, f"Content-Length {length.decode('latin-1')!r} is not a number")
            if int(length) > cap:
                return Refusal(413, f"the body is {int(length)} bytes; the limit is {cap}")
        media = headers.get("content-type", b"").split(b";")[0].strip().lower()
        if media != b"application/json":
            return Refusal(415, f"the body must be application/json, not {media.decode('latin-1') or 'untyped'!r}")
        try:
            body = await asyncio.wait_for(self._read(receive, cap), self.settings.read_timeout)
        except TooLarge:
            return Refusal(413, f"the body is over the limit of {cap} bytes")
        except TimeoutError:
            return Refusal(408, f"the body did not arrive within {self.settings.read_timeout:g} seconds")
        except Disconnected:
            return Refusal(400, "the client disconnected before the body arrived")
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Refusal(400, f"the body is not valid UTF-8: byte {body[exc.start]:#04x} at offset {exc.start}")
        delivered = False

        async def replay():
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # the disconnect, when it comes

        return replay

    def _authenticate(self, header: bytes) -> str | None:
        scheme, _, token = header.decode("latin-1").partition(" ")
        if scheme.lower() != "bearer" or not token:
            return None
        found = None
        for known, client in self._clients.items():  # every token compared, in constant time each
            if hmac.compare_digest(known.encode("utf-8"), token.strip().encode("latin-1")):
                found = client
        return found

    def _take(self, client: str) -> float:
        """Seconds until *client* may ask again (0: now, and one request is counted)."""
        now = time.monotonic()
        with self._lock:
            bucket = self.settings.buckets.setdefault(client, Bucket(self.settings.burst, now))
            bucket.tokens = min(self.settings.burst, bucket.tokens + (now - bucket.stamp) * self.settings.rate)
            bucket.stamp = now
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return 0.0
            return (1 - bucket.tokens) / self.settings.rate

    @staticmethod
    async def _read(receive, cap: int) -> bytes:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise Disconnected
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > cap:
                raise TooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


class TooLarge(Exception):
    pass


class Disconnected(Exception):
    pass


class Refusal:
    def __init__(self, status: int, error: str, headers: dict[str, str] | None = None):
        self.status, self.error, self.headers = status, error, headers or {}

    async def send(self, send) -> None:
        body = json.dumps({"error": self.error}).encode("utf-8")
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in self.headers.items()]
        if self.status == 413:
            headers.append((b"connection", b"close"))  # the rest of a body too large is not read
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
