"""The HTTP layer's on-disk cache: one raw response per request, written atomically as it arrives.

Layout: ``<root>/<host>/<k[:2]>/<k>.json`` (method, URL, status, headers, fetch time, body digest)
beside ``<k>.body`` (the bytes as received), where ``k`` is the SHA-256 of method, URL and Accept
header. The body is written first; the metadata file is what makes an entry exist, so a run killed
between the two leaves no entry, only a stray body that the next store overwrites. An entry that
cannot be read back is an error naming its file, never a silent miss.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import requests

from benchsmith.core.atomic import atomic_path
from benchsmith.core.errors import BenchsmithError

CACHEABLE_STATUSES = frozenset({200, 203, 204, 301, 308, 404, 410})
CACHE_FORMAT = 1
PRIVATE_HEADERS = frozenset({"set-cookie", "authorization", "www-authenticate"})  # never stored


class CacheCorrupt(BenchsmithError):
    """A cache entry that cannot be read back."""


@dataclass(frozen=True)
class CachedResponse:
    url: str
    status: int
    reason: str
    headers: dict[str, str]
    body: bytes
    fetched_at: str


class HttpCache:
    """Raw responses on disk, one ``.json`` (metadata) and one ``.body`` (bytes) per request."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _paths(self, request: requests.PreparedRequest) -> tuple[Path, Path]:
        accept = request.headers.get("Accept", "")
        key = hashlib.sha256(f"{request.method} {request.url}\n{accept}".encode()).hexdigest()
        host = (urlsplit(request.url).netloc or "unknown").replace(":", "_")
        folder = self.root / host / key[:2]
        return folder / f"{key}.json", folder / f"{key}.body"

    def load(self, request: requests.PreparedRequest) -> CachedResponse | None:
        meta_path, body_path = self._paths(request)
        if not meta_path.exists():
            return None
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            body = body_path.read_bytes()
            if meta["format"] != CACHE_FORMAT or meta["url"] != request.url:
                raise ValueError(f"entry is for {meta['url']} (format {meta['format']})")
            if hashlib.sha256(body).hexdigest() != meta["body_sha256"]:
                raise ValueError(f"{body_path.name} does not match its recorded digest")
            return CachedResponse(
                meta["url"], int(meta["status"]), meta["reason"], dict(meta["headers"]), body, meta["fetched_at"]
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CacheCorrupt(
                f"{meta_path}: corrupt cache entry for {request.url} ({exc}); delete it to fetch again"
            ) from exc

    def store(self, request: requests.PreparedRequest, response: requests.Response, fetched_at: str) -> None:
        meta_path, body_path = self._paths(request)
        body = response.content or b""
        headers = {k: v for k, v in response.headers.items() if k.lower() not in PRIVATE_HEADERS}
        meta = {
            "format": CACHE_FORMAT,
            "method": request.method,
            "url": request.url,
            "status": response.status_code,
            "reason": response.reason or "",
            "headers": headers,
            "fetched_at": fetched_at,
            "body_sha256": hashlib.sha256(body).hexdigest(),
            "body_bytes": len(body),
        }
        with atomic_path(body_path) as tmp:  # the body first: the metadata is what makes an entry exist
            tmp.write_bytes(body)
        with atomic_path(meta_path) as tmp:
            tmp.write_text(json.dumps(meta, indent=1, sort_keys=True), encoding="utf-8")
