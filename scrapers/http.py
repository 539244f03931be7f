"""The one HTTP layer every tracker goes through: an on-disk cache, retries with backoff, per-host limits.

It is a requests transport adapter, mounted on every session the trackers use (the jira package's
session, PyGithub's, and the plain session for SourceForge and the Google Code archive), so the
real clients do their own HTTP while each exchange passes through here:

* **Cache** — every GET answered 2xx, 301/308, 404 or 410 is stored under
  ``<cache>/issues/http/<host>/<k[:2]>/<k>.json`` (status, headers, fetch time) beside
  ``<k>.body`` (the raw bytes), keyed by method, URL and Accept header, each written atomically
  the moment it arrives. A later request for it is answered from disk without touching the network,
  so a rebuild makes no request twice and a killed run loses nothing it fetched. A corrupt entry is
  an error naming the file; a miss is logged at debug level.
* **Retries** — timeouts, connection errors, 429, 5xx (but 501) and GitHub's rate-limit 403 are
  retried up to ``retries`` times; the wait is ``Retry-After`` when the server sends it, GitHub's
  ``X-RateLimit-Reset`` when the limit is exhausted, else ``backoff * 2**attempt`` capped at
  ``backoff_max``. A wait longer than ``max_wait`` is not taken: the answer is returned as final.
* **Limits** — at most ``per_host`` requests in flight per host (waits happen outside the slot),
  and after ``host_failures`` requests in a row that ended in connection errors a host is given up
  for the rest of the run, so an offline build fails fast instead of retrying every issue.

Settings come from ``BENCHSMITH_HTTP_*`` environment variables (see :class:`HttpPolicy`); the
trackers' base URLs from ``BENCHSMITH_JIRA_URL`` and friends (see :func:`base_url`).
"""

from __future__ import annotations

import email.utils
import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers

from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.scrapers.cache import CACHEABLE_STATUSES, CachedResponse, HttpCache

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HttpPolicy:
    """How patient the HTTP layer is; every field has a ``BENCHSMITH_HTTP_<FIELD>`` variable."""

    retries: int = 5  # tries after the first
    backoff: float = 1.0  # seconds before the first retry; doubles each time
    backoff_max: float = 60.0
    max_wait: float = 600.0  # the longest Retry-After or rate-limit reset that is waited for
    connect_timeout: float = 10.0
    timeout: float = 60.0  # seconds without a byte from the server
    per_host: int = 2  # requests in flight per host
    host_failures: int = 3  # requests failing to connect in a row before a host is given up

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> HttpPolicy:
        environ = os.environ if environ is None else environ
        values = {}
        for f in fields(cls):
            name = f"BENCHSMITH_HTTP_{f.name.upper()}"
            raw = environ.get(name, "").strip()
            if not raw:
                continue
            kind = int if f.type in ("int", int) else float
            try:
                value = kind(raw)
            except ValueError:
                raise BenchsmithError(f"{name}={raw!r}: not a{'n integer' if kind is int else ' number'}") from None
            if value < 0 or (f.name in ("per_host", "host_failures") and value < 1):
                raise BenchsmithError(f"{name}={raw!r}: out of range")
            values[f.name] = value
        return cls(**values)

    def backoff_delay(self, attempt: int) -> float:
        return min(self.backoff * 2**attempt, self.backoff_max)


def base_url(variable: str, default: str) -> str:
    """A tracker's base URL: *variable* from the environment (tests point it at a local server), else *default*."""
    value = os.environ.get(variable, "").strip() or default
    if urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).netloc:
        raise BenchsmithError(f"{variable}={value!r}: not an http(s) URL")
    return value.rstrip("/")


@dataclass(frozen=True)
class Exchange:
    """One request as the trackers' clients made it, and how it was answered."""

    method: str
    url: str
    status: int | None  # None when no answer came (connection error, timeout)
    from_cache: bool
    fetched_at: str  # when the answer came from the network (the original time for a cache hit)
    attempts: int = 1
    note: str = ""  # why the layer stopped retrying, when it did


_EXCHANGES: ContextVar[list[Exchange] | None] = ContextVar("benchsmith_http_exchanges", default=None)


@contextmanager
def recording() -> Iterator[list[Exchange]]:
    """Collect the exchanges made (in this thread or task) inside the block."""
    exchanges: list[Exchange] = []
    token = _EXCHANGES.set(exchanges)
    try:
        yield exchanges
    finally:
        _EXCHANGES.reset(token)


def _record(exchange: Exchange) -> None:
    exchanges = _EXCHANGES.get()
    if exchanges is not None:
        exchanges.append(exchange)


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


class HostLimiter:
    """Per-host slots for requests in flight, and a count of consecutive connection failures."""

    def __init__(self, per_host: int, give_up_after: int) -> None:
        self.per_host = per_host
        self.give_up_after = give_up_after
        self._lock = threading.Lock()
        self._slots: dict[str, threading.BoundedSemaphore] = {}
        self._failures: dict[str, int] = {}
        self._given_up: dict[str, str] = {}  # host → why

    @contextmanager
    def slot(self, host: str) -> Iterator[None]:
        with self._lock:
            semaphore = self._slots.setdefault(host, threading.BoundedSemaphore(self.per_host))
        with semaphore:
            yield

    def unreachable(self, host: str) -> str:
        """Why *host* was given up for this run; "" while it is not."""
        with self._lock:
            return self._given_up.get(host, "")

    def outcome(self, host: str, connected: bool) -> None:
        with self._lock:
            self._failures[host] = 0 if connected else self._failures.get(host, 0) + 1
            if self._failures[host] >= self.give_up_after:
                self._given_up[host] = f"{self._failures[host]} requests in a row failed to connect"

    def give_up(self, host: str, why: str) -> None:
        with self._lock:
            self._given_up[host] = why


def is_unresolvable(error: BaseException | None) -> bool:
    """Whether *error* is a failed DNS look-up (offline, or no such host): not worth a retry."""
    from urllib3.exceptions import NameResolutionError

    cause = error.args[0] if error is not None and error.args else None
    return isinstance(getattr(cause, "reason", cause), NameResolutionError)


def retry_after_seconds(headers: CaseInsensitiveDict, now: float) -> float | None:
    """The wait a response asks for: ``Retry-After`` (seconds or a date), or GitHub's exhausted rate limit."""
    value = (headers.get("Retry-After") or "").strip()
    if value:
        if value.isdigit():
            return float(value)
        try:
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - now)
        except (TypeError, ValueError):
            pass
    if headers.get("X-RateLimit-Remaining") == "0" and (headers.get("X-RateLimit-Reset") or "").isdigit():
        return max(0.0, int(headers["X-RateLimit-Reset"]) - now) + 1.0
    return None


def is_retryable(response: requests.Response) -> bool:
    status = response.status_code
    if status == 429 or (status >= 500 and status != 501):
        return True
    rate_limited = response.headers.get("X-RateLimit-Remaining") == "0" or "Retry-After" in response.headers
    return status == 403 and rate_limited


class TrackerAdapter(HTTPAdapter):
    """The transport adapter every tracker session mounts (see the module's docstring)."""

    def __init__(self, policy: HttpPolicy, cache: HttpCache, limiter: HostLimiter) -> None:
        super().__init__(max_retries=0, pool_connections=8, pool_maxsize=max(8, policy.per_host))
        self.policy = policy
        self.cache = cache
        self.limiter = limiter
        self.sleep = time.sleep
        self._counts_lock = threading.Lock()
        self.network_requests = 0  # requests that reached a server (each retry counts)
        self.cache_hits = 0

    def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
        cacheable = request.method == "GET"
        if cacheable:
            hit = self.cache.load(request)
            if hit is not None:
                with self._counts_lock:
                    self.cache_hits += 1
                _record(Exchange(request.method, request.url, hit.status, True, hit.fetched_at))
                return self._from_cache(request, hit)
            log.debug("cache miss: %s %s", request.method, request.url)
        if timeout is None:
            timeout = (self.policy.connect_timeout, self.policy.timeout)
        response, attempts, note = self._send_retrying(request, timeout, verify, cert, proxies)
        fetched_at = _now_iso()
        if cacheable and response.status_code in CACHEABLE_STATUSES:
            self.cache.store(request, response, fetched_at)
        _record(Exchange(request.method, request.url, response.status_code, False, fetched_at, attempts, note))
        return response

    def _send_retrying(self, request, timeout, verify, cert, proxies) -> tuple[requests.Response, int, str]:
        host = urlsplit(request.url).netloc
        retries = self.policy.retries if request.method in ("GET", "HEAD", "OPTIONS") else 0  # never resend a write
        attempt = 0
        while True:
            given_up = self.limiter.unreachable(host)
            if given_up:
                note = f"{host} unreachable: {given_up}"
                _record(Exchange(request.method, request.url, None, False, _now_iso(), attempt, note))
                raise requests.ConnectionError(f"{note}; not trying again in this run", request=request)
            error: requests.RequestException | None = None
            response = None
            with self.limiter.slot(host):
                with self._counts_lock:
                    self.network_requests += 1
                try:
                    response = super().send(
                        request, stream=False, timeout=timeout, verify=verify, cert=cert, proxies=proxies
                    )
                    response.content  # read the body while holding the slot  # noqa: B018
                except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError) as exc:
                    error = exc
            attempt += 1
            if is_unresolvable(error):
                note = f"cannot resolve {urlsplit(request.url).hostname} (offline?)"
                log.warning("%s %s: %s; not trying this host again in this run", request.method, request.url, note)
                self.limiter.give_up(host, note)
                _record(Exchange(request.method, request.url, None, False, _now_iso(), attempt, note))
                raise error
            if response is not None:
                self.limiter.outcome(host, connected=True)
                if not is_retryable(response):
                    return response, attempt, ""
                wait = retry_after_seconds(response.headers, time.time())
                what = f"HTTP {response.status_code}"
            else:
                wait = None
                what = type(error).__name__
            if wait is None:
                wait = self.policy.backoff_delay(attempt - 1)
            if attempt > retries or wait > self.policy.max_wait:
                if attempt > retries:
                    note = f"gave up after {attempt} attempts"
                else:
                    limit = f"BENCHSMITH_HTTP_MAX_WAIT={self.policy.max_wait:g}"
                    note = f"the server asks to wait {wait:.0f}s, more than {limit}"
                log.warning("%s %s: %s: %s", request.method, request.url, what, note)
                if response is not None:
                    return response, attempt, note
                self.limiter.outcome(host, connected=not isinstance(error, requests.ConnectionError))
                _record(Exchange(request.method, request.url, None, False, _now_iso(), attempt, note))
                raise error
            log.info(
                "%s %s: %s; retrying in %.1fs (attempt %d of %d)",
                request.method,
                request.url,
                what,
                wait,
                attempt + 1,
                retries + 1,
            )
            self.sleep(wait)

    def _from_cache(self, request: requests.PreparedRequest, hit: CachedResponse) -> requests.Response:
        response = requests.Response()
        response.status_code = hit.status
        response.reason = hit.reason
        response.headers = CaseInsensitiveDict(hit.headers)
        response._content = hit.body
        response._content_consumed = True  # there is no socket behind it (requests checks before redirects)
        response.encoding = get_encoding_from_headers(response.headers)
        response.url = request.url
        response.request = request
        response.connection = self
        return response


class Http:
    """The shared layer: a policy, a cache, per-host limits, and the adapter that applies them."""

    def __init__(self, policy: HttpPolicy, cache_root: Path) -> None:
        self.policy = policy
        self.cache = HttpCache(cache_root)
        self.limiter = HostLimiter(policy.per_host, policy.host_failures)
        self.adapter = TrackerAdapter(policy, self.cache, self.limiter)
        self._local = threading.local()

    def mount(self, session: requests.Session) -> requests.Session:
        """Route *session*'s requests through this layer."""
        session.mount("http://", self.adapter)
        session.mount("https://", self.adapter)
        return session

    def session(self) -> requests.Session:
        """A plain requests session for this thread, mounted on this layer."""
        session = getattr(self._local, "session", None)
        if session is None:
            session = self.mount(requests.Session())
            session.headers["User-Agent"] = (
                f"benchsmith (+issue scraper) {session.headers.get('User-Agent', '')}".strip()
            )
            self._local.session = session
        return session

    def get(self, url: str, **kwargs) -> requests.Response:
        return self.session().get(url, timeout=(self.policy.connect_timeout, self.policy.timeout), **kwargs)


_SHARED: Http | None = None
_SHARED_LOCK = threading.Lock()


def shared() -> Http:
    """The process's HTTP layer, made on first use (and anew when its settings or cache root change)."""
    global _SHARED
    policy = HttpPolicy.from_env()
    root = cache_dir("issues", "http")
    with _SHARED_LOCK:
        if _SHARED is None or _SHARED.policy != policy or _SHARED.cache.root != root:
            _SHARED = Http(policy, root)
        return _SHARED
